package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
)

// callerTrace is a W3C traceparent as a caller with its own tracing sends
// it: a trace id and the caller's span id, sampled.
type callerTrace struct {
	traceID trace.TraceID
	spanID  trace.SpanID
}

func newCallerTrace(i int) callerTrace {
	var ct callerTrace
	copy(ct.traceID[:], fmt.Sprintf("errsvc-trace-%03d", i))
	copy(ct.spanID[:], fmt.Sprintf("span%04d", i))
	return ct
}

func (ct callerTrace) header() string {
	return "00-" + ct.traceID.String() + "-" + ct.spanID.String() + "-01"
}

func (r *running) postTraced(t *testing.T, path, body, traceparent string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, r.base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if traceparent != "" {
		req.Header.Set("traceparent", traceparent)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp.StatusCode
}

// TestOneSpanPerCall: every call on every transport makes exactly one
// server span, a child of the caller's span, carrying the source, class
// and code of what it translated; the call's log line names the trace.
// The caller's trace context travels only in the W3C traceparent header,
// as any OpenTelemetry-instrumented client sends it.
func TestOneSpanPerCall(t *testing.T) {
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	r := start(t, Options{TracerProvider: tp})

	grpcCtx := func(ct callerTrace) context.Context {
		return metadata.AppendToOutgoingContext(context.Background(), "traceparent", ct.header())
	}
	type want struct {
		name       string
		caller     callerTrace
		attrs      map[string]string
		items      int // span events, one per batch item or stream message
		restStatus int
	}
	var wants []want
	add := func(w want) callerTrace {
		w.caller = newCallerTrace(len(wants))
		wants = append(wants, w)
		return w.caller
	}

	// gRPC: unary, a malformed unary, batch, stream.
	ct := add(want{name: "errsvc.v1.TranslationService/Translate", attrs: map[string]string{
		"errsvc.source": "labby_error", "errsvc.class": "transient", "errsvc.code": "OK", "rpc.response.status_code": "OK"}})
	if _, err := r.client.Translate(grpcCtx(ct), validRequest()); err != nil {
		t.Fatal(err)
	}
	ct = add(want{name: "errsvc.v1.TranslationService/Translate", attrs: map[string]string{
		"errsvc.source": "none", "errsvc.code": "InvalidArgument", "rpc.response.status_code": "INVALID_ARGUMENT"}})
	_, _ = r.client.Translate(grpcCtx(ct), &errsvcv1.TranslateRequest{})
	ct = add(want{name: "errsvc.v1.TranslationService/TranslateBatch", items: 2, attrs: map[string]string{
		"errsvc.items": "2", "errsvc.failed_items": "1", "errsvc.code": "OK"}})
	if _, err := r.client.TranslateBatch(grpcCtx(ct), &errsvcv1.TranslateBatchRequest{
		Requests: []*errsvcv1.TranslateRequest{validRequest(), {}}}); err != nil {
		t.Fatal(err)
	}
	ct = add(want{name: "errsvc.v1.TranslationService/TranslateStream", items: 3, attrs: map[string]string{"errsvc.items": "3"}})
	stream, err := r.client.TranslateStream(grpcCtx(ct))
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := stream.Send(validRequest()); err != nil {
			t.Fatal(err)
		}
		if _, err := stream.Recv(); err != nil {
			t.Fatal(err)
		}
	}
	_ = stream.CloseSend()
	if _, err := stream.Recv(); err != io.EOF {
		t.Fatalf("stream end: %v", err)
	}

	// REST: unary, a malformed one, batch.
	ct = add(want{name: "errsvc.v1.TranslationService/Translate", restStatus: 200, attrs: map[string]string{
		"errsvc.source": "agent_error", "errsvc.code": "OK", "rpc.response.status_code": "OK", "http.response.status_code": "200"}})
	r.postTraced(t, "/v1/translate", `{"agent_error":{"code":"TIMEOUT"}}`, ct.header())
	ct = add(want{name: "errsvc.v1.TranslationService/Translate", restStatus: 400, attrs: map[string]string{
		"errsvc.code": "InvalidArgument", "rpc.response.status_code": "INVALID_ARGUMENT", "http.response.status_code": "400"}})
	r.postTraced(t, "/v1/translate", `{"no_such_source":{}}`, ct.header())
	ct = add(want{name: "errsvc.v1.TranslationService/TranslateBatch", items: 2, restStatus: 200, attrs: map[string]string{
		"errsvc.items": "2", "errsvc.code": "OK"}})
	r.postTraced(t, "/v1/translate:batch", `{"requests":[{"agent_error":{"code":"TIMEOUT"}},{"labby_error":{"kind":"rate_limited","message":"m"}}]}`, ct.header())

	// Connect (JSON, unary): the same span as the other transports.
	ct = add(want{name: "errsvc.v1.TranslationService/Translate", restStatus: 200, attrs: map[string]string{
		"errsvc.source": "agent_error", "errsvc.code": "OK"}})
	if code := r.postTraced(t, "/errsvc.v1.TranslationService/Translate", `{"agent_error":{"code":"TIMEOUT"}}`, ct.header()); code != 200 {
		t.Fatalf("Connect call: HTTP %d", code)
	}

	// Probes and scrapes make no span.
	if _, err := healthpb.NewHealthClient(r.conn).Check(context.Background(), &healthpb.HealthCheckRequest{}); err != nil {
		t.Fatal(err)
	}
	r.get(t, "/metrics")
	r.get(t, "/readyz")

	// The gRPC span ends on the transport's last event, which may follow
	// the client's answer by a moment.
	deadline := time.Now().Add(5 * time.Second)
	for len(sr.Ended()) < len(wants) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond) // and no extra span after them
	spans := sr.Ended()
	if len(spans) != len(wants) {
		for _, s := range spans {
			t.Logf("span %q trace %s", s.Name(), s.SpanContext().TraceID())
		}
		t.Fatalf("%d spans for %d calls", len(spans), len(wants))
	}

	byTrace := map[trace.TraceID][]sdktrace.ReadOnlySpan{}
	for _, s := range spans {
		byTrace[s.SpanContext().TraceID()] = append(byTrace[s.SpanContext().TraceID()], s)
	}
	logs := jsonLogLines(t, r.logs.String())
	for i, w := range wants {
		got := byTrace[w.caller.traceID]
		if len(got) != 1 {
			t.Errorf("call %d (%s): %d spans in the caller's trace, want 1", i, w.name, len(got))
			continue
		}
		s := got[0]
		if s.Parent().SpanID() != w.caller.spanID || !s.Parent().IsRemote() {
			t.Errorf("call %d (%s): parent %v, want the caller's span %s", i, w.name, s.Parent().SpanID(), w.caller.spanID)
		}
		if s.SpanKind() != trace.SpanKindServer || s.Name() != w.name {
			t.Errorf("call %d: span %q kind %v, want server span %q", i, s.Name(), s.SpanKind(), w.name)
		}
		attrs := map[string]string{}
		for _, kv := range s.Attributes() {
			attrs[string(kv.Key)] = kv.Value.Emit()
		}
		for k, v := range w.attrs {
			if attrs[k] != v {
				t.Errorf("call %d (%s): attribute %s = %q, want %q (all: %v)", i, w.name, k, attrs[k], v, attrs)
			}
		}
		if n := len(s.Events()); n != w.items {
			t.Errorf("call %d (%s): %d events, want one per item (%d)", i, w.name, n, w.items)
		}
		for _, e := range s.Events() {
			ea := map[string]string{}
			for _, kv := range e.Attributes {
				ea[string(kv.Key)] = kv.Value.Emit()
			}
			if e.Name != "translation" || ea["errsvc.source"] == "" || ea["errsvc.class"] == "" || ea["errsvc.code"] == "" {
				t.Errorf("call %d: event %q %v", i, e.Name, ea)
			}
		}
		found := 0
		for _, l := range logs {
			if l["trace_id"] == w.caller.traceID.String() {
				found++
				if l["span_id"] != s.SpanContext().SpanID().String() {
					t.Errorf("call %d: log span_id %v, span %s", i, l["span_id"], s.SpanContext().SpanID())
				}
			}
		}
		if found != 1 {
			t.Errorf("call %d (%s): %d log lines with its trace id, want 1", i, w.name, found)
		}
	}
}

