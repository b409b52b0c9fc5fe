package server

import (
	"context"
	"testing"
)

// TestRecvBudgetShares: the gRPC receive budget's slots are shared out per
// connection (one connection holds at most half of them, so a second still
// gets its messages in), and a refused wait keeps nothing: however often a
// connection is refused while the server's slots are taken, it gets a slot
// as soon as one is free.
func TestRecvBudgetShares(t *testing.T) {
	const maxBytes = 64 << 10
	b := newRecvBudget(Options{MaxRequestBytes: maxBytes, MaxReceiveBufferBytes: 8 * int64(grpcRecvCap(maxBytes)), Metrics: NewMetrics()})
	bg := context.Background()
	gone, cancel := context.WithCancel(bg)
	cancel()
	a, c, d := b.tagConn(bg), b.tagConn(bg), b.tagConn(bg)
	goneOn := func(conn context.Context) context.Context { return &goneConn{Context: gone, conn: conn} }

	for i := range 4 {
		if !b.acquire(a) {
			t.Fatalf("connection a: message %d of its 4 refused", i+1)
		}
	}
	if b.acquire(goneOn(a)) {
		t.Fatal("connection a holds a fifth of 8 slots: one connection may hold half")
	}
	for i := range 4 {
		if !b.acquire(c) {
			t.Fatalf("connection c: message %d refused while the server had room", i+1)
		}
	}
	// The server's 8 slots are held: d is refused, again and again.
	for i := range 20 {
		if b.acquire(goneOn(d)) {
			t.Fatalf("connection d: attempt %d granted with every slot held", i+1)
		}
	}
	b.release(a)
	if !b.acquire(d) {
		t.Error("connection d refused with a slot free: its refused attempts kept its share")
	}
}

// goneConn is a caller that gave up, on conn's connection.
type goneConn struct {
	context.Context
	conn context.Context
}

func (g *goneConn) Value(key any) any { return g.conn.Value(key) }
