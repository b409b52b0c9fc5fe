package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"google.golang.org/grpc"
)

// Server runs the gRPC server and the HTTP handler on their own listeners
// and shuts both down together.
type Server struct {
	opts    Options
	grpc    *grpc.Server
	http    *http.Server
	grpcLis net.Listener
	httpLis net.Listener
	// The HTTP port's drain (drain.go): its listener and its front.
	httpDrain *drainListener
	httpGate  *drainGate
}

// New binds both addresses right away, so a port of 0 is resolved (see
// GRPCAddr, HTTPAddr) before Serve and a taken port fails here. Call Serve
// once to use the listeners and release them.
func New(opts Options) (*Server, error) {
	opts = opts.withDefaults()
	handler, err := NewHTTPHandler(context.Background(), opts)
	if err != nil {
		return nil, err
	}
	var lc net.ListenConfig
	grpcLis, err := lc.Listen(context.Background(), "tcp", opts.GRPCAddr)
	if err != nil {
		return nil, fmt.Errorf("listen gRPC on %s: %w", opts.GRPCAddr, err)
	}
	httpLis, err := lc.Listen(context.Background(), "tcp", opts.HTTPAddr)
	if err != nil {
		_ = grpcLis.Close()
		return nil, fmt.Errorf("listen HTTP on %s: %w", opts.HTTPAddr, err)
	}
	drainLis := &drainListener{Listener: httpLis}
	gate := &drainGate{next: handler}
	return &Server{
		opts: opts,
		grpc: NewGRPCServer(opts),
		http: &http.Server{
			Handler: gate,
			// Without them a client can hold a connection open by trickling
			// headers or a body, or by idling forever. REST calls set
			// tighter deadlines of their own (restHandler); these bound
			// every other path (probes, /metrics) as a backstop.
			ReadHeaderTimeout: defaultHTTPReadHeaderTimeout,
			ReadTimeout:       defaultHTTPReadHeaderTimeout + opts.ReceiveTimeout,
			WriteTimeout:      defaultHTTPReadHeaderTimeout + opts.ReceiveTimeout + opts.WriteTimeout + time.Minute,
			IdleTimeout:       defaultHTTPIdleTimeout,
			MaxHeaderBytes:    opts.MaxHeaderBytes,
			TLSConfig:         opts.TLS,
			ErrorLog:          slogErrorLog(opts.Logger),
			ConnState:         gate.idle.track,
		},
		grpcLis:   grpcLis,
		httpLis:   drainLis,
		httpDrain: drainLis,
		httpGate:  gate,
	}, nil
}

// GRPCAddr is the bound gRPC address, e.g. "127.0.0.1:40123".
func (s *Server) GRPCAddr() string { return s.grpcLis.Addr().String() }

// HTTPAddr is the bound HTTP address.
func (s *Server) HTTPAddr() string { return s.httpLis.Addr().String() }

// Health is the serving state shared by gRPC health and /readyz.
func (s *Server) Health() *Health { return s.opts.Health }

// Serve serves until ctx is cancelled or a server fails, then shuts down
// gracefully: it first reports not ready (so probes steer traffic away),
// keeps serving for Options.DrainDelay, then stops accepting (new
// connections are refused, new gRPC calls on open connections answered
// UNAVAILABLE, which clients retry elsewhere) and lets in-flight calls
// finish for at most Options.ShutdownTimeout before cutting the rest off.
// It returns nil after a shutdown asked for through ctx.
func (s *Server) Serve(ctx context.Context) error {
	errc := make(chan error, 2)
	go func() { errc <- s.grpc.Serve(s.grpcLis) }()
	go func() {
		var err error
		if s.opts.TLS != nil {
			// The certificates come from TLSConfig.
			err = s.http.ServeTLS(s.httpLis, "", "")
		} else {
			err = s.http.Serve(s.httpLis)
		}
		if !errors.Is(err, http.ErrServerClosed) {
			errc <- err
			return
		}
		errc <- nil
	}()
	s.opts.Logger.InfoContext(ctx, "errsvc listening", "grpc_addr", s.GRPCAddr(), "http_addr", s.HTTPAddr(),
		"tls", s.opts.TLS != nil, "plaintext_intended", s.opts.TLS == nil && s.opts.AllowPlaintext, "mtls", s.opts.TLS != nil && s.opts.TLS.ClientAuth == tls.RequireAndVerifyClientCert)
	if s.opts.TLS == nil && !s.opts.AllowPlaintext && (!isLoopback(s.grpcLis.Addr()) || !isLoopback(s.httpLis.Addr())) {
		s.opts.Logger.WarnContext(ctx, "serving plaintext on a non-loopback address; set --tls-cert and --tls-key "+
			"unless a service mesh or private network encrypts the traffic (then say so with --allow-plaintext)")
	}

	var serveErr error
	select {
	case <-ctx.Done():
	case serveErr = <-errc:
		// One server stopped on its own; take the other down with it.
		if serveErr != nil {
			s.opts.Logger.ErrorContext(ctx, "server failed", "error", serveErr)
		} else {
			s.opts.Logger.WarnContext(ctx, "a server stopped on its own")
		}
	}
	s.shutdown()
	return serveErr
}

func (s *Server) shutdown() {
	s.opts.Logger.Info("errsvc shutting down", "drain_delay", s.opts.DrainDelay.String(),
		"timeout", s.opts.ShutdownTimeout.String())
	s.opts.Health.SetNotServing()
	if s.opts.DrainDelay > 0 {
		time.Sleep(s.opts.DrainDelay)
	}

	ctx, cancel := context.WithTimeout(context.Background(), s.opts.ShutdownTimeout)
	defer cancel()
	s.drainHTTP(ctx) // see drain.go: Shutdown then has nothing to cut off

	grpcDone := make(chan struct{})
	go func() {
		s.grpc.GracefulStop()
		close(grpcDone)
	}()
	if err := s.http.Shutdown(ctx); err != nil {
		s.opts.Logger.Warn("HTTP drain cut short", "error", err)
		_ = s.http.Close()
	}
	select {
	case <-grpcDone:
	case <-ctx.Done():
		s.opts.Logger.Warn("gRPC drain cut short")
		s.grpc.Stop()
		<-grpcDone
	}
	s.opts.Logger.Info("errsvc stopped")
}

// kill stops both servers at once, as a crash would: connections are cut
// and in-flight calls fail. Tests use it to take a replica down abruptly.
func (s *Server) kill() {
	s.grpc.Stop()
	_ = s.http.Close()
}
