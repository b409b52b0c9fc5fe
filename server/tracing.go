package server

import (
	"context"
	"log/slog"
	"net/http"
	"strings"

	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc"
	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc/filters"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	rpccode "google.golang.org/genproto/googleapis/rpc/code"
	"google.golang.org/grpc"
	grpccodes "google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/stats"
)

// Tracing: every gRPC call (otelgrpc's stats handler) and every REST call
// (otelhttp around the REST routes) gets one server span, a child of the
// caller's W3C traceparent when it sends one. The span carries what the
// call record learns (attribute keys below), and its trace id goes into
// the call's log line and, when sampled, into exemplars.
//
// Without Options.TracerProvider no span is recorded or exported, and the
// OpenTelemetry instrumentation is not installed at all; the caller's span
// context is still read, so logs (and exemplars) name the caller's trace.
// Probes (gRPC health) and the operational HTTP endpoints make no span. OpenTelemetry's own metrics
// of both instrumentations are off: errsvc's registry already counts every
// call (metrics.go).

// Span attribute keys. The gRPC status code is rpc.response.status_code
// (its canonical name, INVALID_ARGUMENT) on gRPC spans, set by otelgrpc;
// REST spans get it under the same key, beside http.response.status_code.
const (
	attrSource      = attribute.Key("errsvc.source")
	attrClass       = attribute.Key("errsvc.class")
	attrCode        = attribute.Key("errsvc.code")
	attrRPCCode     = attribute.Key("rpc.response.status_code")
	attrItems       = attribute.Key("errsvc.items")
	attrFailedItems = attribute.Key("errsvc.failed_items")
)

func (o Options) propagator() propagation.TextMapPropagator {
	if o.Propagator != nil {
		return o.Propagator
	}
	return propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
}

// grpcTracing is the stats handler that opens each gRPC call's span. It
// must come before grpcStats, whose TagRPC reads the span from the context.
// With tracing off it only reads the caller's trace context: otelgrpc with
// the no-op tracer would do the same at about 45 allocations (3 KB) more
// per call; this way an untraced call allocates exactly what it allocates
// without any instrumentation (BenchmarkTracing).
func grpcTracing(o Options) grpc.ServerOption {
	switch {
	case o.uninstrumented:
		return grpc.EmptyServerOption{}
	case o.TracerProvider == nil:
		return grpc.StatsHandler(propagateOnly{o.propagator()})
	}
	return grpc.StatsHandler(otelgrpc.NewServerHandler(
		otelgrpc.WithTracerProvider(o.TracerProvider),
		otelgrpc.WithPropagators(o.propagator()),
		otelgrpc.WithMeterProvider(metricnoop.NewMeterProvider()),
		otelgrpc.WithFilter(filters.Not(filters.HealthCheck())),
	))
}

// httpTracing wraps the REST routes; the span is named by the RPC, as
// otelgrpc names gRPC spans. With tracing off it only reads the caller's
// trace context, like grpcTracing.
func httpTracing(o Options, h http.Handler) http.Handler {
	switch {
	case o.uninstrumented:
		return h
	case o.TracerProvider == nil:
		prop := o.propagator()
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if len(r.Header["Traceparent"]) > 0 { // the canonical key: Get would allocate to canonicalise it
				r = r.WithContext(prop.Extract(r.Context(), propagation.HeaderCarrier(r.Header)))
			}
			h.ServeHTTP(w, r)
		})
	}
	return otelhttp.NewHandler(h, "rest",
		otelhttp.WithTracerProvider(o.TracerProvider),
		otelhttp.WithPropagators(o.propagator()),
		otelhttp.WithMeterProvider(metricnoop.NewMeterProvider()),
		otelhttp.WithSpanNameFormatter(func(_ string, r *http.Request) string {
			if rpc := restRPC(r); rpc != "unknown" {
				return rpc[1:] // errsvc.v1.TranslationService/Translate
			}
			if strings.HasPrefix(r.URL.Path, "/errsvc.v1.TranslationService/") {
				return r.URL.Path[1:] // Connect and gRPC-Web name the RPC in the path
			}
			return r.Method + " " + r.URL.Path
		}),
	)
}

// propagateOnly puts the caller's span context (W3C traceparent in the
// call's metadata) into the call's context and records nothing.
type propagateOnly struct{ prop propagation.TextMapPropagator }

func (p propagateOnly) TagRPC(ctx context.Context, _ *stats.RPCTagInfo) context.Context {
	// ValueFromIncomingContext copies nothing when the key is absent;
	// FromIncomingContext copies the whole metadata.
	if len(metadata.ValueFromIncomingContext(ctx, "traceparent")) == 0 {
		return ctx
	}
	md, _ := metadata.FromIncomingContext(ctx)
	return p.prop.Extract(ctx, mdCarrier(md))
}

func (propagateOnly) HandleRPC(context.Context, stats.RPCStats)                         {}
func (propagateOnly) TagConn(ctx context.Context, _ *stats.ConnTagInfo) context.Context { return ctx }
func (propagateOnly) HandleConn(context.Context, stats.ConnStats)                       {}

// mdCarrier reads gRPC metadata as a propagation.TextMapCarrier.
type mdCarrier metadata.MD

func (c mdCarrier) Get(key string) string {
	if v := metadata.MD(c).Get(key); len(v) > 0 {
		return v[0]
	}
	return ""
}

func (c mdCarrier) Set(key, value string) { metadata.MD(c).Set(key, value) }

func (c mdCarrier) Keys() []string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	return keys
}

// traceItem records one translation on the call's span: as attributes for
// a unary Translate, as an event per item of a batch or stream.
func traceItem(sp trace.Span, source, class string, code grpccodes.Code, item bool) {
	if sp == nil || !sp.IsRecording() {
		return
	}
	attrs := []attribute.KeyValue{attrSource.String(source), attrClass.String(class), attrCode.String(code.String())}
	if item {
		sp.AddEvent("translation", trace.WithAttributes(attrs...))
		return
	}
	sp.SetAttributes(attrs...)
}

// traceCall records the call's outcome on its span.
func traceCall(c *call) {
	sp := c.span
	if sp == nil || !sp.IsRecording() {
		return
	}
	sp.SetAttributes(attrCode.String(c.code.String()))
	if c.transport == transportHTTP {
		sp.SetAttributes(attrRPCCode.String(rpccode.Code_name[int32(c.code)]))
	}
	if c.items > 0 {
		sp.SetAttributes(attrItems.Int(c.items), attrFailedItems.Int(c.failedItems))
	}
	if c.code != grpccodes.OK && logLevel(c.code) == slog.LevelError {
		sp.SetStatus(codes.Error, c.code.String())
	}
}
