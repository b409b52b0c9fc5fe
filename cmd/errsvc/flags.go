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
		fmt.Fprintln(errOut, "usage: errsvc [flags]\n       errsvc translate [FILE|-]\n\nflags (a limit answers RESOURCE_EXHAUSTED, REST 413 or 429, with a BadRequest or QuotaFailure detail):")
		fs.PrintDefaults()
	}
	fs.StringVar(&opts.GRPCAddr, "grpc-addr", envOr("ERRSVC_GRPC_ADDR", server.DefaultGRPCAddr), "gRPC listen `address` (env ERRSVC_GRPC_ADDR)")
	fs.StringVar(&opts.HTTPAddr, "http-addr", envOr("ERRSVC_HTTP_ADDR", server.DefaultHTTPAddr), "HTTP listen `address` (env ERRSVC_HTTP_ADDR)")
	fs.Int64Var(&opts.MaxRequestBytes, "max-request-bytes", server.DefaultMaxRequestBytes, "largest REST body or gRPC message (each stream message) accepted, in `bytes` (413)")
	fs.IntVar(&opts.MaxBatchItems, "max-batch-items", server.DefaultMaxBatchItems, "most requests in one TranslateBatch (413)")
	fs.IntVar(&opts.MaxConcurrentRequests, "max-concurrent-requests", server.DefaultMaxConcurrentRequests, "most unary calls, gRPC and REST together, handled at once (429)")
	fs.IntVar(&opts.MaxConcurrentStreams, "max-concurrent-streams", server.DefaultMaxConcurrentStreams, "most gRPC streams open at once")
	fs.Float64Var(&opts.StreamRate, "stream-rate", server.DefaultStreamRate, "messages per second one TranslateStream may send; a message over it is answered with a RESOURCE_EXHAUSTED item and the stream goes on (negative: unlimited)")
	fs.IntVar(&opts.StreamBurst, "stream-burst", server.DefaultStreamBurst, "messages a stream may send at once above --stream-rate")
	fs.StringVar(&tlsCert, "tls-cert", "", "PEM certificate `file` (chain) serving TLS on both ports; plaintext without it")
	fs.StringVar(&tlsKey, "tls-key", "", "PEM private key `file` of --tls-cert")
	fs.StringVar(&tlsClientCA, "tls-client-ca", "", "PEM CA bundle `file`: require client certificates issued by it (mutual TLS) on both ports")
	fs.DurationVar(&opts.DrainDelay, "drain-delay", 0, "on SIGTERM, keep serving this long after readiness turns false, before refusing new calls")
	fs.DurationVar(&opts.ShutdownTimeout, "shutdown-timeout", server.DefaultShutdownTimeout, "on SIGTERM, how long in-flight calls may take to finish")
	fs.DurationVar(&opts.MaxConnectionAge, "max-connection-age", 0, "close each gRPC connection gracefully after about this long, so clients spread onto new replicas (0: never)")
	fs.StringVar(&corsOrigins, "cors-origins", envOr("ERRSVC_CORS_ORIGINS", ""), "comma-separated browser `origins` allowed to call the HTTP port (REST, Connect, gRPC-Web) cross-origin, e.g. https://app.example.com or https://*.example.com; empty: no CORS (env ERRSVC_CORS_ORIGINS)")
	fs.TextVar(&logLevel, "log-level", slog.LevelInfo, "least `level` logged: DEBUG (every call), INFO, WARN (caller errors), ERROR (internal errors)")
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
	opts.Logger = slog.New(slog.NewJSONHandler(errOut, &slog.HandlerOptions{Level: logLevel}))
	return opts, nil
}
