package errsvcclient_test

import (
	"context"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/resolver"
	"google.golang.org/grpc/resolver/manual"
	"google.golang.org/grpc/status"

	errsvcclient "github.com/errsvc/errsvc/clients/go"
	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/translate"
)

// cuttingListener remembers the connections it accepted so a test can cut
// them all, as a replica's crash does, while the listener stays open.
type cuttingListener struct {
	net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func (l *cuttingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.mu.Lock()
		l.conns = append(l.conns, c)
		l.mu.Unlock()
	}
	return c, err
}

func (l *cuttingListener) cut() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, c := range l.conns {
		_ = c.Close()
	}
	l.conns = nil
}

// midAnswerServer sends its first call's response headers, then cuts every
// connection before the answer's message and trailers: the crash gRPC's
// retry policy cannot cover. Later calls translate.
type midAnswerServer struct {
	errsvcv1.UnimplementedTranslationServiceServer
	lis   *cuttingListener
	calls atomic.Int32
}

func (s *midAnswerServer) Translate(ctx context.Context, req *errsvcv1.TranslateRequest) (*errsvcv1.TranslateResponse, error) {
	if s.calls.Add(1) > 1 {
		return translate.Translate(req)
	}
	if err := grpc.SendHeader(ctx, nil); err != nil {
		return nil, err
	}
	// The headers are flushed by the transport's writer; give it the time.
	time.Sleep(50 * time.Millisecond)
	s.lis.cut()
	<-ctx.Done()
	return nil, status.FromContextError(ctx.Err()).Err()
}

func (s *midAnswerServer) start(t *testing.T) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.lis = &cuttingListener{Listener: lis}
	srv := grpc.NewServer()
	errsvcv1.RegisterTranslationServiceServer(srv, s)
	go func() { _ = srv.Serve(s.lis) }()
	t.Cleanup(srv.Stop)
	return lis.Addr().String()
}

// A replica that crashes after a call's answer began: the call fails
// UNAVAILABLE "error reading from server: EOF" and the service config
// cannot retry it (gRFC A6 commits a call at its headers). The client makes
// it once more, since a translation has no side effects; with retries off
// the caller sees the error.
func TestCallCutMidAnswerIsMadeAgain(t *testing.T) {
	s := &midAnswerServer{}
	translateSeenAs(t, dial(t, s.start(t)), &s.calls, 2)

	off := &midAnswerServer{}
	c := dial(t, off.start(t), errsvcclient.WithRetry(1, 0, 0))
	if _, err := c.Translate(context.Background(), rateLimited); status.Code(err) != codes.Unavailable {
		t.Fatalf("retries off: got %v, want UNAVAILABLE", err)
	}
	if n := off.calls.Load(); n != 1 {
		t.Fatalf("retries off: server saw %d calls, want 1", n)
	}
}

// A target that resolves to several replicas gets its calls spread over
// all of them (round_robin), with and without retries.
func TestDialSpreadsCallsOverReplicas(t *testing.T) {
	for _, opts := range [][]errsvcclient.Option{nil, {errsvcclient.WithRetry(1, 0, 0)}} {
		replicas := []*flakyServer{{}, {}, {}}
		addrs := make([]resolver.Address, len(replicas))
		for i, s := range replicas {
			addrs[i] = resolver.Address{Addr: s.start(t)}
		}
		res := manual.NewBuilderWithScheme("errsvc-replicas")
		res.InitialState(resolver.State{Addresses: addrs})
		c := dial(t, res.Scheme()+":///errsvc", append(opts, errsvcclient.WithDialOptions(grpc.WithResolvers(res)))...)
		// round_robin adds each replica as its connection becomes ready;
		// pick_first would send all 1,000 to one.
		for range 1000 {
			if _, err := c.Translate(context.Background(), rateLimited); err != nil {
				t.Fatal(err)
			}
		}
		for i, s := range replicas {
			if n := s.calls.Load(); n < 100 {
				t.Errorf("options %d: replica %d got %d calls of 1,000", len(opts), i, n)
			}
		}
	}
}
