package server

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// Stream messages stalled half way hold no more than the receive budget:
// grpc-go's widening of a stream's window for a large message waits until
// the budget (one connection: half of it) has room, so a stream that stalls
// holds its grant and no more, and the rest send only their 64 KiB
// windows. A small message, within the window, is never held; a large one
// waits for the budget and goes once the stalled streams end; and every
// byte given comes back.
func TestStalledStreamMessagesHoldAtMostTheBudget(t *testing.T) {
	const limit, budget = 1 << 20, 4 << 20
	r := start(t, Options{MaxRequestBytes: limit, MaxReceiveBufferBytes: budget, StreamIdleTimeout: time.Minute})
	w := r.srv.opts.windows
	declared := grpcRecvCap(limit)
	body := make([]byte, declared*3/4)
	const conns, perConn = 3, 4
	var sent atomic.Int64
	var wg sync.WaitGroup
	var attackers []*h2
	for range conns {
		h := dialH2(t, r.srv.GRPCAddr())
		attackers = append(attackers, h)
		for range perConn {
			id := h.open(t, errsvcv1.TranslationService_TranslateStream_FullMethodName, false)
			wg.Go(func() { sent.Add(int64(h.send(id, grpcFrame(declared, body), false, time.Second))) })
		}
	}
	wg.Wait()
	w.mu.Lock()
	used, waiting := w.used, len(w.queue)
	w.mu.Unlock()
	t.Logf("%d streams each declaring %d KiB and sending %d KiB: %d KiB let in; %d KiB given, %d widenings waiting",
		conns*perConn, declared>>10, len(body)>>10, sent.Load()>>10, used>>10, waiting)
	if max := int64(budget + conns*perConn*defaultStreamWindow); sent.Load() > max {
		t.Errorf("%d KiB let in, want at most the budget and the windows, %d KiB", sent.Load()>>10, max>>10)
	}
	if used > budget || used == 0 || waiting == 0 {
		t.Errorf("%d KiB given (budget %d KiB), %d waiting", used>>10, budget>>10, waiting)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st, err := r.client.TranslateStream(ctx)
	if err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	if err := st.Send(validRequest()); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Recv(); err != nil {
		t.Fatalf("a small stream message during the stall: %v", err)
	}
	if took := time.Since(began); took > time.Second {
		t.Errorf("a small stream message waited %v during the stall", took)
	}
	big := validRequest()
	big.GetLabbyError().Message = strings.Repeat("m", 200<<10)
	answered := make(chan error, 1)
	go func() {
		if err := st.Send(big); err != nil {
			answered <- err
			return
		}
		_, err := st.Recv()
		answered <- err
	}()
	select {
	case err := <-answered:
		t.Fatalf("a 200 KiB message went through a spent budget (%v)", err)
	case <-time.After(500 * time.Millisecond):
	}
	for _, h := range attackers {
		_ = h.conn.Close()
	}
	select {
	case err := <-answered:
		if err != nil {
			t.Fatalf("the 200 KiB message once the stalled streams ended: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the 200 KiB message still waits 5 s after the stalled streams ended")
	}
	_ = st.CloseSend()
	for end := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		w.mu.Lock()
		used, waiting = w.used, len(w.queue)
		w.mu.Unlock()
		if used == 0 && waiting == 0 {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("%d bytes still given, %d waiting, after every stream ended", used, waiting)
		}
	}
}
