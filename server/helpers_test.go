package server

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/errsvc/errsvc/codec/openjson"
	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// syncBuffer collects log output written from server goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

type running struct {
	srv    *Server
	cancel context.CancelFunc
	done   chan error
	logs   *syncBuffer
	conn   *grpc.ClientConn
	client errsvcv1.TranslationServiceClient
	base   string
}

// start runs a real Server on loopback ports chosen by the kernel.
func start(t *testing.T, opts Options) *running {
	t.Helper()
	logs := &syncBuffer{}
	opts.GRPCAddr, opts.HTTPAddr = "127.0.0.1:0", "127.0.0.1:0"
	// JSON at DEBUG: every call writes a line, so the log assertions (and
	// the secrets check) see everything the server can write.
	opts.Logger = slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	srv, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{srv: srv, cancel: cancel, done: make(chan error, 1), logs: logs, base: "http://" + srv.HTTPAddr()}
	go func() { r.done <- srv.Serve(ctx) }()
	r.conn, err = grpc.NewClient(srv.GRPCAddr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	r.client = errsvcv1.NewTranslationServiceClient(r.conn)
	t.Cleanup(func() {
		_ = r.conn.Close()
		r.stop(t)
	})
	return r
}

// stop cancels Serve and waits for it; safe to call twice.
func (r *running) stop(t *testing.T) {
	t.Helper()
	r.cancel()
	select {
	case err, ok := <-r.done:
		if !ok {
			return
		}
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
		close(r.done)
	case <-time.After(20 * time.Second):
		t.Fatal("Serve did not return after cancel")
	}
}

func (r *running) post(t *testing.T, path, body string) (int, []byte) {
	t.Helper()
	return r.do(t, http.MethodPost, path, strings.NewReader(body))
}

func (r *running) get(t *testing.T, path string) (int, []byte) {
	t.Helper()
	return r.do(t, http.MethodGet, path, nil)
}

// metricsHolding reads /metrics until it holds every want, for at most
// 5 s, and returns what it read last and the wants it still lacks. A call
// is counted when it ends on the server's side, and for some calls that is
// just after their client has the answer: a refusal grpc-go makes before
// the interceptors run (a body over its size, one the codec refuses), whose
// end the stats handler sees after the status went out, and an answer
// connect-go flushes before its handler returns. Reading /metrics once
// right after such a call fails now and then on a loaded machine (as
// TestLimitBatchItems did in CI).
func (r *running) metricsHolding(t *testing.T, wants ...string) (string, []string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		_, body := r.get(t, "/metrics")
		var missing []string
		for _, w := range wants {
			if !strings.Contains(string(body), w) {
				missing = append(missing, w)
			}
		}
		if len(missing) == 0 || time.Now().After(deadline) {
			return string(body), missing
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (r *running) do(t *testing.T, method, path string, body io.Reader) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, r.base+path, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

func decodeJSON(t *testing.T, body []byte, m proto.Message) {
	t.Helper()
	// REST answers are open objects: members of additional_fields appear
	// as members of their object (codec/openjson).
	if err := openjson.Unmarshal(body, m); err != nil {
		t.Fatalf("decode %T from %s: %v", m, body, err)
	}
}

// violation returns the first BadRequest field violation in st, failing the
// test if there is none.
func violation(t *testing.T, st *spb.Status) *errdetails.BadRequest_FieldViolation {
	t.Helper()
	for _, d := range status.FromProto(st).Details() {
		if br, ok := d.(*errdetails.BadRequest); ok && len(br.GetFieldViolations()) > 0 {
			return br.GetFieldViolations()[0]
		}
		if err, ok := d.(error); ok {
			t.Fatalf("undecodable detail: %v", err)
		}
	}
	t.Fatalf("no BadRequest field violation in %v", st)
	return nil
}

// restViolation checks a REST error answer and returns its violation.
func restViolation(t *testing.T, code int, body []byte, wantHTTP int, wantCode int32) *errdetails.BadRequest_FieldViolation {
	t.Helper()
	if code != wantHTTP {
		t.Fatalf("HTTP %d, want %d; body %s", code, wantHTTP, body)
	}
	var st spb.Status
	decodeJSON(t, body, &st)
	if st.GetCode() != wantCode {
		t.Fatalf("status code %d, want %d; body %s", st.GetCode(), wantCode, body)
	}
	v := violation(t, &st)
	if v.GetField() == "" {
		t.Fatalf("violation with empty field: %s", body)
	}
	return v
}

func grpcViolation(t *testing.T, err error) *errdetails.BadRequest_FieldViolation {
	t.Helper()
	st, ok := status.FromError(err)
	if !ok {
		t.Fatalf("not a status: %v", err)
	}
	return violation(t, st.Proto())
}

// serveBench runs a Server with opts on loopback ports for a benchmark,
// with a gRPC client connection to it; stop ends both.
func serveBench(b *testing.B, opts Options) (srv *Server, conn *grpc.ClientConn, stop func()) {
	b.Helper()
	opts.GRPCAddr, opts.HTTPAddr = "127.0.0.1:0", "127.0.0.1:0"
	srv, err := New(opts)
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx) }()
	conn, err = grpc.NewClient(srv.GRPCAddr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		cancel()
		<-done
		b.Fatal(err)
	}
	return srv, conn, func() {
		_ = conn.Close()
		cancel()
		<-done
	}
}
