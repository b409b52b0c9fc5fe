package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// runHealthcheck asks errsvc's grpc.health.v1 service whether it serves and
// exits 0 when it does, 1 when it does not or cannot be reached, 2 on a
// usage error: the exit codes Docker's HEALTHCHECK reads. It needs no shell
// and no extra binary in the image. The address defaults to the one the
// server listens on (ERRSVC_GRPC_ADDR), with a wildcard host (0.0.0.0, ::
// or none) asked on loopback.
func runHealthcheck(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	addr := getenv("ERRSVC_GRPC_ADDR")
	if addr == "" {
		addr = "127.0.0.1:9090"
	}
	fs := flag.NewFlagSet("errsvc healthcheck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&addr, "addr", addr, "gRPC `address` of errsvc (env ERRSVC_GRPC_ADDR)")
	service := fs.String("service", "", "health `service` to ask for: empty for the server, errsvc.v1.TranslationService for readiness")
	timeout := fs.Duration("timeout", 3*time.Second, "give up after this long")
	caFile := fs.String("tls-ca", "", "PEM CA bundle `file`: speak TLS and verify the server against it (plaintext without it)")
	serverName := fs.String("tls-server-name", "", "`name` to verify the server certificate against (default: the address's host)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: errsvc healthcheck [flags]\n\nExit status: 0 SERVING, 1 anything else, 2 usage error.\n\nflags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return 2
	}
	target, err := dialTarget(addr)
	if err != nil {
		fmt.Fprintf(stderr, "errsvc healthcheck: %v\n", err)
		return 2
	}
	creds := insecure.NewCredentials()
	if *caFile != "" {
		pem, err := os.ReadFile(*caFile)
		if err != nil {
			fmt.Fprintf(stderr, "errsvc healthcheck: %v\n", err)
			return 2
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			fmt.Fprintf(stderr, "errsvc healthcheck: no certificate in %s\n", *caFile)
			return 2
		}
		creds = credentials.NewTLS(&tls.Config{RootCAs: pool, ServerName: *serverName, MinVersion: tls.VersionTLS12})
	}

	conn, err := grpc.NewClient(target, grpc.WithTransportCredentials(creds))
	if err != nil {
		fmt.Fprintf(stderr, "errsvc healthcheck: %v\n", err)
		return 1
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	resp, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{Service: *service})
	if err != nil {
		fmt.Fprintf(stderr, "errsvc healthcheck: %s: %v\n", target, err)
		return 1
	}
	fmt.Fprintln(stdout, resp.GetStatus())
	if resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		return 1
	}
	return 0
}

// dialTarget turns a listen address into one to dial: a wildcard host
// becomes loopback.
func dialTarget(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("--addr %q: %w", addr, err)
	}
	switch host {
	case "", "0.0.0.0":
		host = "127.0.0.1"
	case "::":
		host = "::1"
	}
	return net.JoinHostPort(host, port), nil
}
