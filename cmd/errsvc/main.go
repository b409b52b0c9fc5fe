// Command errsvc serves the error translation service over gRPC and REST,
// or, as `errsvc translate [FILE]`, translates one request locally.
package main

import (
	"context"
	"errors"
	"flag"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/errsvc/errsvc/server"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "translate" {
		os.Exit(runTranslate(os.Args[2:], os.Stdin, os.Stdout, os.Stderr))
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
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(server.DefaultGCPercent)
	}

	// SIGINT/SIGTERM cancel ctx, which makes Serve drain and return.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
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
