package server

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"google.golang.org/protobuf/proto"
)

const translateStreamMethod = "/errsvc.v1.TranslationService/TranslateStream"

// 48 TranslateStream streams, over 6 connections, each declaring a message
// of grpc-go's cap (twice --max-request-bytes, 8 MiB at the defaults),
// sending 7 MiB of it and stalling, against the binary at its defaults.
// Before stream messages were counted, grpc-go let each stream's whole
// message in as soon as its handler read (it widens a stream's window to
// the declared size), and 48 such streams pinned 336 MiB. A well-behaved
// caller, unary and streaming, is answered within a second throughout.
func TestHostileStalledStreamMessages(t *testing.T) {
	p := startProc(t)
	warm(t, p)
	base := p.kib(t, "VmRSS")
	cpu := p.cpuTime(t)

	const conns, perConn = 6, 8
	declared := 2 * DefaultMaxRequestBytes
	body := make([]byte, 7<<20)
	var sent atomic.Int64
	var wg sync.WaitGroup
	for range conns {
		h := dialH2(t, p.grpcAddr)
		for range perConn {
			id := h.open(t, translateStreamMethod, false)
			// Gives up once no window opens for 2 s: the stall.
			wg.Go(func() { sent.Add(int64(h.send(id, grpcFrame(declared, body), false, 2*time.Second))) })
		}
	}
	stop := make(chan struct{})
	var calls int
	var worst time.Duration
	var callErr error
	callsDone := make(chan struct{})
	client := errsvcv1.NewTranslationServiceClient(dialGRPC(t, p))
	go func() {
		defer close(callsDone)
		calls, worst, callErr = wellBehavedCalls(client, stop)
	}()
	wg.Wait() // every stream sent what it was let send, then stalled for 2 s
	time.Sleep(time.Second)
	close(stop)
	<-callsDone
	peak := p.kib(t, "VmHWM")
	growth := (peak - base) / 1024
	t.Logf("48 stalled stream messages (declared %d MiB, 7 MiB each meant to arrive): client sent %d MiB in all; server RSS %d MiB before, peak %d MiB (growth %d MiB), CPU %v (the well-behaved calls' included); a well-behaved caller: %d calls (unary and stream), the slowest %v",
		declared>>20, sent.Load()>>20, base/1024, peak/1024, growth, p.cpuTime(t)-cpu, calls, worst.Round(time.Millisecond))
	if callErr != nil {
		t.Errorf("a well-behaved call under the attack: %v", callErr)
	}
	if growth > 128 {
		t.Errorf("RSS grew by %d MiB, want at most 128", growth)
	}
	if sent.Load() > int64(DefaultMaxReceiveBufferBytes)+48*defaultStreamWindow+16<<20 {
		t.Errorf("the server let %d MiB in, want about its receive budget (%d MiB)", sent.Load()>>20, DefaultMaxReceiveBufferBytes>>20)
	}
	if worst > time.Second {
		t.Errorf("a well-behaved caller waited %v, want at most 1 s", worst)
	}
}

