package server

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/grpc"
	testgrpc "google.golang.org/grpc/interop/grpc_testing"
)

// emptyTestService answers EmptyCall, the benchmark server's empty RPC.
type emptyTestService struct {
	testgrpc.UnimplementedTestServiceServer
}

func (emptyTestService) EmptyCall(context.Context, *testgrpc.Empty) (*testgrpc.Empty, error) {
	return &testgrpc.Empty{}, nil
}

// TestRegisterHooks checks that both hooks of Options are called and that
// what they register is served behind the same layers as errsvc's own
// calls: the gRPC interceptors and stats handler count the extra RPC, and
// the REST middleware (metrics, body limit) wraps the extra route.
func TestRegisterHooks(t *testing.T) {
	var grpcCalled, gatewayCalled int
	r := start(t, Options{
		MaxRequestBytes: 64,
		RegisterGRPC: func(s *grpc.Server) {
			grpcCalled++
			testgrpc.RegisterTestServiceServer(s, emptyTestService{})
		},
		RegisterGateway: func(mux *runtime.ServeMux) error {
			gatewayCalled++
			return mux.HandlePath(http.MethodPost, "/v1/hooktest", func(w http.ResponseWriter, r *http.Request, _ map[string]string) {
				if _, err := io.Copy(io.Discard, r.Body); err != nil {
					http.Error(w, "body", http.StatusRequestEntityTooLarge)
					return
				}
				_, _ = io.WriteString(w, "{}")
			})
		},
	})
	if grpcCalled != 1 || gatewayCalled != 1 {
		t.Fatalf("RegisterGRPC called %d times, RegisterGateway %d times; want 1 each", grpcCalled, gatewayCalled)
	}

	if _, err := testgrpc.NewTestServiceClient(r.conn).EmptyCall(context.Background(), &testgrpc.Empty{}); err != nil {
		t.Fatalf("EmptyCall on the hooked service: %v", err)
	}
	if code, body := r.post(t, "/v1/hooktest", `{}`); code != http.StatusOK || string(body) != "{}" {
		t.Fatalf("POST /v1/hooktest: HTTP %d %s, want 200 {}", code, body)
	}
	// The REST middleware's body limit applies to the hooked route.
	if code, _ := r.post(t, "/v1/hooktest", strings.Repeat("x", 200)); code != http.StatusRequestEntityTooLarge {
		t.Fatalf("oversize POST /v1/hooktest: HTTP %d, want 413 from the body limit", code)
	}

	metrics, missing := r.metricsHolding(t,
		`errsvc_requests_total{code="OK",rpc="/grpc.testing.TestService/EmptyCall",transport="grpc"} 1`,
		`errsvc_requests_total{code="OK",rpc="unknown",transport="http"} 2`,
	)
	for _, want := range missing {
		t.Errorf("/metrics lacks %s\n%s", want, grep(metrics, "errsvc_requests_total"))
	}
}

// TestRegisterGatewayError checks that an error from RegisterGateway fails
// New rather than serving without the route.
func TestRegisterGatewayError(t *testing.T) {
	boom := errors.New("boom")
	_, err := New(Options{
		GRPCAddr: "127.0.0.1:0", HTTPAddr: "127.0.0.1:0",
		RegisterGateway: func(*runtime.ServeMux) error { return boom },
	})
	if !errors.Is(err, boom) {
		t.Fatalf("New: %v, want the hook's error", err)
	}
}
