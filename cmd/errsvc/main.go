// Command errsvc serves the error translation service over gRPC and REST;
// `errsvc translate [FILE]` translates one request locally, `errsvc policy
// check|explain` checks an operator policy file (docs/POLICY.md), `errsvc mcp`
// serves the MCP tools and resources over stdio, `errsvc
// healthcheck` asks a running errsvc for its gRPC health (the container's
// health check) and `errsvc --version` prints the build.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/errsvc/errsvc/internal/telemetry"
	"github.com/errsvc/errsvc/internal/version"
	"github.com/errsvc/errsvc/server"
	"google.golang.org/grpc/grpclog"
)

func main() {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "translate":
			os.Exit(runTranslate(os.Args[2:], os.Stdin, os.Stdout, os.Stderr))
		case "policy":
			os.Exit(runPolicy(os.Args[2:], os.Stdin, os.Stdout, os.Stderr))
		case "mcp":
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			code := runMCP(ctx, os.Args[2:], os.Getenv, os.Stdin, nopCloser{os.Stdout}, os.Stderr)
			stop()
			os.Exit(code)
		case "healthcheck":
			os.Exit(runHealthcheck(os.Args[2:], os.Getenv, os.Stdout, os.Stderr))
		case "--version", "-version", "version":
			fmt.Println(version.Get())
			os.Exit(0)
		}
	}
	os.Exit(runServe(os.Args[1:]))
}

func runServe(args []string) int {
	opts, err := parseServeFlags(args, os.Getenv, os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		return 2
	}
	logger := opts.Logger
	// grpc-go and grpc-gateway log through grpclog; without this their
	// lines are plain text among the JSON lines. Set before any gRPC use.
	grpclog.SetLoggerV2(server.GRPCLogger(logger))
	telemetry.RouteLogs(logger)
	server.ApplyRuntimeDefaults()
	build := version.Get()
	logger.Info("errsvc starting", "version", build.Version, "revision", build.Revision, "go_version", build.GoVersion)

	// SIGINT/SIGTERM cancel ctx, which makes Serve drain and return.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	tp, shutdownTracing, err := telemetry.TracerProvider(ctx, os.Getenv, build)
	if err != nil {
		logger.Error("errsvc cannot start tracing", "error", err)
		return 1
	}
	defer func() {
		// Flush the spans still batched; the drain already ended every call.
		if err := shutdownTracing(context.Background()); err != nil {
			logger.Warn("tracing shutdown", "error", err)
		}
	}()
	if tp != nil {
		opts.TracerProvider = tp
		logger.Info("exporting traces by OTLP")
	}

	holder, err := loadPolicyHolder(opts.PolicyPath)
	if err != nil {
		// At start a policy that does not load is refused: serving
		// without the operator's rules would decide otherwise than asked.
		logger.Error("errsvc cannot start: the operator policy does not load", "path", opts.PolicyPath, "error", err)
		return 1
	}
	if holder != nil {
		opts.Policy = holder
		p := holder.Load()
		logger.Info("operator policy loaded", "path", opts.PolicyPath, "version", p.Version(), "hash", p.Hash(), "rules", len(p.Rules()))
		go startPolicyWatch(opts.PolicyPath, holder, logger, true).run(ctx)
	}

	srv, err := server.New(opts)
	if err != nil {
		logger.Error("errsvc cannot start", "error", err)
		return 1
	}
	if err := srv.Serve(ctx); err != nil {
		logger.Error("errsvc stopped on error", "error", err)
		return 1
	}
	return 0
}

// nopCloser is stdout for a transport that closes its writer.
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
