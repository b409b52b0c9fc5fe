package telemetry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"testing"

	"go.opentelemetry.io/otel"

	"github.com/errsvc/errsvc/internal/version"
)

func TestEnabled(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want bool
	}{
		{nil, false},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, true},
		{map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:4318/v1/traces"}, true},
		{map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, true},
		{map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, false},
	} {
		if got := Enabled(func(k string) string { return tc.env[k] }); got != tc.want {
			t.Errorf("%v: enabled %v, want %v", tc.env, got, tc.want)
		}
	}
}

// Off by default: no provider, nothing to flush. On: an SDK provider
// (the exporter connects lazily, so no collector is needed here).
func TestTracerProvider(t *testing.T) {
	tp, shutdown, err := TracerProvider(context.Background(), func(string) string { return "" }, version.Get())
	if err != nil || tp != nil || shutdown(context.Background()) != nil {
		t.Errorf("off: %v %v", tp, err)
	}
	for _, protocol := range []string{"http/protobuf", "grpc"} {
		env := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_EXPORTER_OTLP_PROTOCOL": protocol}
		tp, shutdown, err := TracerProvider(context.Background(), func(k string) string { return env[k] }, version.Get())
		if err != nil || tp == nil {
			t.Fatalf("%s: %v", protocol, err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel() // nothing to flush; do not wait on the absent collector
		_ = shutdown(ctx)
	}
	env := map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}
	if _, _, err := TracerProvider(context.Background(), func(k string) string { return env[k] }, version.Get()); err == nil {
		t.Error("an unsupported protocol was accepted")
	}
}

// An export error reaches the JSON log, not stderr as plain text.
func TestRouteLogs(t *testing.T) {
	var buf bytes.Buffer
	RouteLogs(slog.New(slog.NewJSONHandler(&buf, nil)))
	otel.Handle(errors.New("traces export: connection refused"))
	var m map[string]any
	if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
		t.Fatalf("not one JSON line: %q", buf.String())
	}
	if m["level"] != "WARN" || m["error"] != "traces export: connection refused" || m["logger"] != "opentelemetry" {
		t.Errorf("%v", m)
	}
}
