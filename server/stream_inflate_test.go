package server

import (
	"context"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/encoding/gzip"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// A TranslateStream of gzip bombs (each message a few KiB on the wire,
// inflating to nearly the size limit) inflates at most --stream-byte-rate:
// past its burst, the server reads the stream's next message only when the
// rate allows, and HTTP/2 flow control holds the client back. Counted: the
// inflated bytes answered in the first second.
func TestStreamInflatesAtMostItsByteRate(t *testing.T) {
	const (
		limit    = 1 << 20
		byteRate = 8 << 20
		window   = time.Second
	)
	r := start(t, Options{MaxRequestBytes: limit, StreamByteRate: byteRate, StreamRate: -1})
	msg := strings.Repeat(" ", limit-1024)
	req := &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_LabbyError{
		LabbyError: &errsvcv1.LabbyError{Kind: "rate_limited", Message: msg}}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st, err := r.client.TranslateStream(ctx, grpc.UseCompressor(gzip.Name))
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for ctx.Err() == nil {
			if st.Send(req) != nil {
				return
			}
		}
	}()
	began := time.Now()
	answered := 0
	for time.Since(began) < window {
		if _, err := st.Recv(); err != nil {
			t.Fatalf("after %d answers: %v", answered, err)
		}
		answered++
	}
	cancel()
	inflated := answered * len(msg)
	// The burst (twice the limit) and one second at the rate, and the
	// message in flight.
	allowed := 2*limit + byteRate + len(msg)
	t.Logf("%d messages (%d MiB inflated) answered in %v at a rate of %d MiB/s", answered, inflated>>20, window, byteRate>>20)
	if inflated > allowed {
		t.Errorf("the stream inflated %d bytes in %v, more than its burst and rate allow (%d)", inflated, window, allowed)
	}
	if answered < 2 {
		t.Errorf("only %d answers in %v: the pacing starves the stream", answered, window)
	}
}
