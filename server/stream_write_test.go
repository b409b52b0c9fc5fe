package server

import (
	"context"
	"fmt"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// A TranslateStream whose client never grants flow-control window (it
// sends requests, reads frames, and sends no WINDOW_UPDATE) cannot hold its
// stream slot: once the answers fill the window, the next send waits at
// most the write timeout and the stream ends. Meanwhile a well-behaved
// stream caller is answered.
func TestStreamThatTakesNoAnswerEndsAtTheWriteTimeout(t *testing.T) {
	const writeTimeout = time.Second
	r := start(t, Options{WriteTimeout: writeTimeout, StreamIdleTimeout: time.Minute, StreamRate: 1e6, StreamBurst: 1e6})
	req, err := proto.Marshal(&errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_LabbyError{
		LabbyError: &errsvcv1.LabbyError{Kind: "rate_limited", Message: "slow down"}}})
	if err != nil {
		t.Fatal(err)
	}
	h := dialH2(t, r.srv.GRPCAddr())
	const streams = 4
	ids := make([]uint32, streams)
	for i := range ids {
		ids[i] = h.open(t, errsvcv1.TranslationService_TranslateStream_FullMethodName, false)
		// Far more answers than the connection's 64 KiB window and the
		// stream's 64 KiB of queued writes (grpc-go's write quota) hold.
		batch := make([]byte, 0, 2000*(5+len(req)))
		for k := 0; k < 2000; k++ {
			batch = append(batch, grpcFrame(len(req), req)...)
		}
		h.send(ids[i], batch, false, time.Second)
	}
	// The server ends each (its handler returns and frees the slot); what
	// grpc-go queued for the client, the status behind it, waits on the
	// connection the client holds.
	for end := time.Now().Add(5 * time.Second); r.srv.opts.limiter.streams.Load() < streams; {
		if time.Now().After(end) {
			t.Fatalf("%d of %d streams open", r.srv.opts.limiter.streams.Load(), streams)
		}
		time.Sleep(5 * time.Millisecond)
	}
	began := time.Now()
	for r.srv.opts.limiter.streams.Load() > 0 {
		if time.Since(began) > 10*writeTimeout {
			t.Fatalf("%d stream slots still held %v after the streams stopped taking answers (write timeout %v)",
				r.srv.opts.limiter.streams.Load(), time.Since(began), writeTimeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("%d streams that took no answer ended %v after their requests", streams, time.Since(began).Round(10*time.Millisecond))
	// A well-behaved stream caller meanwhile.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	st, err := r.client.TranslateStream(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	if err := st.Send(&errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_LabbyError{
		LabbyError: &errsvcv1.LabbyError{Kind: "rate_limited", Message: "m"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Recv(); err != nil {
		t.Fatalf("a well-behaved stream: %v", err)
	}
	_ = st.CloseSend()
	if wait := time.Since(t0); wait > time.Second {
		t.Errorf("a well-behaved stream waited %v for its answer", wait)
	}
	if _, missing := r.metricsHolding(t, fmt.Sprintf(`errsvc_limit_exceeded_total{limit="write_timeout"} %d`, streams)); len(missing) > 0 {
		t.Errorf("/metrics does not count the %d streams under write_timeout", streams)
	}
}
