package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/errsvc/errsvc/server"
)

// envKey is the environment variable that sets a flag: ERRSVC_ and the
// flag's name in upper snake case. Every flag has one, derived here, so a
// new flag gets its variable without a list to forget.
func envKey(flag string) string {
	return "ERRSVC_" + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
}

// parseServeFlags resolves each setting as flag, else environment, else
// default: the environment only moves the flag's default. The logger it
// sets writes JSON lines to errOut at the --log-level.
func parseServeFlags(args []string, getenv func(string) string, errOut io.Writer) (server.Options, error) {
	envOr := func(key, def string) string {
		if v := getenv(key); v != "" {
			return v
		}
		return def
	}
	var (
		opts                         server.Options
		tlsCert, tlsKey, tlsClientCA string
		corsOrigins                  string
		logLevel                     slog.Level
	)
	fs := flag.NewFlagSet("errsvc", flag.ContinueOnError)
	fs.SetOutput(errOut)
	fs.Usage = func() {
		fmt.Fprintln(errOut, "usage: errsvc [flags]\n       errsvc translate [FILE|-]\n       errsvc healthcheck [flags]\n       errsvc --version\n\nflags (a limit answers RESOURCE_EXHAUSTED, REST 413 or 429, with a BadRequest or QuotaFailure detail):")
		fs.PrintDefaults()
	}
	fs.StringVar(&opts.GRPCAddr, "grpc-addr", envOr("ERRSVC_GRPC_ADDR", server.DefaultGRPCAddr), "gRPC listen `address` (env ERRSVC_GRPC_ADDR)")
	fs.StringVar(&opts.HTTPAddr, "http-addr", envOr("ERRSVC_HTTP_ADDR", server.DefaultHTTPAddr), "HTTP listen `address` (env ERRSVC_HTTP_ADDR)")
	fs.Int64Var(&opts.MaxRequestBytes, "max-request-bytes", server.DefaultMaxRequestBytes, "largest REST body or gRPC message (each stream message) accepted, in `bytes` (413)")
	fs.IntVar(&opts.MaxBatchItems, "max-batch-items", server.DefaultMaxBatchItems, "most requests in one TranslateBatch (413)")
	fs.IntVar(&opts.MaxConcurrentRequests, "max-concurrent-requests", server.DefaultMaxConcurrentRequests, "most unary calls, gRPC and REST together, handled at once (429)")
	fs.IntVar(&opts.MaxConcurrentStreams, "max-concurrent-streams", server.DefaultMaxConcurrentStreams, "most gRPC streams open at once; one connection holds at most a quarter of them")
	fs.Float64Var(&opts.StreamRate, "stream-rate", server.DefaultStreamRate, "messages per second one TranslateStream may send; a message over it is answered with a RESOURCE_EXHAUSTED item and the stream goes on (negative: unlimited)")
	fs.IntVar(&opts.StreamBurst, "stream-burst", server.DefaultStreamBurst, "messages a stream may send at once above --stream-rate")
	fs.Float64Var(&opts.StreamByteRate, "stream-byte-rate", server.DefaultStreamByteRate, "bytes per second, counted after decompression, one TranslateStream may send (bursts of twice --max-request-bytes); past it its next message is read only when the rate allows (negative: unlimited)")
	fs.StringVar(&tlsCert, "tls-cert", "", "PEM certificate `file` (chain) serving TLS on both ports; plaintext without it")
	fs.StringVar(&tlsKey, "tls-key", "", "PEM private key `file` of --tls-cert")
	fs.StringVar(&tlsClientCA, "tls-client-ca", "", "PEM CA bundle `file`: require client certificates issued by it (mutual TLS) on both ports")
	fs.DurationVar(&opts.DrainDelay, "drain-delay", server.DefaultDrainDelay, "on SIGTERM, keep serving this long after readiness turns false (HTTP answers carry Connection: close meanwhile), before refusing new calls")
	fs.DurationVar(&opts.ShutdownTimeout, "shutdown-timeout", server.DefaultShutdownTimeout, "on SIGTERM, how long in-flight calls may take to finish")
	fs.DurationVar(&opts.MaxConnectionAge, "max-connection-age", 0, "close each gRPC connection gracefully after about this long, so clients spread onto new replicas (0: never)")
	fs.BoolVar(&opts.AllowPlaintext, "allow-plaintext", envOr("ERRSVC_ALLOW_PLAINTEXT", "") == "true",
		"plaintext on a non-loopback address is intended (a service mesh or private network encrypts it): no WARN at start (env ERRSVC_ALLOW_PLAINTEXT=true)")
	fs.DurationVar(&opts.ReceiveTimeout, "receive-timeout", server.DefaultReceiveTimeout, "a REST, Connect or gRPC-Web body or a unary gRPC message must arrive in full within this of its headers (REST 408, Connect 504, gRPC DEADLINE_EXCEEDED)")
	fs.DurationVar(&opts.WriteTimeout, "write-timeout", server.DefaultWriteTimeout, "a REST client must read its answer, and a TranslateStream client take each answer, within this")
	fs.DurationVar(&opts.StreamIdleTimeout, "stream-idle-timeout", server.DefaultStreamIdleTimeout, "end a TranslateStream that delivers no complete message for this long")
	fs.IntVar(&opts.MaxStreamsPerConnection, "max-streams-per-connection", server.DefaultMaxStreamsPerConn, "HTTP/2 streams one gRPC connection may open at once (more are refused with REFUSED_STREAM)")
	fs.IntVar(&opts.MaxHeaderBytes, "max-header-bytes", server.DefaultMaxHeaderBytes, "largest request header block (gRPC metadata, HTTP headers), in `bytes`")
	fs.Int64Var(&opts.MaxReceiveBufferBytes, "max-receive-buffer-bytes", server.DefaultMaxReceiveBufferBytes, "`bytes` of unary gRPC messages being received at once, each counted at twice --max-request-bytes (429-like RESOURCE_EXHAUSTED past it); and, apart, of gRPC messages (unary or stream) larger than a stream's 64 KiB window while they arrive (past it, their senders wait for window)")
	fs.IntVar(&opts.MaxHealthWatches, "max-health-watches", server.DefaultMaxHealthWatches, "grpc.health.v1 Watch streams open at once")
	fs.DurationVar(&opts.MaxConnectionIdle, "max-connection-idle", server.DefaultMaxConnectionIdle, "close a gRPC connection with no call for this long")
	fs.DurationVar(&opts.KeepaliveMinTime, "keepalive-min-time", server.DefaultKeepaliveMinTime, "shortest interval at which a gRPC client may ping; faster pingers are disconnected")
	fs.StringVar(&corsOrigins, "cors-origins", envOr("ERRSVC_CORS_ORIGINS", ""), "comma-separated browser `origins` allowed to call the HTTP port (REST, Connect, gRPC-Web) cross-origin, e.g. https://app.example.com or https://*.example.com; empty: no CORS (env ERRSVC_CORS_ORIGINS)")
	fs.IntVar(&opts.AnswerCacheEntries, "answer-cache-entries", server.DefaultAnswerCacheEntries, "most Translate answers each transport (gRPC, REST, Connect) keeps to answer repeated identical requests (0: no answer cache)")
	fs.Int64Var(&opts.AnswerCacheBytes, "answer-cache-bytes", server.DefaultAnswerCacheBytes, "most `bytes` (requests and answers) each transport's answer cache holds (0: no answer cache)")
	fs.StringVar(&opts.PolicyPath, "policy", "", "operator policy `file or folder` (YAML or JSON, docs/POLICY.md): checked at start, reloaded on SIGHUP and when it changes; a file that does not load keeps the policy before it")
	fs.TextVar(&logLevel, "log-level", slog.LevelInfo, "least `level` logged: DEBUG (every call), INFO, WARN (caller errors), ERROR (internal errors)")
	// Every flag has its variable (envKey), named in --help. The
	// environment moves a flag's default: applied before the command line,
	// which then overrides it.
	var envErr error
	fs.VisitAll(func(f *flag.Flag) {
		key := envKey(f.Name)
		if !strings.Contains(f.Usage, "(env "+key) {
			f.Usage += " (env " + key + ")"
		}
		if v := getenv(key); v != "" && envErr == nil {
			if err := fs.Set(f.Name, v); err != nil {
				fmt.Fprintf(errOut, "errsvc: %s=%q: %v\n", key, v, err)
				envErr = fmt.Errorf("%s: %w", key, err)
			}
		}
	})
	if envErr != nil {
		return opts, envErr
	}
	if err := fs.Parse(args); err != nil {
		return opts, err
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(errOut, "errsvc: unexpected argument %q\n", fs.Arg(0))
		fs.Usage()
		return opts, errors.New("unexpected arguments")
	}
	for _, o := range strings.Split(corsOrigins, ",") {
		if o = strings.TrimSpace(o); o != "" {
			opts.CORSOrigins = append(opts.CORSOrigins, o)
		}
	}
	switch {
	case tlsCert != "" || tlsKey != "":
		cfg, err := server.LoadTLSConfig(tlsCert, tlsKey, tlsClientCA)
		if err != nil {
			fmt.Fprintf(errOut, "errsvc: %v\n", err)
			return opts, err
		}
		opts.TLS = cfg
	case tlsClientCA != "":
		fmt.Fprintln(errOut, "errsvc: --tls-client-ca needs --tls-cert and --tls-key")
		return opts, errors.New("--tls-client-ca without a server certificate")
	}
	// 0 turns the cache off here; in server.Options 0 is the default and
	// a negative bound turns it off.
	if opts.AnswerCacheEntries <= 0 || opts.AnswerCacheBytes <= 0 {
		opts.AnswerCacheEntries, opts.AnswerCacheBytes = -1, -1
	}
	opts.Logger = slog.New(slog.NewJSONHandler(errOut, &slog.HandlerOptions{Level: logLevel}))
	return opts, nil
}