// 32 TranslateStream streams on one connection whose client sends requests
// and never grants flow-control window, against the binary at its defaults
// (--write-timeout 10s): the answers fill the windows, each stream ends
// at the write timeout and frees its slot, and meanwhile a well-behaved
// caller (unary and streaming, on its own connection) is answered within a
// second. In the outside battery such streams stayed open past
// --stream-idle-timeout and a well-behaved stream caller got 3 of 93 calls
// through.
func TestHostileNonReadingStreams(t *testing.T) {
	p := startProc(t)
	warm(t, p)
	base := p.kib(t, "VmRSS")
	cpu := p.cpuTime(t)
	req, err := proto.Marshal(validRequest())
	if err != nil {
		t.Fatal(err)
	}
	// Far more answers than the 64 KiB connection window and a stream's
	// 64 KiB of queued writes hold. The rate limit (500 messages a second,
	// burst 100) paces them: the stream is blocked writing well before.
	batch := make([]byte, 0, 2000*(5+len(req)))
	for range 2000 {
		batch = append(batch, grpcFrame(len(req), req)...)
	}
	h := dialH2(t, p.grpcAddr)
	const streams = 32
	began := time.Now()
	var wg sync.WaitGroup
	for range streams {
		id := h.open(t, translateStreamMethod, false)
		wg.Go(func() { h.send(id, batch, false, time.Second) })
	}
	stop := make(chan struct{})
	var calls int
	var worst time.Duration
	var callErr error
	callsDone := make(chan struct{})
	client := errsvcv1.NewTranslationServiceClient(dialGRPC(t, p))
	go func() {
		defer close(callsDone)
		calls, worst, callErr = wellBehavedCalls(client, stop)
	}()
	wg.Wait()
	held := p.metric(t, "errsvc_active_streams")
	// The streams end at the write timeout (10 s) after their last answer
	// was queued.
	var freed time.Duration
	for deadline := time.Now().Add(16 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if p.metric(t, "errsvc_active_streams") <= 1 { // the well-behaved stream's own
			freed = time.Since(began)
			break
		}
	}
	close(stop)
	<-callsDone
	peak := p.kib(t, "VmHWM")
	growth := (peak - base) / 1024
	timedOut := p.metric(t, `errsvc_limit_exceeded_total{limit="write_timeout"}`)
	t.Logf("32 streams that never grant window: %v held at once, every slot free %v after they began (0: not within 16 s), %v ended by the write timeout; server RSS %d MiB before, peak %d MiB (growth %d MiB), CPU %v (the well-behaved calls' included); a well-behaved caller: %d calls (unary and stream), the slowest %v",
		held, freed.Round(100*time.Millisecond), timedOut, base/1024, peak/1024, growth, p.cpuTime(t)-cpu, calls, worst.Round(time.Millisecond))
	if callErr != nil {
		t.Errorf("a well-behaved call under the attack: %v", callErr)
	}
	if freed == 0 {
		t.Error("the streams that take no answer still hold their slots 16 s on (write timeout 10 s)")
	}
	if timedOut < streams {
		t.Errorf("%v streams ended by the write timeout, want %d", timedOut, streams)
	}
	if growth > 128 {
		t.Errorf("RSS grew by %d MiB, want at most 128", growth)
	}
	if worst > time.Second {
		t.Errorf("a well-behaved caller waited %v, want at most 1 s", worst)
	}
}

// wellBehavedCalls makes a unary Translate and a message on one
// TranslateStream, through client (its own connection), every 20 ms until
// stop closes; it returns how many calls were made, the slowest, and the
// first error.
func wellBehavedCalls(client errsvcv1.TranslationServiceClient, stop <-chan struct{}) (calls int, worst time.Duration, err error) {
	// Bounds the stream, should the server starve it.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var stream errsvcv1.TranslationService_TranslateStreamClient
	for {
		select {
		case <-stop:
			if stream != nil {
				_ = stream.CloseSend()
			}
			return calls, worst, err
		case <-time.After(20 * time.Millisecond):
		}
		callCtx, callCancel := context.WithTimeout(ctx, 5*time.Second)
		t0 := time.Now()
		_, uerr := client.Translate(callCtx, validRequest())
		callCancel()
		worst = max(worst, time.Since(t0))
		calls++
		if uerr != nil && err == nil {
			err = uerr
		}
		t0 = time.Now()
		if stream == nil {
			if stream, err = client.TranslateStream(ctx); err != nil {
				return calls, worst, err
			}
		}
		serr := stream.Send(validRequest())
		if serr == nil {
			_, serr = stream.Recv()
		}
		worst = max(worst, time.Since(t0))
		calls++
		if serr != nil && err == nil {
			err = serr
		}
	}
}
