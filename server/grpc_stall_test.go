package server

import (
	"bytes"
	"context"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"

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

// stallWire records what a stallConn writes.
type stallWire struct {
	net.Conn
	mu  sync.Mutex
	out bytes.Buffer
}

func (w *stallWire) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.out.Write(p)
}

func (w *stallWire) written() []byte {
	w.mu.Lock()
	defer w.mu.Unlock()
	return bytes.Clone(w.out.Bytes())
}

// The connection reads the client's frames and passes the server's however
// their bytes are cut into reads and writes: every frame but a held
// WINDOW_UPDATE goes out whole and in order, the held one is written once
// the budget has room (here, once another stream's message has arrived,
// padding and all).
func TestStallConnFramesCutAnywhere(t *testing.T) {
	frames := func(f func(fr *http2.Framer)) []byte {
		var b bytes.Buffer
		f(http2.NewFramer(&b, nil))
		return b.Bytes()
	}
	headers := func(fr *http2.Framer, id uint32) {
		_ = fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: []byte{0x83}, EndHeaders: true})
	}
	client := append([]byte(http2.ClientPreface), frames(func(fr *http2.Framer) {
		_ = fr.WriteSettings()
		headers(fr, 1)
		headers(fr, 3)
		// Stream 1: a message declaring 10 bytes, 4 of them here, behind
		// 7 bytes of padding.
		_ = fr.WriteDataPadded(1, false, append(grpcFrame(10, nil), 1, 2, 3, 4), make([]byte, 7))
	})...)
	rest := frames(func(fr *http2.Framer) { _ = fr.WriteDataPadded(1, false, []byte{5, 6, 7, 8, 9, 10}, make([]byte, 3)) })
	var passing, server []byte
	for _, f := range []func(fr *http2.Framer){
		func(fr *http2.Framer) {
			_ = fr.WriteSettings(http2.Setting{ID: http2.SettingInitialWindowSize, Val: 64})
		},
		func(fr *http2.Framer) { _ = fr.WriteWindowUpdate(0, 1000) }, // the connection's: passes
		func(fr *http2.Framer) { _ = fr.WriteWindowUpdate(1, 80) },   // past the window: given at once
		func(fr *http2.Framer) { _ = fr.WriteWindowUpdate(3, 80) },   // past the window, the budget spent: waits
		func(fr *http2.Framer) { _ = fr.WriteWindowUpdate(3, 10) },   // within the window: passes
		func(fr *http2.Framer) { _ = fr.WriteWindowUpdate(7, 500) },  // a stream it does not know: passes
		func(fr *http2.Framer) { _ = fr.WriteData(1, false, bytes.Repeat([]byte{9}, 40)) },
		func(fr *http2.Framer) { _ = fr.WritePing(false, [8]byte{1}) },
	} {
		b := frames(f)
		server = append(server, b...)
		if !bytes.Equal(b, frames(func(fr *http2.Framer) { _ = fr.WriteWindowUpdate(1, 80) })) &&
			!bytes.Equal(b, frames(func(fr *http2.Framer) { _ = fr.WriteWindowUpdate(3, 80) })) {
			passing = append(passing, b...)
		}
	}
	grant1 := frames(func(fr *http2.Framer) { _ = fr.WriteWindowUpdate(1, 80) })
	grant3 := frames(func(fr *http2.Framer) { _ = fr.WriteWindowUpdate(3, 80) })
	for cut := 1; cut <= len(server); cut++ {
		b := &windowBudget{total: 100, perConn: 100, window: 64}
		wire := &stallWire{}
		c, _, _ := stallCreds{TransportCredentials: insecure.NewCredentials(), budget: b}.ServerHandshake(wire)
		sc := c.(*stallConn)
		for in := client; len(in) > 0; {
			k := min(cut, len(in))
			sc.scan(in[:k])
			in = in[k:]
		}
		for out := server; len(out) > 0; {
			k := min(cut, len(out))
			if n, err := sc.Write(out[:k]); n != k || err != nil {
				t.Fatalf("cut %d: Write = %d, %v", cut, n, err)
			}
			out = out[k:]
		}
		got := wire.written()
		if without := bytes.Replace(got, grant1, nil, 1); !bytes.Equal(without, passing) || len(without) == len(got) {
			t.Fatalf("cut %d: wrote\n%x\nwant the passing frames\n%x\nand stream 1's grant", cut, got, passing)
		}
		for in := rest; len(in) > 0; { // stream 1's message arrives
			k := min(cut, len(in))
			sc.scan(in[:k])
			in = in[k:]
		}
		for end := time.Now().Add(time.Second); !bytes.HasSuffix(wire.written(), grant3); time.Sleep(time.Millisecond) {
			if time.Now().After(end) {
				t.Fatalf("cut %d: stream 3's grant not written once stream 1's message arrived", cut)
			}
		}
		sc.ended(3, true)
		b.mu.Lock()
		used := b.used
		b.mu.Unlock()
		if used != 0 {
			t.Fatalf("cut %d: %d bytes still given after both messages", cut, used)
		}
	}
}

// Under TLS the connection counts the frames in the clear (after the
// handshake): large messages, unary and on a stream, are given their
// window and answered, with the budget back to nothing after, and the
// caller's certificate still reaches the server (mutual TLS).
func TestLargeMessagesOverTLS(t *testing.T) {
	ca := newCA(t, "errsvc test CA")
	r := start(t, Options{TLS: serverTLS(t, ca, ca)})
	conn, err := grpc.NewClient(r.srv.GRPCAddr(), grpc.WithTransportCredentials(credentials.NewTLS(clientTLS(t, ca, ca))))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	client := errsvcv1.NewTranslationServiceClient(conn)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	big := validRequest()
	big.GetLabbyError().Message = strings.Repeat("m", 1<<20)
	if _, err := client.Translate(ctx, big); err != nil {
		t.Fatalf("a 1 MiB unary message over TLS: %v", err)
	}
	st, err := client.TranslateStream(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := st.Send(big); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Recv(); err != nil {
			t.Fatalf("a 1 MiB stream message over TLS: %v", err)
		}
	}
	_ = st.CloseSend()
	w := r.srv.opts.windows
	for end := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		w.mu.Lock()
		used := w.used
		w.mu.Unlock()
		if used == 0 {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("%d bytes still given after the messages arrived", used)
		}
	}
}
