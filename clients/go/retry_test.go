package errsvcclient_test

import (
	"context"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	errsvcclient "github.com/errsvc/errsvc/clients/go"
	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/translate"
)

// flakyServer fails its first `failures` Translate calls with `code`, adding
// a google.rpc.RetryInfo when retryDelay is set, then translates.
type flakyServer struct {
	errsvcv1.UnimplementedTranslationServiceServer
	failures   int32
	code       codes.Code
	retryDelay time.Duration
	calls      atomic.Int32
}

func (s *flakyServer) Translate(_ context.Context, req *errsvcv1.TranslateRequest) (*errsvcv1.TranslateResponse, error) {
	if s.calls.Add(1) <= s.failures {
		st := status.New(s.code, "try again later")
		if s.retryDelay > 0 {
			var err error
			st, err = st.WithDetails(&errdetails.RetryInfo{RetryDelay: durationpb.New(s.retryDelay)})
			if err != nil {
				return nil, err
			}
		}
		return nil, st.Err()
	}
	return translate.Translate(req)
}

// start serves s on a loopback port for the test's lifetime.
func (s *flakyServer) start(t *testing.T) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	errsvcv1.RegisterTranslationServiceServer(srv, s)
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)
	return lis.Addr().String()
}

var rateLimited = &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_LabbyError{
	LabbyError: &errsvcv1.LabbyError{Kind: "rate_limited", Message: "slow down"},
}}

