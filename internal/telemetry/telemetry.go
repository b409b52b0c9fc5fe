// Package telemetry builds the OpenTelemetry tracer provider errsvc exports
// spans through, from the standard OpenTelemetry environment variables.
//
// Tracing is off unless an OTLP endpoint is configured
// (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT), or
// OTEL_TRACES_EXPORTER=otlp asks for the exporter's default endpoint;
// OTEL_TRACES_EXPORTER=none turns it off whatever else is set. Off, the
// server keeps propagating W3C trace context and logging the caller's trace
// id, with OpenTelemetry's no-op tracer.
//
// The exporter, sampler and resource read the rest of the standard variables
// themselves: OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL (http/protobuf, the
// default, or grpc), _HEADERS, _TIMEOUT, _INSECURE, _CERTIFICATE,
// OTEL_TRACES_SAMPLER(_ARG) (default parentbased_always_on),
// OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES.
package telemetry

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/go-logr/logr"
	"go.opentelemetry.io/otel"

	"github.com/errsvc/errsvc/internal/version"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
)

// Enabled reports whether the environment asks for span export.
func Enabled(getenv func(string) string) bool {
	switch strings.ToLower(strings.TrimSpace(getenv("OTEL_TRACES_EXPORTER"))) {
	case "none":
		return false
	case "otlp":
		return true
	}
	return getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != ""
}

// TracerProvider returns nil and a no-op shutdown when tracing is off, else
// an SDK provider that batches spans to the OTLP exporter. Call shutdown
// after the server stopped, to flush what is still batched.
func TracerProvider(ctx context.Context, getenv func(string) string, build version.Info) (*sdktrace.TracerProvider, func(context.Context) error, error) {
	if !Enabled(getenv) {
		return nil, func(context.Context) error { return nil }, nil
	}
	if v := strings.ToLower(getenv("OTEL_TRACES_EXPORTER")); v != "" && v != "otlp" {
		return nil, nil, fmt.Errorf("OTEL_TRACES_EXPORTER=%q: errsvc exports by otlp or none", v)
	}
	protocol := getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
	if protocol == "" {
		protocol = getenv("OTEL_EXPORTER_OTLP_PROTOCOL")
	}
	var (
		exp *otlptrace.Exporter
		err error
	)
	switch protocol {
	case "", "http/protobuf":
		exp, err = otlptracehttp.New(ctx)
	case "grpc":
		exp, err = otlptracegrpc.New(ctx)
	default:
		return nil, nil, fmt.Errorf("OTLP protocol %q: errsvc speaks http/protobuf or grpc", protocol)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("OTLP exporter: %w", err)
	}
	// Environment attributes (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES)
	// override errsvc's own.
	res, err := resource.Merge(
		resource.NewSchemaless(semconv.ServiceName("errsvc"), semconv.ServiceVersion(build.Version)),
		resource.Environment(),
	)
	if err != nil {
		return nil, nil, fmt.Errorf("trace resource: %w", err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	return tp, tp.Shutdown, nil
}

// RouteLogs sends OpenTelemetry's own complaints (an export that failed, a
// bad variable) into logger instead of the standard library's logger on
// stderr, so every line errsvc writes stays JSON.
func RouteLogs(logger *slog.Logger) {
	l := logger.With("logger", "opentelemetry")
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		l.Warn("opentelemetry error", "error", err.Error())
	}))
	otel.SetLogger(logr.FromSlogHandler(l.Handler()))
}
