package server

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"google.golang.org/grpc/metadata"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// BenchmarkTracing compares one Translate with OpenTelemetry left out
// entirely (none), with the default (off: the no-op tracer, propagation
// only), and with spans recorded (on, every call sampled, to an in-memory
// exporter), over REST in process (no network, so the difference is not
// drowned in loopback noise) and over gRPC on loopback. Each call carries
// a caller's traceparent (traced, as a traced client sends it) or none
// (untraced: the cost of tracing when nobody traces). A traced caller
// costs some allocations even with tracing off: its context is read and
// its trace id becomes the exemplar of the call's metrics.
//
//	go test ./server -run '^$' -bench BenchmarkTracing -count 6 | benchstat -col /tracing -
func BenchmarkTracing(b *testing.B) {
	quiet := slog.New(slog.NewJSONHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelInfo}))
	modes := []struct {
		name string
		opts func() Options
	}{
		// The answer cache off: each call is translated, as before it existed.
		{"none", func() Options { return Options{uninstrumented: true, Logger: quiet, AnswerCacheEntries: -1} }},
		{"off", func() Options { return Options{Logger: quiet, AnswerCacheEntries: -1} }},
		{"on", func() Options {
			tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(tracetest.NewSpanRecorder()))
			return Options{TracerProvider: tp, Logger: quiet, AnswerCacheEntries: -1}
		}},
	}
	for _, caller := range []struct{ name, traceparent string }{{"untraced", ""}, {"traced", newCallerTrace(1).header()}} {
		traceparent := caller.traceparent
		for _, m := range modes {
			benchTracing(b, "caller="+caller.name+"/tracing="+m.name, m.opts, traceparent)
		}
	}
}

func benchTracing(b *testing.B, name string, opts func() Options, traceparent string) {
	{
		m := struct{ opts func() Options }{opts}
		b.Run("transport=rest/"+name, func(b *testing.B) {
			h, err := NewHTTPHandler(context.Background(), m.opts())
			if err != nil {
				b.Fatal(err)
			}
			const body = `{"labby_error":{"kind":"rate_limited","message":"slow down"}}`
			b.ReportAllocs()
			for b.Loop() {
				req := httptest.NewRequest(http.MethodPost, "/v1/translate", strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				if traceparent != "" {
					req.Header.Set("traceparent", traceparent)
				}
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
				if w.Code != http.StatusOK {
					b.Fatalf("HTTP %d", w.Code)
				}
			}
		})
	}
	{
		m := struct{ opts func() Options }{opts}
		b.Run("transport=grpc/"+name, func(b *testing.B) {
			opts := m.opts()
			_, conn, stop := serveBench(b, opts)
			defer stop()
			client := errsvcv1.NewTranslationServiceClient(conn)
			callCtx := context.Background()
			if traceparent != "" {
				callCtx = metadata.AppendToOutgoingContext(callCtx, "traceparent", traceparent)
			}
			req := validRequest()
			if _, err := client.Translate(callCtx, req); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := client.Translate(callCtx, req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
