package server

import (
	"log/slog"
	"net/http"

	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc"
	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc/filters"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
	rpccode "google.golang.org/genproto/googleapis/rpc/code"
	"google.golang.org/grpc"
	grpccodes "google.golang.org/grpc/codes"
)

// Tracing: every gRPC call (otelgrpc's stats handler) and every REST call
// (otelhttp around the REST routes) gets one server span, a child of the
// caller's W3C traceparent when it sends one. The span carries what the
// call record learns (attribute keys below), and its trace id goes into
// the call's log line and, when sampled, into exemplars.
//
// Without Options.TracerProvider the tracer is OpenTelemetry's no-op: no
// span is recorded or exported, but the caller's span context still
// propagates, so logs name the caller's trace. Probes (gRPC health) and
// the operational HTTP endpoints make no span. OpenTelemetry's own metrics
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

func (o Options) tracerProvider() trace.TracerProvider {
	if o.TracerProvider != nil {
		return o.TracerProvider
	}
	return noop.NewTracerProvider()
}

func (o Options) propagator() propagation.TextMapPropagator {
	if o.Propagator != nil {
		return o.Propagator
	}
	return propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
}

// grpcTracing is the stats handler that opens each gRPC call's span. It
// must come before grpcStats, whose TagRPC reads the span from the context.
func grpcTracing(o Options) grpc.ServerOption {
	return grpc.StatsHandler(otelgrpc.NewServerHandler(
		otelgrpc.WithTracerProvider(o.tracerProvider()),
		otelgrpc.WithPropagators(o.propagator()),
		otelgrpc.WithMeterProvider(metricnoop.NewMeterProvider()),
		otelgrpc.WithFilter(filters.Not(filters.HealthCheck())),
	))
}

// httpTracing wraps the REST routes; the span is named by the RPC.
func httpTracing(o Options, h http.Handler) http.Handler {
	return otelhttp.NewHandler(h, "rest",
		otelhttp.WithTracerProvider(o.tracerProvider()),
		otelhttp.WithPropagators(o.propagator()),
		otelhttp.WithMeterProvider(metricnoop.NewMeterProvider()),
		otelhttp.WithSpanNameFormatter(func(_ string, r *http.Request) string {
			if rpc := restRPC(r); rpc != "unknown" {
				return rpc[1:] // errsvc.v1.TranslationService/Translate, as otelgrpc names it
			}
			return r.Method + " " + r.URL.Path
		}),
	)
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
