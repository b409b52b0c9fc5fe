package clientconn

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"testing"

	"golang.org/x/net/http2"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// recordingListener keeps every byte its connections read from clients.
type recordingListener struct {
	net.Listener
	mu  sync.Mutex
	got bytes.Buffer
}

func (l *recordingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &recordingConn{Conn: c, l: l}, nil
}

type recordingConn struct {
	net.Conn
	l *recordingListener
}

func (c *recordingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.l.mu.Lock()
	c.l.got.Write(p[:n])
	c.l.mu.Unlock()
	return n, err
}

// pingsSent counts the PING frames (not ACKs) a client sends over calls
// sequential unary calls, read from the bytes the server received.
func pingsSent(t *testing.T, calls int, opts ...grpc.DialOption) int {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	rl := &recordingListener{Listener: lis}
	srv := grpc.NewServer()
	healthpb.RegisterHealthServer(srv, health.NewServer())
	go srv.Serve(rl)
	defer srv.Stop()
	conn, err := grpc.NewClient(lis.Addr().String(), append([]grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	client := healthpb.NewHealthClient(conn)
	for range calls {
		if _, err := client.Check(context.Background(), &healthpb.HealthCheckRequest{}); err != nil {
			t.Fatal(err)
		}
	}
	conn.Close()
	srv.Stop()
	rl.mu.Lock()
	defer rl.mu.Unlock()
	raw := rl.got.Bytes()
	if !bytes.HasPrefix(raw, []byte(http2.ClientPreface)) {
		t.Fatalf("the server read no HTTP/2 client preface")
	}
	fr := http2.NewFramer(io.Discard, bytes.NewReader(raw[len(http2.ClientPreface):]))
	pings := 0
	for {
		f, err := fr.ReadFrame()
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return pings
		}
		if err != nil {
			t.Fatal(err)
		}
		if p, ok := f.(*http2.PingFrame); ok && !p.IsAck() {
			pings++
		}
	}
}

// With grpc-go's default windows a client pings after almost every
// answer of sparse calls (BDP estimation); with Windows it does not ping.
func TestWindowsStopThePingAfterEachAnswer(t *testing.T) {
	const calls = 200
	if n := pingsSent(t, calls); n < calls/4 {
		t.Fatalf("default windows: %d pings over %d calls; the comparison below shows nothing", n, calls)
	}
	if n := pingsSent(t, calls, Windows()...); n != 0 {
		t.Fatalf("Windows: %d pings over %d calls, want none", n, calls)
	}
}