// TestTraceContextWithoutTracing: with no tracer provider (the default)
// nothing is recorded, but the caller's trace id still reaches the log.
func TestTraceContextWithoutTracing(t *testing.T) {
	r := start(t, Options{})
	ct, rest := newCallerTrace(1), newCallerTrace(2)
	ctx := metadata.AppendToOutgoingContext(context.Background(), "traceparent", ct.header())
	if _, err := r.client.Translate(ctx, validRequest()); err != nil {
		t.Fatal(err)
	}
	r.postTraced(t, "/v1/translate", `{"agent_error":{"code":"TIMEOUT"}}`, rest.header())
	r.postTraced(t, "/v1/translate", `{"agent_error":{"code":"TIMEOUT"}}`, "")
	logs := jsonLogLines(t, r.logs.String())
	seen := map[string]int{}
	calls := 0
	for _, l := range logs {
		if l["msg"] != "call" {
			continue
		}
		calls++
		if id, ok := l["trace_id"].(string); ok {
			seen[id]++
		}
	}
	if calls != 3 || seen[ct.traceID.String()] != 1 || seen[rest.traceID.String()] != 1 || len(seen) != 2 {
		t.Errorf("%d call lines, trace ids %v; want 3 lines, one each for %s (gRPC) and %s (REST), none for the untraced call",
			calls, seen, ct.traceID, rest.traceID)
	}
}

func jsonLogLines(t *testing.T, logs string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(logs), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Errorf("log line is not JSON: %q", line)
			continue
		}
		out = append(out, m)
	}
	return out
}
