package server

import (
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Drain loses no call: 200 callers, each sending REST calls one after
// another on new connections, right through a shutdown. A call is
// answered, or refused as safe to retry elsewhere (it fails to connect, or
// is answered 503 with Retry-After: not processed); none is cut off after
// its request was sent (EOF, a reset), which a client cannot safely retry.
//
// Run with new connections for every call and with kept-alive ones.
func TestDrainLosesNoCall(t *testing.T) {
	for _, keepAlive := range []bool{false, true} {
		t.Run(map[bool]string{false: "new connections", true: "kept alive"}[keepAlive], func(t *testing.T) {
			drainLosesNoCall(t, keepAlive)
		})
	}
}

func drainLosesNoCall(t *testing.T, keepAlive bool) {
	r := start(t, Options{DrainDelay: 300 * time.Millisecond, ShutdownTimeout: 10 * time.Second})
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: !keepAlive, MaxIdleConnsPerHost: 200}, Timeout: 10 * time.Second}
	url := r.base + "/v1/translate"
	const body = `{"labby_error":{"kind":"rate_limited","message":"slow down"}}`
	var answered, refused, lost atomic.Int64
	var mu sync.Mutex
	var lostErrs []string
	var wg sync.WaitGroup
	for i := 0; i < 200; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				resp, err := client.Post(url, "application/json", strings.NewReader(body))
				if err != nil {
					var op *net.OpError
					if errors.As(err, &op) && op.Op == "dial" {
						refused.Add(1) // refused at connect: nothing sent
						return
					}
					lost.Add(1)
					mu.Lock()
					if len(lostErrs) < 5 {
						lostErrs = append(lostErrs, err.Error())
					}
					mu.Unlock()
					return
				}
				_, err = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if err == nil && resp.StatusCode == http.StatusServiceUnavailable && resp.Header.Get("Retry-After") != "" {
					refused.Add(1) // "shutting down, retry elsewhere": not processed, safe
					return
				}
				if err != nil || resp.StatusCode != http.StatusOK {
					lost.Add(1)
					return
				}
				answered.Add(1)
			}
		}()
	}
	time.Sleep(300 * time.Millisecond)
	r.cancel()
	wg.Wait()
	t.Logf("through a drain: %d calls answered, %d callers refused (at connect or 503), %d calls lost", answered.Load(), refused.Load(), lost.Load())
	if lost.Load() > 0 {
		for _, l := range strings.Split(r.logs.String(), "\n") {
			if strings.Contains(l, "listener") || strings.Contains(l, "drain") {
				t.Log(l)
			}
		}
		t.Errorf("%d calls were cut off after they were sent; first errors: %v", lost.Load(), lostErrs)
	}
}
