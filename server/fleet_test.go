package server

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	errsvcclient "github.com/errsvc/errsvc/clients/go"
	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/translate"
	"google.golang.org/grpc"
	"google.golang.org/grpc/resolver"
	"google.golang.org/grpc/resolver/manual"
)

// TestFleetFailover runs three replicas on loopback behind one Go SDK
// client (round_robin over the resolved addresses, UNAVAILABLE retried, a
// call cut mid-answer made again), and under load takes one replica down
// abruptly (a crash: connections cut, in-flight calls lost on the server
// side) and another gracefully (SIGTERM: drain). Not one call may fail.
func TestFleetFailover(t *testing.T) {
	const (
		replicas = 3
		workers  = 8
		total    = 2000
	)
	served := make([]atomic.Int64, replicas)
	fleet := make([]*running, replicas)
	addrs := make([]resolver.Address, replicas)
	for i := range replicas {
		// Each call spends a little time in the translator, so a stopped
		// replica always has calls in flight.
		fleet[i] = start(t, Options{translate: func(req *errsvcv1.TranslateRequest) (*errsvcv1.TranslateResponse, error) {
			served[i].Add(1)
			time.Sleep(500 * time.Microsecond)
			return translate.Translate(req)
		}})
		addrs[i] = resolver.Address{Addr: fleet[i].srv.GRPCAddr()}
	}

	res := manual.NewBuilderWithScheme("errsvc-fleet")
	res.InitialState(resolver.State{Addresses: addrs})
	// The retry policy of docs/OPERATIONS.md's fleet section.
	client, err := errsvcclient.Dial(res.Scheme()+":///errsvc",
		errsvcclient.WithRetry(5, 50*time.Millisecond, time.Second),
		errsvcclient.WithDialOptions(grpc.WithResolvers(res)))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()

	var (
		done     atomic.Int64
		failures atomic.Int64
		firstErr atomic.Value
		wg       sync.WaitGroup
	)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	began := time.Now()
	for w := range workers {
		wg.Go(func() {
			for done.Add(1) <= total {
				var err error
				if w%4 != 0 {
					_, err = client.Translate(ctx, validRequest())
				} else {
					var resps []*errsvcv1.TranslateResponse
					resps, err = client.TranslateBatch(ctx, []*errsvcv1.TranslateRequest{validRequest(), validRequest()})
					if err == nil && len(resps) != 2 {
						err = fmt.Errorf("%d batch responses", len(resps))
					}
				}
				if err != nil {
					failures.Add(1)
					firstErr.CompareAndSwap(nil, err)
				}
			}
		})
	}

	waitUntil := func(n int64) {
		t.Helper()
		for done.Load() < n {
			if ctx.Err() != nil {
				t.Fatal("load stalled")
			}
			time.Sleep(time.Millisecond)
		}
	}

	// Let round_robin spread the load, then crash replica 0.
	waitUntil(total / 3)
	for i := range replicas {
		if served[i].Load() == 0 {
			t.Errorf("replica %d got no call before the crash", i)
		}
	}
	t.Logf("%v: crash replica 0", time.Since(began))
	fleet[0].srv.kill()
	afterCrash := served[0].Load()

	// Then drain replica 1 as SIGTERM would; replica 2 takes everything.
	waitUntil(2 * total / 3)
	t.Logf("%v: drain replica 1", time.Since(began))
	fleet[1].cancel()

	wg.Wait()
	t.Logf("%v: load done", time.Since(began))
	fleet[1].stop(t)
	t.Logf("%v: drained", time.Since(began))
	if n := failures.Load(); n != 0 {
		t.Fatalf("%d of %d calls failed; first: %v", n, total, firstErr.Load())
	}
	// Calls the crash caught between the transport and the translator may
	// still enter it; nothing new reaches a dead replica.
	if late := served[0].Load() - afterCrash; late > workers {
		t.Errorf("the crashed replica served %d calls after the crash", late)
	}
	t.Logf("translations per replica: %d %d %d", served[0].Load(), served[1].Load(), served[2].Load())
}
