// Command errsvc serves the error translation service over gRPC and REST,
// or, as `errsvc translate [FILE]`, translates one request locally.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
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
	logger := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	opts, err := parseServeFlags(args, os.Getenv, os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		return 2
	}
	opts.Logger = logger

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

// parseServeFlags resolves each setting as flag, else environment, else
// default: the environment only moves the flag's default.
func parseServeFlags(args []string, getenv func(string) string, errOut io.Writer) (server.Options, error) {
	envOr := func(key, def string) string {
		if v := getenv(key); v != "" {
			return v
		}
		return def
	}
	var opts server.Options
	fs := flag.NewFlagSet("errsvc", flag.ContinueOnError)
	fs.SetOutput(errOut)
	fs.Usage = func() {
		fmt.Fprintln(errOut, "usage: errsvc [flags]\n       errsvc translate [FILE|-]")
		fs.PrintDefaults()
	}
	fs.StringVar(&opts.GRPCAddr, "grpc-addr", envOr("ERRSVC_GRPC_ADDR", server.DefaultGRPCAddr), "gRPC listen `address` (env ERRSVC_GRPC_ADDR)")
	fs.StringVar(&opts.HTTPAddr, "http-addr", envOr("ERRSVC_HTTP_ADDR", server.DefaultHTTPAddr), "HTTP listen `address` (env ERRSVC_HTTP_ADDR)")
	fs.Int64Var(&opts.MaxRequestBytes, "max-request-bytes", server.DefaultMaxRequestBytes, "largest REST body or gRPC message accepted")
	fs.IntVar(&opts.MaxBatchItems, "max-batch-items", server.DefaultMaxBatchItems, "most requests in one TranslateBatch")
	if err := fs.Parse(args); err != nil {
		return opts, err
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(errOut, "errsvc: unexpected argument %q\n", fs.Arg(0))
		fs.Usage()
		return opts, errors.New("unexpected arguments")
	}
	return opts, nil
}
