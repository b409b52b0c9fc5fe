package adapters_test

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/errsvc/errsvc/clients/go/adapters"
)

// grpcStep is a scripted gRPC failure: the server answers errs in turn
// (then OK) for the service name it is asked about.
type grpcStep struct {
	name    string
	errs    []*status.Status
	calls   int  // the adapter's calls, the first included
	retried bool // ends OK
	waitMs  int64
}

func grpcSteps(t *testing.T) []grpcStep {
	must := func(st *status.Status, err error) *status.Status {
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	rateLimited := must(status.New(codes.ResourceExhausted, "rate limited").WithDetails(
		&errdetails.ErrorInfo{Reason: "RATE_LIMIT_EXCEEDED", Domain: "example.com"},
		&errdetails.RetryInfo{RetryDelay: durationpb.New(time.Second)}))
	unavailable := status.New(codes.Unavailable, "backend restarting")
	return []grpcStep{
		{name: "rate_limited", errs: []*status.Status{rateLimited}, calls: 2, retried: true, waitMs: 1000},
		{name: "unavailable", errs: []*status.Status{unavailable}, calls: 2, retried: true},
		{name: "unauthenticated", errs: repeat(status.New(codes.Unauthenticated, "token expired"), 5), calls: 1},
		{name: "invalid_argument", errs: repeat(status.New(codes.InvalidArgument, "prompt too long"), 5), calls: 1},
	}
}

func repeat(st *status.Status, n int) []*status.Status {
	out := make([]*status.Status, n)
	for i := range out {
		out[i] = st
	}
	return out
}

// scriptedHealth answers Check and Watch with each service's scripted
// errors in turn, then SERVING.
type scriptedHealth struct {
	healthpb.UnimplementedHealthServer
	mu    sync.Mutex
	steps map[string][]*status.Status
	calls map[string]int
	first map[string]time.Time
	last  map[string]time.Time
}

func (h *scriptedHealth) next(service string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := h.calls[service]
	h.calls[service]++
	if n == 0 {
		h.first[service] = time.Now()
	}
	h.last[service] = time.Now()
	if errs := h.steps[service]; n < len(errs) {
		return errs[n].Err()
	}
	return nil
}

func (h *scriptedHealth) Check(_ context.Context, r *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
	if err := h.next(r.GetService()); err != nil {
		return nil, err
	}
	return &healthpb.HealthCheckResponse{Status: healthpb.HealthCheckResponse_SERVING}, nil
}

func (h *scriptedHealth) Watch(r *healthpb.HealthCheckRequest, s grpc.ServerStreamingServer[healthpb.HealthCheckResponse]) error {
	if err := h.next(r.GetService()); err != nil {
		return err
	}
	if err := s.Send(&healthpb.HealthCheckResponse{Status: healthpb.HealthCheckResponse_SERVING}); err != nil {
		return err
	}
	// An error after the first message: never retried (output began).
	return status.Error(codes.Unavailable, "going away")
}

func startHealth(t *testing.T, steps []grpcStep) *scriptedHealth {
	h := &scriptedHealth{steps: map[string][]*status.Status{}, calls: map[string]int{}, first: map[string]time.Time{}, last: map[string]time.Time{}}
	for _, s := range steps {
		h.steps[s.name] = s.errs
	}
	return h
}

// serveHealth serves h on a loopback port and returns its address.
func serveHealth(t *testing.T, h *scriptedHealth) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	healthpb.RegisterHealthServer(srv, h)
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(srv.Stop)
	return l.Addr().String()
}

func dialHealth(t *testing.T, h *scriptedHealth, ic *adapters.Interceptor) healthpb.HealthClient {
	addr := serveHealth(t, h)
	opts := []grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}
	if ic != nil {
		opts = append(opts, grpc.WithUnaryInterceptor(ic.Unary()), grpc.WithStreamInterceptor(ic.Stream()))
	}
	conn, err := grpc.NewClient(addr, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return healthpb.NewHealthClient(conn)
}

func scaledPolicy(decided *time.Duration) adapters.Policy {
	return adapters.Policy{Sleep: func(ctx context.Context, d time.Duration) error {
		*decided += d
		time.Sleep(d / 50)
		return nil
	}}
}

func TestInterceptorUnaryAndStream(t *testing.T) {
	steps := grpcSteps(t)
	var rows []Row
	for _, mode := range []string{"unary", "stream"} {
		for _, adapter := range []bool{false, true} {
			h := startHealth(t, steps)
			var decided time.Duration
			var ic *adapters.Interceptor
			if adapter {
				ic = &adapters.Interceptor{Policy: scaledPolicy(&decided)}
			}
			c := dialHealth(t, h, ic)
			for _, s := range steps {
				decided = 0
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				var err error
				if mode == "unary" {
					_, err = c.Check(ctx, &healthpb.HealthCheckRequest{Service: s.name})
				} else {
					var ws grpc.ServerStreamingClient[healthpb.HealthCheckResponse]
					if ws, err = c.Watch(ctx, &healthpb.HealthCheckRequest{Service: s.name}); err == nil {
						if _, err = ws.Recv(); err == nil {
							// The error after the first message is not retried.
							if _, err2 := ws.Recv(); status.Code(err2) != codes.Unavailable {
								t.Errorf("%s %s: after a message, %v; want the server's UNAVAILABLE as it is", mode, s.name, err2)
							}
						}
					}
				}
				cancel()
				final := "ok"
				if err != nil {
					final = status.Code(err).String()
				}
				h.mu.Lock()
				calls := h.calls[s.name]
				waited := h.last[s.name].Sub(h.first[s.name])
				h.mu.Unlock()
				rows = append(rows, Row{"Go grpc-go interceptor (" + mode + ")", adapter, s.name, calls, waited.Milliseconds(), decided.Milliseconds(), final})
				if !adapter {
					continue
				}
				if calls != s.calls || (final == "ok") != s.retried {
					t.Errorf("%s %s: %d calls, ended %s; want %d, retried %v", mode, s.name, calls, final, s.calls, s.retried)
				}
				if s.waitMs > 0 && decided.Milliseconds() != s.waitMs {
					t.Errorf("%s %s: waited %v, want the RetryInfo's %d ms", mode, s.name, decided, s.waitMs)
				}
			}
		}
	}
	writeRows(t, "go-grpc", rows)
}

// When errsvc cannot be reached the interceptor logs it and returns the
// error as grpc-go would (no retry of its own).
func TestInterceptorFallback(t *testing.T) {
	steps := grpcSteps(t)
	tr, err := unreachable(t)
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	ic := &adapters.Interceptor{Policy: adapters.Policy{Translator: tr, Logger: slog.New(slog.NewTextHandler(&logs, nil))}}
	h := startHealth(t, steps)
	c := dialHealth(t, h, ic)
	_, err = c.Check(context.Background(), &healthpb.HealthCheckRequest{Service: "unavailable"})
	if status.Code(err) != codes.Unavailable || h.calls["unavailable"] != 1 {
		t.Errorf("%v after %d calls; want UNAVAILABLE after 1", err, h.calls["unavailable"])
	}
	if !strings.Contains(logs.String(), "falling back to the framework's own retry behaviour") {
		t.Errorf("no fallback log line: %q", logs.String())
	}
}
