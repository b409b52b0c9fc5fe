// Command benchserver is errsvc built for benchmarks only: the same stack
// as cmd/errsvc (server.New, so server.NewGRPCServer and
// server.NewHTTPHandler with the same Options, interceptors, stats handler,
// REST middleware, limits and metrics) plus two floors to measure it
// against, added through the Options hooks:
//
//   - gRPC: grpc.testing.TestService/EmptyCall (the generated service that
//     ships with grpc-go), an empty handler behind the same interceptors.
//   - REST: POST /v1/bench/empty on the same grpc-gateway mux
//     (runtime.ServeMux.HandlePath), behind the same HTTP middleware (body
//     limit, concurrency limit, metrics, logging); it reads the body and
//     answers "{}".
//
// and two diagnostics that answer errsvc's own answer without translating
// (package floors): gRPC errsvc.bench.v1.Canned/Translate and REST
// POST /v1/bench/canned.
//
// Differences from a production errsvc, all deliberate: --stream-rate
// defaults to -1 (unlimited), or the streaming figure would measure the
// per-stream limiter (500/s by default) instead of the server; the log
// level defaults to WARN (as production runs at INFO, successful calls log
// nothing in both); and --pprof-addr serves net/http/pprof on its own
// loopback listener, outside the measured stack, so the load generator can
// take a CPU profile during a scenario.
//
// It listens on loopback only and stops on SIGINT/SIGTERM.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	_ "net/http/pprof" // served on --pprof-addr only
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/errsvc/errsvc/bench/internal/floors"
	"github.com/errsvc/errsvc/server"
	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/grpc"
	testgrpc "google.golang.org/grpc/interop/grpc_testing"
	"google.golang.org/protobuf/encoding/protojson"
)

// EmptyPath is the empty REST route.
const EmptyPath = "/v1/bench/empty"

type emptyService struct {
	testgrpc.UnimplementedTestServiceServer
}

func (emptyService) EmptyCall(context.Context, *testgrpc.Empty) (*testgrpc.Empty, error) {
	return &testgrpc.Empty{}, nil
}

func emptyREST(w http.ResponseWriter, r *http.Request, _ map[string]string) {
	// Read the body as a real handler would, so the body limit applies.
	if _, err := io.Copy(io.Discard, r.Body); err != nil {
		http.Error(w, "body", http.StatusRequestEntityTooLarge)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, "{}")
}

func main() {
	var (
		opts      server.Options
		pprofAddr string
		logLevel  slog.Level
	)
	flag.StringVar(&opts.GRPCAddr, "grpc-addr", "127.0.0.1:19090", "gRPC listen address (loopback)")
	flag.StringVar(&opts.HTTPAddr, "http-addr", "127.0.0.1:18080", "HTTP listen address (loopback)")
	flag.Float64Var(&opts.StreamRate, "stream-rate", -1, "messages per second per TranslateStream (negative: unlimited; errsvc's default is 500)")
	flag.IntVar(&opts.MaxConcurrentRequests, "max-concurrent-requests", server.DefaultMaxConcurrentRequests, "as errsvc")
	flag.IntVar(&opts.MaxBatchItems, "max-batch-items", server.DefaultMaxBatchItems, "as errsvc")
	flag.StringVar(&pprofAddr, "pprof-addr", "127.0.0.1:16060", "net/http/pprof listen address (loopback; empty: off)")
	flag.TextVar(&logLevel, "log-level", slog.LevelWarn, "least level logged")
	flag.Parse()

	for _, a := range []string{opts.GRPCAddr, opts.HTTPAddr, pprofAddr} {
		if a == "" {
			continue
		}
		host, _, err := net.SplitHostPort(a)
		if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
			fmt.Fprintf(os.Stderr, "benchserver: %q is not a loopback address\n", a)
			os.Exit(2)
		}
	}

	// As cmd/errsvc does.
	server.ApplyRuntimeDefaults()
	opts.Logger = slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: logLevel}))
	opts.ShutdownTimeout = 5 * time.Second
	// The same JSON options as the gateway (server.NewHTTPHandler).
	canned, err := floors.NewCanned(protojson.MarshalOptions{UseProtoNames: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchserver:", err)
		os.Exit(1)
	}
	opts.RegisterGRPC = func(s *grpc.Server) {
		testgrpc.RegisterTestServiceServer(s, emptyService{})
		canned.RegisterGRPC(s)
	}
	opts.RegisterGateway = func(mux *runtime.ServeMux) error {
		if err := mux.HandlePath(http.MethodPost, floors.CannedPath, canned.ServeREST); err != nil {
			return err
		}
		return mux.HandlePath(http.MethodPost, EmptyPath, emptyREST)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv, err := server.New(opts)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchserver:", err)
		os.Exit(1)
	}
	if pprofAddr != "" {
		ps := &http.Server{Addr: pprofAddr, Handler: http.DefaultServeMux, ReadHeaderTimeout: 10 * time.Second}
		go func() { _ = ps.ListenAndServe() }()
		defer ps.Close()
	}
	if err := srv.Serve(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "benchserver:", err)
		os.Exit(1)
	}
}
