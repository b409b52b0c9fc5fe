package server

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/translate"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
)

// quota returns the QuotaFailure subject and the RetryInfo delay of st,
// failing the test when st carries no QuotaFailure.
func quota(t *testing.T, st *spb.Status) (string, time.Duration) {
	t.Helper()
	var subject string
	var delay time.Duration
	for _, d := range status.FromProto(st).Details() {
		switch d := d.(type) {
		case *errdetails.QuotaFailure:
			if len(d.GetViolations()) > 0 {
				subject = d.GetViolations()[0].GetSubject()
			}
		case *errdetails.RetryInfo:
			delay = d.GetRetryDelay().AsDuration()
		}
	}
	if subject == "" {
		t.Fatalf("no QuotaFailure in %v", st)
	}
	return subject, delay
}

func bigRequest(n int) *errsvcv1.TranslateRequest {
	return &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_LabbyError{
		LabbyError: &errsvcv1.LabbyError{Kind: "rate_limited", Message: strings.Repeat("a", n)},
	}}
}

// logLines decodes the JSON log lines whose msg is one of msgs.
func logLines(t *testing.T, logs string, msgs ...string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for line := range strings.SplitSeq(strings.TrimSpace(logs), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line is not JSON: %q", line)
		}
		for _, msg := range msgs {
			if m["msg"] == msg {
				out = append(out, m)
			}
		}
	}
	return out
}

// hasLogLine reports whether a line has every key=value of want.
func hasLogLine(lines []map[string]any, want map[string]any) bool {
next:
	for _, l := range lines {
		for k, v := range want {
			if l[k] != v {
				continue next
			}
		}
		return true
	}
	return false
}

