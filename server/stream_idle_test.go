package server

import (
	"context"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// StreamIdleTimeout bounds the wait for each message, not the stream: one
// timer per stream, armed for each receive. A stream that sends more
// often than the timeout lives on past it; one that goes quiet is ended.
func TestStreamIdleTimeoutIsPerMessage(t *testing.T) {
	const idle = 300 * time.Millisecond
	r := start(t, Options{StreamIdleTimeout: idle})
	// Bounded: a server that never ends a quiet stream fails the test
	// instead of hanging it.
	ctx, cancel := context.WithTimeout(context.Background(), 20*idle)
	defer cancel()
	s, err := r.client.TranslateStream(ctx)
	if err != nil {
		t.Fatal(err)
	}
	req := &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_LabbyError{
		LabbyError: &errsvcv1.LabbyError{Kind: "rate_limited", Message: "slow down"}}}
	// Six messages a half-timeout apart: the stream outlives the timeout
	// twice over.
	for i := range 6 {
		if i > 0 {
			time.Sleep(idle / 2)
		}
		if err := s.Send(req); err != nil {
			t.Fatalf("send %d: %v", i, err)
		}
		if _, err := s.Recv(); err != nil {
			t.Fatalf("message %d, sent within the idle timeout, was not answered: %v", i, err)
		}
	}
	// Then quiet: the server ends the stream.
	began := time.Now()
	_, err = s.Recv()
	if err == nil {
		t.Fatal("a quiet stream was not ended")
	}
	if c := status.Code(err); c != codes.Canceled && c != codes.DeadlineExceeded {
		t.Fatalf("a quiet stream ended with %v", err)
	}
	if st, _ := status.FromError(err); ctx.Err() != nil {
		t.Fatalf("the server never ended a quiet stream (%v)", st.Message())
	}
	if waited := time.Since(began); waited < idle/2 || waited > 10*idle {
		t.Fatalf("a quiet stream ended after %s, the idle timeout is %s", waited, idle)
	}
}
