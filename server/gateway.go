package server

import (
	"context"
	"fmt"
	"net/http"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
)

// NewHTTPHandler returns the HTTP surface: the REST mapping of
// TranslationService under /v1/, plus /healthz, /readyz (opts.Health),
// /metrics (opts.Metrics), /openapi.json and /mcp (MCP's streamable HTTP).
//
// REST calls the service in process (RegisterTranslationServiceHandlerServer)
// instead of dialling the gRPC port: no second hop, no loopback connection to
// keep alive or secure, and the HTTP port works even where the gRPC port is
// not reachable. The price is that gRPC interceptors do not run for REST, so
// the REST path recovers panics in recoveringService and is limited,
// measured and logged by restHandler; both share their code with the gRPC
// side. /healthz, /readyz, /metrics and /openapi.json bypass restHandler, so
// no limit ever refuses a probe or a scrape.
func NewHTTPHandler(ctx context.Context, opts Options) (http.Handler, error) {
	opts = opts.withDefaults()
	gw := runtime.NewServeMux(
		runtime.WithMarshalerOption(runtime.MIMEWildcard, newRESTJSON(opts.MaxBatchItems)),
		runtime.WithErrorHandler(restErrorHandler(opts.MaxRequestBytes, opts.ReceiveTimeout)),
		runtime.WithRoutingErrorHandler(restRoutingError),
		runtime.WithForwardResponseOption(recordRPC),
		runtime.WithForwardResponseRewriter(encodeIntoAnswer),
		runtime.WithMiddlewares(nameRPC),
		// The service reads no incoming metadata (REST tracing reads the
		// HTTP headers themselves), so no header is copied into it: that
		// copy was a fifth of a REST call's allocations.
		runtime.WithIncomingHeaderMatcher(func(string) (string, bool) { return "", false }),
	)
	svc := recoveringService{Service: NewService(opts), logger: opts.Logger}
	cache := newAnswerCache(opts, transportHTTP)
	if err := errsvcv1.RegisterTranslationServiceHandlerServer(ctx, gw, svc); err != nil {
		return nil, fmt.Errorf("register REST handlers: %w", err)
	}
	if opts.RegisterGateway != nil {
		if err := opts.RegisterGateway(gw); err != nil {
			return nil, fmt.Errorf("register extra REST handlers: %w", err)
		}
	}

	mux := http.NewServeMux()
	mux.Handle("/", httpTracing(opts, gzipREST(restOptions(&restHandler{
		gateway: gw, maxBytes: opts.MaxRequestBytes, receiveTimeout: opts.ReceiveTimeout, writeTimeout: opts.WriteTimeout,
		metrics: opts.Metrics, limiter: opts.limiter, logger: opts.Logger,
		bodies: newBodyBudget(opts, "REST bodies"),
		cache:  cache, svc: svc.Service,
	}))))
	// Connect and gRPC-Web (server/connect.go), the OpenAPI documents and
	// the playground (server/playground.go).
	connectPath, connectHandler := newConnectHandler(opts)
	mux.Handle(connectPath, httpTracing(opts, connectHandler))
	registerDocs(mux)
	// MCP's streamable HTTP (server/mcp.go): the translate, explain and
	// decide tools and the vocabularies as resources.
	mux.Handle(MCPPath, httpTracing(opts, NewMCPHandler(opts)))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		writeText(w, http.StatusOK, "ok")
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		if opts.Health.Ready() {
			// A refused policy reload leaves the process serving the
			// policy before it: still ready, and the probe says why.
			if e := opts.Policy.LastError(); e != "" {
				writeText(w, http.StatusOK, "ready; the last operator policy reload was refused (the policy before it stays): "+e)
				return
			}
			writeText(w, http.StatusOK, "ready")
			return
		}
		writeText(w, http.StatusServiceUnavailable, "shutting down")
	})
	mux.Handle("GET /metrics", opts.Metrics.Handler())
	return closeWhileDraining(withCORS(mux, opts.CORSOrigins), opts.Health), nil
}

// closeWhileDraining makes every answer given while the server drains carry
// "Connection: close": the client finishes this call and opens a new
// connection (to a ready replica) for the next, rather than sending it on a
// keep-alive connection the drain is about to close, which a client cannot
// tell from a lost POST.
func closeWhileDraining(next http.Handler, health *Health) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !health.Ready() {
			w.Header().Set("Connection", "close")
		}
		next.ServeHTTP(w, r)
	})
}

func writeText(w http.ResponseWriter, code int, body string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(code)
	_, _ = fmt.Fprintln(w, body)
}