func dial(t *testing.T, addr string, opts ...errsvcclient.Option) *errsvcclient.Client {
	t.Helper()
	c, err := errsvcclient.Dial(addr, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// The brief's case with the default options: two UNAVAILABLE answers with
// RetryInfo, then success; the caller sees only the success.
func TestRetryUnavailableDefaults(t *testing.T) {
	s := &flakyServer{failures: 2, code: codes.Unavailable, retryDelay: 50 * time.Millisecond}
	translateSeenAs(t, dial(t, s.start(t)), &s.calls, 3)
}

// translateSeenAs translates rateLimited through c, which must answer it,
// and requires the server to have seen calls (its counter) that many times.
func translateSeenAs(t *testing.T, c *errsvcclient.Client, calls *atomic.Int32, want int32) {
	t.Helper()
	resp, err := c.Translate(context.Background(), rateLimited)
	if err != nil {
		t.Fatalf("Translate: %v", err)
	}
	if resp.GetLabbyError().GetKind() != "rate_limited" {
		t.Fatalf("unexpected response %v", resp)
	}
	if n := calls.Load(); n != want {
		t.Fatalf("server saw %d calls, want %d", n, want)
	}
}

// RetryInfo alone (service config retries off): the interceptor waits the
// delay the server asks for before each retry.
func TestRetryInfoHonoursDelay(t *testing.T) {
	const delay = 150 * time.Millisecond
	s := &flakyServer{failures: 2, code: codes.Unavailable, retryDelay: delay}
	c := dial(t, s.start(t), errsvcclient.WithRetry(1, 0, 0))
	start := time.Now()
	if _, err := c.Translate(context.Background(), rateLimited); err != nil {
		t.Fatalf("Translate: %v", err)
	}
	if n := s.calls.Load(); n != 3 {
		t.Fatalf("server saw %d calls, want 3", n)
	}
	if elapsed := time.Since(start); elapsed < 2*delay {
		t.Fatalf("succeeded after %v; RetryInfo asked for %v twice", elapsed, delay)
	}
}

// The service config policy alone retries UNAVAILABLE without RetryInfo.
func TestRetryPolicyWithoutRetryInfo(t *testing.T) {
	s := &flakyServer{failures: 2, code: codes.Unavailable}
	c := dial(t, s.start(t), errsvcclient.WithRetry(3, 10*time.Millisecond, 20*time.Millisecond), errsvcclient.WithRetryInfo(0, 0))
	if _, err := c.Translate(context.Background(), rateLimited); err != nil {
		t.Fatalf("Translate: %v", err)
	}
	if n := s.calls.Load(); n != 3 {
		t.Fatalf("server saw %d calls, want 3", n)
	}
}

// Retries are bounded: the policy's attempts times (1 + RetryInfo retries).
func TestRetryBounded(t *testing.T) {
	s := &flakyServer{failures: 1000, code: codes.Unavailable, retryDelay: time.Millisecond}
	c := dial(t, s.start(t),
		errsvcclient.WithRetry(2, time.Millisecond, time.Millisecond),
		errsvcclient.WithRetryInfo(2, time.Second))
	_, err := c.Translate(context.Background(), rateLimited)
	if status.Code(err) != codes.Unavailable {
		t.Fatalf("got %v, want Unavailable", err)
	}
	if n := s.calls.Load(); n != 6 {
		t.Fatalf("server saw %d calls, want 2 attempts x 3 rounds = 6", n)
	}
}

// A delay longer than maxDelay fails fast with the server's error: it is
// neither waited nor shortened.
func TestRetryInfoDelayPastCapFailsFast(t *testing.T) {
	s := &flakyServer{failures: 1, code: codes.ResourceExhausted, retryDelay: time.Hour}
	c := dial(t, s.start(t), errsvcclient.WithRetryInfo(1, 20*time.Millisecond))
	start := time.Now()
	_, err := c.Translate(context.Background(), rateLimited)
	if status.Code(err) != codes.ResourceExhausted {
		t.Fatalf("got %v, want the server's ResourceExhausted", err)
	}
	if n := s.calls.Load(); n != 1 {
		t.Fatalf("server saw %d calls, want 1", n)
	}
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Fatalf("took %v: the hour-long delay was waited", elapsed)
	}
}

// A wait that would outlive the call's deadline is not started: the
// server's error comes back at once.
func TestRetryInfoRespectsDeadline(t *testing.T) {
	s := &flakyServer{failures: 1, code: codes.Unavailable, retryDelay: time.Minute}
	c := dial(t, s.start(t), errsvcclient.WithRetry(1, 0, 0), errsvcclient.WithRetryInfo(3, time.Hour), errsvcclient.WithTimeout(10*time.Second))
	start := time.Now()
	_, err := c.Translate(context.Background(), rateLimited)
	if status.Code(err) != codes.Unavailable {
		t.Fatalf("got %v, want the server's Unavailable", err)
	}
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Fatalf("took %v, want an answer well before the 10s deadline", elapsed)
	}
	if n := s.calls.Load(); n != 1 {
		t.Fatalf("server saw %d calls, want 1", n)
	}
}

// Errors that are not retryable are never retried, RetryInfo or not.
func TestNoRetryOnInvalidArgument(t *testing.T) {
	s := &flakyServer{failures: 1, code: codes.InvalidArgument, retryDelay: time.Millisecond}
	c := dial(t, s.start(t))
	if _, err := c.Translate(context.Background(), rateLimited); status.Code(err) != codes.InvalidArgument {
		t.Fatalf("got %v, want InvalidArgument", err)
	}
	if n := s.calls.Load(); n != 1 {
		t.Fatalf("server saw %d calls, want 1", n)
	}
}

// The default deadline applies to a context without one.
func TestDefaultDeadline(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	errsvcv1.RegisterTranslationServiceServer(srv, &slowServer{})
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)
	c := dial(t, lis.Addr().String(), errsvcclient.WithTimeout(100*time.Millisecond))
	if _, err := c.Translate(context.Background(), rateLimited); status.Code(err) != codes.DeadlineExceeded {
		t.Fatalf("got %v, want DeadlineExceeded", err)
	}
}

type slowServer struct {
	errsvcv1.UnimplementedTranslationServiceServer
}

func (slowServer) Translate(ctx context.Context, _ *errsvcv1.TranslateRequest) (*errsvcv1.TranslateResponse, error) {
	<-ctx.Done()
	return nil, status.FromContextError(ctx.Err()).Err()
}
