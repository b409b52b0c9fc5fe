package server

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
)

// TestDrainWithoutLoss is SIGTERM with calls in flight: Serve's context is
// cancelled (as cmd/errsvc does on SIGTERM) while gRPC and REST calls are
// inside the translator. Readiness must turn false at once, new calls must
// be refused once the drain delay is over, and every call already in flight
// must complete OK.
func TestDrainWithoutLoss(t *testing.T) {
	const perTransport = 6
	const drainDelay = 400 * time.Millisecond
	hook := newBlocking()
	t.Cleanup(hook.open)
	r := start(t, Options{translate: hook.translate, DrainDelay: drainDelay})
	ctx := context.Background()

	// Probes and post-shutdown calls use their own connections, opened now.
	probe := &http.Client{Transport: &http.Transport{}, Timeout: 5 * time.Second}
	defer probe.CloseIdleConnections()
	if code := getStatus(t, probe, r.base+"/readyz"); code != http.StatusOK {
		t.Fatalf("/readyz before shutdown: HTTP %d", code)
	}
	health := healthpb.NewHealthClient(r.conn)

	type result struct {
		transport string
		err       error
	}
	results := make(chan result, 2*perTransport)
	var wg sync.WaitGroup
	for range perTransport {
		wg.Go(func() {
			resp, err := r.client.Translate(ctx, validRequest())
			if err == nil && resp.GetHttpStatus() != http.StatusTooManyRequests {
				err = status.Errorf(codes.Internal, "wrong answer: %v", resp)
			}
			results <- result{"grpc", err}
		})
		wg.Go(func() {
			client := &http.Client{Transport: &http.Transport{}}
			resp, err := client.Post(r.base+"/v1/translate", "application/json", strings.NewReader(validJSON))
			if err == nil {
				body, _ := io.ReadAll(resp.Body)
				_ = resp.Body.Close()
				if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"http_status":429`) {
					err = &httpStatusError{resp.StatusCode}
				}
			}
			results <- result{"http", err}
		})
	}
	hook.waitInside(t, 2*perTransport)

	began := time.Now()
	r.cancel() // what SIGTERM does

	// Readiness turns false at once, on both probes, while still serving.
	waitFor(t, func() bool { return getStatus(t, probe, r.base+"/readyz") == http.StatusServiceUnavailable }, "/readyz 503")
	if resp, err := health.Check(ctx, &healthpb.HealthCheckRequest{}); err != nil || resp.GetStatus() != healthpb.HealthCheckResponse_NOT_SERVING {
		t.Errorf("gRPC health during the drain delay: %v %v, want NOT_SERVING", resp.GetStatus(), err)
	}
	if time.Since(began) >= drainDelay {
		t.Fatalf("readiness took %v to turn false", time.Since(began))
	}

	// After the drain delay new calls are refused on both ports, while the
	// calls in flight are still held.
	time.Sleep(time.Until(began.Add(drainDelay + 100*time.Millisecond)))
	if c, err := net.DialTimeout("tcp", r.srv.HTTPAddr(), time.Second); err == nil {
		_ = c.Close()
		t.Error("HTTP port still accepts connections after shutdown began")
	}
	fresh, err := grpc.NewClient(r.srv.GRPCAddr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	callCtx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if _, err := errsvcv1.NewTranslationServiceClient(fresh).Translate(callCtx, validRequest()); status.Code(err) != codes.Unavailable {
		t.Errorf("new gRPC connection after shutdown began: %v, want UNAVAILABLE", err)
	}
	if _, err := r.client.Translate(callCtx, validRequest()); status.Code(err) != codes.Unavailable {
		t.Errorf("new gRPC call on an open connection after shutdown began: %v, want UNAVAILABLE", err)
	}
	select {
	case err := <-r.done:
		t.Fatalf("Serve returned (%v) with calls in flight", err)
	default:
	}

	// Let the held calls finish: none may be lost.
	hook.open()
	wg.Wait()
	close(results)
	n := 0
	for res := range results {
		n++
		if res.err != nil {
			t.Errorf("in-flight %s call lost in the drain: %v", res.transport, res.err)
		}
	}
	if n != 2*perTransport {
		t.Errorf("%d results, want %d", n, 2*perTransport)
	}
	r.stop(t)
	if hook.inside.Load() != 2*perTransport {
		t.Errorf("%d calls reached the translator, want only the %d in flight", hook.inside.Load(), 2*perTransport)
	}
}

func getStatus(t *testing.T, c *http.Client, url string) int {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		return 0
	}
	_ = resp.Body.Close()
	return resp.StatusCode
}