func TestLimitRequestBytes(t *testing.T) {
	const limit = 2048
	r := start(t, Options{MaxRequestBytes: limit})
	ctx := context.Background()

	t.Run("REST body over the limit is 413 naming body", func(t *testing.T) {
		body := `{"labby_error":{"kind":"x","message":"` + strings.Repeat("a", limit) + `"}}`
		code, resp := r.post(t, "/v1/translate", body)
		if v := restViolation(t, code, resp, http.StatusRequestEntityTooLarge, int32(codes.ResourceExhausted)); v.GetField() != "body" {
			t.Errorf("field %q, want body", v.GetField())
		}
	})
	t.Run("gRPC message over the limit is RESOURCE_EXHAUSTED naming body", func(t *testing.T) {
		_, err := r.client.Translate(ctx, bigRequest(limit+100))
		if status.Code(err) != codes.ResourceExhausted {
			t.Fatalf("got %v, want RESOURCE_EXHAUSTED", err)
		}
		if v := grpcViolation(t, err); v.GetField() != "body" {
			t.Errorf("field %q, want body", v.GetField())
		}
		// Past twice the limit grpc-go refuses before decoding, still with
		// RESOURCE_EXHAUSTED.
		if _, err := r.client.Translate(ctx, bigRequest(3*limit)); status.Code(err) != codes.ResourceExhausted {
			t.Fatalf("3x the limit: %v, want RESOURCE_EXHAUSTED", err)
		}
	})
	t.Run("stream message over the limit gets its own error, the stream goes on", func(t *testing.T) {
		stream, err := r.client.TranslateStream(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, req := range []*errsvcv1.TranslateRequest{bigRequest(limit + 100), validRequest()} {
			if err := stream.Send(req); err != nil {
				t.Fatal(err)
			}
		}
		_ = stream.CloseSend()
		first, err := stream.Recv()
		if err != nil {
			t.Fatal(err)
		}
		if first.GetError().GetCode() != int32(codes.ResourceExhausted) {
			t.Fatalf("oversize item: %v, want RESOURCE_EXHAUSTED", first.GetError())
		}
		if v := violation(t, first.GetError()); v.GetField() != "body" {
			t.Errorf("field %q, want body", v.GetField())
		}
		if second, err := stream.Recv(); err != nil || second.GetError() != nil {
			t.Fatalf("item after the oversize one: %v %v", second.GetError(), err)
		}
	})
	// The refusal grpc-go makes itself is counted from the transport's
	// side, just after its client got the answer.
	waitFor(t, func() bool {
		_, metrics := r.get(t, "/metrics")
		return strings.Contains(string(metrics), `errsvc_limit_exceeded_total{limit="request_bytes"} 4`)
	}, "/metrics to count 4 request_bytes refusals")
	lines := logLines(t, r.logs.String(), "call failed")
	if !hasLogLine(lines, map[string]any{"level": "WARN", "transport": "grpc", "code": "ResourceExhausted", "field": "body", "limit": "request_bytes"}) {
		t.Errorf("no WARN line for the gRPC refusal:\n%s", r.logs)
	}
	if !hasLogLine(lines, map[string]any{"level": "WARN", "transport": "http", "code": "ResourceExhausted", "field": "body", "limit": "request_bytes"}) {
		t.Errorf("no WARN line for the REST refusal:\n%s", r.logs)
	}
}

func TestLimitBatchItems(t *testing.T) {
	r := start(t, Options{MaxBatchItems: 2})
	code, body := r.post(t, "/v1/translate:batch", `{"requests":[{},{},{}]}`)
	if v := restViolation(t, code, body, http.StatusRequestEntityTooLarge, int32(codes.ResourceExhausted)); v.GetField() != "requests" {
		t.Errorf("REST field %q, want requests", v.GetField())
	}
	_, err := r.client.TranslateBatch(context.Background(), &errsvcv1.TranslateBatchRequest{Requests: []*errsvcv1.TranslateRequest{{}, {}, {}}})
	if status.Code(err) != codes.ResourceExhausted || grpcViolation(t, err).GetField() != "requests" {
		t.Errorf("gRPC: %v, want RESOURCE_EXHAUSTED on requests", err)
	}
	if _, err := r.client.TranslateBatch(context.Background(), &errsvcv1.TranslateBatchRequest{
		Requests: []*errsvcv1.TranslateRequest{validRequest(), validRequest()}}); err != nil {
		t.Errorf("batch at the limit: %v", err)
	}
	// The gRPC refusal is counted and logged when the call ends on the
	// server's side, which can be just after its client got the answer.
	waitFor(t, func() bool {
		_, metrics := r.get(t, "/metrics")
		return strings.Contains(string(metrics), `errsvc_limit_exceeded_total{limit="batch_items"} 2`)
	}, "/metrics to count 2 batch_items refusals")
	waitFor(t, func() bool {
		return hasLogLine(logLines(t, r.logs.String(), "call failed"), map[string]any{"level": "WARN", "field": "requests", "limit": "batch_items"})
	}, "a WARN line naming requests")
}

// blockingTranslate holds every call in the hook until release is closed,
// and counts the calls inside.
type blockingTranslate struct {
	inside  atomic.Int64
	release chan struct{}
	once    sync.Once
}

func newBlocking() *blockingTranslate { return &blockingTranslate{release: make(chan struct{})} }

func (b *blockingTranslate) translate(req *errsvcv1.TranslateRequest) (*errsvcv1.TranslateResponse, error) {
	b.inside.Add(1)
	<-b.release
	return translate.Translate(req)
}

func (b *blockingTranslate) open() { b.once.Do(func() { close(b.release) }) }

func (b *blockingTranslate) waitInside(t *testing.T, n int64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for b.inside.Load() < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d calls inside the hook, want %d", b.inside.Load(), n)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func TestLimitConcurrentRequests(t *testing.T) {
	hook := newBlocking()
	r := start(t, Options{MaxConcurrentRequests: 2, translate: hook.translate})
	t.Cleanup(hook.open)
	ctx := context.Background()

	// One call per transport holds the two slots.
	var wg sync.WaitGroup
	wg.Go(func() {
		if _, err := r.client.Translate(ctx, validRequest()); err != nil {
			t.Errorf("held gRPC call: %v", err)
		}
	})
	wg.Go(func() {
		req, _ := http.NewRequest(http.MethodPost, r.base+"/v1/translate", strings.NewReader(validJSON))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Errorf("held REST call: %v", err)
			return
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("held REST call: HTTP %d", resp.StatusCode)
		}
	})
	hook.waitInside(t, 2)

	// A call the limit let through would wait on the hook: it fails on
	// these deadlines instead of hanging the test.
	held, cancelHeld := context.WithTimeout(ctx, 5*time.Second)
	defer cancelHeld()
	_, err := r.client.Translate(held, validRequest())
	if status.Code(err) != codes.ResourceExhausted {
		t.Fatalf("gRPC over the limit: %v, want RESOURCE_EXHAUSTED", err)
	}
	if subject, _ := quota(t, status.Convert(err).Proto()); subject != "concurrent_requests" {
		t.Errorf("gRPC subject %q", subject)
	}

	req, _ := http.NewRequestWithContext(held, http.MethodPost, r.base+"/v1/translate:batch", strings.NewReader(`{"requests":[]}`))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("REST over the limit: HTTP %d Retry-After %q, want 429 with Retry-After; %s",
			resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	var st spb.Status
	decodeJSON(t, body, &st)
	if subject, _ := quota(t, &st); subject != "concurrent_requests" || st.GetCode() != int32(codes.ResourceExhausted) {
		t.Errorf("REST: %v", &st)
	}

	// Probes and scrapes are never refused.
	for _, path := range []string{"/healthz", "/readyz", "/metrics"} {
		if code, _ := r.get(t, path); code != http.StatusOK {
			t.Errorf("%s under full load: HTTP %d", path, code)
		}
	}
	if _, err := healthpb.NewHealthClient(r.conn).Check(ctx, &healthpb.HealthCheckRequest{}); err != nil {
		t.Errorf("gRPC health under full load: %v", err)
	}

	hook.open()
	wg.Wait()
	if _, err := r.client.Translate(ctx, validRequest()); err != nil {
		t.Errorf("after the held calls ended: %v", err)
	}
	_, metrics := r.get(t, "/metrics")
	for _, want := range []string{
		`errsvc_limit_exceeded_total{limit="concurrent_requests"} 2`,
		`errsvc_in_flight_requests 0`,
		`errsvc_requests_total{code="ResourceExhausted",rpc="/errsvc.v1.TranslationService/TranslateBatch",transport="http"} 1`,
	} {
		if !strings.Contains(string(metrics), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

func TestLimitConcurrentStreams(t *testing.T) {
	r := start(t, Options{MaxConcurrentStreams: 2})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	open := func() (errsvcv1.TranslationService_TranslateStreamClient, error) {
		stream, err := r.client.TranslateStream(ctx)
		if err != nil {
			return nil, err
		}
		// A refused stream may already be over when Send runs: Send then
		// says io.EOF and Recv tells the status.
		if err := stream.Send(validRequest()); err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		_, err = stream.Recv()
		return stream, err
	}
	first, err := open()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := open(); err != nil {
		t.Fatal(err)
	}
	_, err = open()
	if status.Code(err) != codes.ResourceExhausted {
		t.Fatalf("third stream: %v, want RESOURCE_EXHAUSTED", err)
	}
	if subject, _ := quota(t, status.Convert(err).Proto()); subject != "concurrent_streams" {
		t.Errorf("subject %q", subject)
	}
	// Unary calls are not streams.
	if _, err := r.client.Translate(ctx, validRequest()); err != nil {
		t.Errorf("unary call with the streams full: %v", err)
	}

	// Ending one frees its slot.
	_ = first.CloseSend()
	if _, err := first.Recv(); err == nil {
		t.Fatal("first stream did not end")
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		_, err := open()
		if err == nil {
			break
		}
		if status.Code(err) != codes.ResourceExhausted || time.Now().After(deadline) {
			t.Fatalf("stream after one closed: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !hasLogLine(logLines(t, r.logs.String(), "call failed"), map[string]any{
		"level": "WARN", "rpc": "/errsvc.v1.TranslationService/TranslateStream", "field": "concurrent_streams", "limit": "concurrent_streams",
	}) {
		t.Errorf("no WARN line for the refused stream:\n%s", r.logs)
	}
}

func TestLimitStreamRate(t *testing.T) {
	const burst = 3
	r := start(t, Options{StreamRate: 5, StreamBurst: burst})
	stream, err := r.client.TranslateStream(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	const sent = 12
	for range sent {
		if err := stream.Send(validRequest()); err != nil {
			t.Fatal(err)
		}
	}
	refused := 0
	for i := range sent {
		resp, err := stream.Recv()
		if err != nil {
			t.Fatalf("response %d: %v", i, err)
		}
		e := resp.GetError()
		if i < burst {
			if e != nil {
				t.Errorf("response %d within the burst: %v", i, e)
			}
			continue
		}
		if e == nil {
			continue // a token accrued meanwhile
		}
		refused++
		if e.GetCode() != int32(codes.ResourceExhausted) {
			t.Fatalf("response %d: %v, want RESOURCE_EXHAUSTED", i, e)
		}
		subject, delay := quota(t, e)
		if subject != "stream_messages" || delay <= 0 {
			t.Errorf("response %d: subject %q retry delay %v", i, subject, delay)
		}
	}
	if refused < sent-burst-3 {
		t.Errorf("%d of %d messages over the rate refused", refused, sent-burst)
	}

	// The stream survives and recovers once tokens accrue.
	time.Sleep(250 * time.Millisecond)
	if err := stream.Send(validRequest()); err != nil {
		t.Fatal(err)
	}
	if resp, err := stream.Recv(); err != nil || resp.GetError() != nil {
		t.Fatalf("after waiting: %v %v", resp.GetError(), err)
	}
	_ = stream.CloseSend()
	if _, err := stream.Recv(); err == nil {
		t.Fatal("stream did not end")
	}

	_, metrics := r.get(t, "/metrics")
	if !strings.Contains(string(metrics), `errsvc_limit_exceeded_total{limit="stream_rate"}`) ||
		!strings.Contains(string(metrics), `errsvc_errors_total{code="ResourceExhausted",rpc="/errsvc.v1.TranslationService/TranslateStream",scope="item",transport="grpc"}`) {
		t.Errorf("/metrics: %s", grep(string(metrics), "errsvc_"))
	}
	waitFor(t, func() bool {
		return hasLogLine(logLines(t, r.logs.String(), "call answered items with errors"), map[string]any{
			"level": "WARN", "code": "OK", "item_code": "ResourceExhausted", "item_field": "stream_messages", "item_limit": "stream_rate",
		})
	}, "a WARN line summing up the refused stream messages:\n"+r.logs.String())
}

// TestDeadlineHonoured checks that a call whose caller gave up stops doing
// work: a batch stops between items, on both transports.
func TestDeadlineHonoured(t *testing.T) {
	var calls atomic.Int64
	r := start(t, Options{translate: func(req *errsvcv1.TranslateRequest) (*errsvcv1.TranslateResponse, error) {
		calls.Add(1)
		time.Sleep(50 * time.Millisecond)
		return translate.Translate(req)
	}})
	batch := &errsvcv1.TranslateBatchRequest{}
	for range 20 {
		batch.Requests = append(batch.Requests, validRequest())
	}

	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Millisecond)
	defer cancel()
	_, err := r.client.TranslateBatch(ctx, batch)
	if status.Code(err) != codes.DeadlineExceeded {
		t.Fatalf("gRPC: %v, want DEADLINE_EXCEEDED", err)
	}
	time.Sleep(150 * time.Millisecond) // the server notices at the next item
	if n := calls.Load(); n > 5 {
		t.Errorf("gRPC: %d of 20 items translated after the deadline", n)
	}

	// REST callers set their deadline with grpc-gateway's Grpc-Timeout.
	calls.Store(0)
	items := strings.Repeat(validJSON+",", 19) + validJSON
	req, _ := http.NewRequest(http.MethodPost, r.base+"/v1/translate:batch", strings.NewReader(`{"requests":[`+items+`]}`))
	req.Header.Set("Grpc-Timeout", "120m")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusGatewayTimeout {
		t.Errorf("REST: HTTP %d, want 504", resp.StatusCode)
	}
	if n := calls.Load(); n > 5 {
		t.Errorf("REST: %d of 20 items translated after the deadline", n)
	}

	// The server stops on its own deadline or on the client's cancellation
	// that comes with it, whichever it sees first.
	waitFor(t, func() bool {
		lines := logLines(t, r.logs.String(), "call failed")
		want := map[string]any{"level": "WARN", "transport": "grpc", "rpc": "/errsvc.v1.TranslationService/TranslateBatch"}
		for _, code := range []string{"DeadlineExceeded", "Canceled"} {
			want["code"] = code
			if hasLogLine(lines, want) {
				return true
			}
		}
		return false
	}, "a WARN line for the batch cut by its deadline:\n"+r.logs.String())
}

func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// grep keeps the lines of s that contain sub.
func grep(s, sub string) string {
	var out []string
	for line := range strings.SplitSeq(s, "\n") {
		if strings.Contains(line, sub) && !strings.HasPrefix(line, "#") {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}

// TestLimiterRefusalHoldsNoSlot: a refused acquire gives its slot back, on
// every kind of slot, so that refusals under a flood never shrink the
// limit for the callers after it.
func TestLimiterRefusalHoldsNoSlot(t *testing.T) {
	l := newLimiter(1, 1, 1, NewMetrics())
	for _, k := range []struct {
		name    string
		acquire func() bool
		release func()
	}{
		{"request", l.acquireRequest, l.releaseRequest},
		{"stream", l.acquireStream, l.releaseStream},
		{"watch", l.acquireWatch, l.releaseWatch},
	} {
		if !k.acquire() {
			t.Fatalf("%s: the first slot of one refused", k.name)
		}
		for i := range 3 {
			if k.acquire() {
				t.Fatalf("%s: slot %d of one granted", k.name, i+2)
			}
		}
		k.release()
		if !k.acquire() {
			t.Errorf("%s: refused after the only holder released its slot: the refusals kept theirs", k.name)
		}
		k.release()
	}
}
