package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"

	"github.com/errsvc/errsvc/server"
)

// runMCP serves errsvc as an MCP server over stdio: newline-delimited
// JSON-RPC on stdin and stdout, logs as JSON lines on stderr. The tools
// (translate, decide, explain) and the vocabularies as resources are the
// ones /mcp serves on the HTTP port (server/mcp.go); the translation runs in
// process, so no errsvc server is needed.
func runMCP(ctx context.Context, args []string, getenv func(string) string, stdin io.ReadCloser, stdout io.WriteCloser, stderr io.Writer) int {
	fs := flag.NewFlagSet("errsvc mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: errsvc mcp [flags]\n\n"+
			"Serves errsvc as an MCP server over stdio (newline-delimited JSON-RPC on stdin and stdout):\n"+
			"the tools translate, decide and explain, and each vocabulary as a resource.\n"+
			"The HTTP port of `errsvc` serves the same at /mcp (streamable HTTP).\n\nflags:")
		fs.PrintDefaults()
	}
	maxBytes := fs.Int64("max-request-bytes", server.DefaultMaxRequestBytes,
		"largest tool arguments accepted, in `bytes`; a longer JSON-RPC line ends the session (env "+envKey("max-request-bytes")+")")
	policyPath := fs.String("policy", "", "operator policy `file or folder` the tools translate under (docs/POLICY.md; env "+envKey("policy")+")")
	logLevel := slog.LevelWarn
	fs.TextVar(&logLevel, "log-level", slog.LevelWarn, "least `level` logged on stderr (env "+envKey("log-level")+")")
	var envErr error
	fs.VisitAll(func(f *flag.Flag) {
		if v := getenv(envKey(f.Name)); v != "" && envErr == nil {
			if err := fs.Set(f.Name, v); err != nil {
				envErr = fmt.Errorf("%s=%q: %w", envKey(f.Name), v, err)
			}
		}
	})
	if envErr != nil {
		fmt.Fprintf(stderr, "errsvc mcp: %v\n", envErr)
		return exitMalformed
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return exitMalformed
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "errsvc mcp: unexpected argument %q\n", fs.Arg(0))
		fs.Usage()
		return exitMalformed
	}
	opts := server.Options{
		MaxRequestBytes: *maxBytes,
		Logger:          slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: logLevel})),
	}
	holder, err := loadPolicyHolder(*policyPath)
	if err != nil {
		fmt.Fprintf(stderr, "errsvc mcp: %v\n", err)
		return exitFailure
	}
	opts.Policy = holder
	if err := server.ServeMCP(ctx, opts, stdin, stdout); err != nil {
		opts.Logger.Error("errsvc mcp stopped on error", "error", err)
		return exitFailure
	}
	return 0
}
