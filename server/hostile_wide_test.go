package server

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// Six wide bodies at once (4 MiB each of about 400,000 one-byte keys,
// under the byte limit), sent over and over for two seconds, against the
// real binary at its defaults: each is refused by the JSON value limit
// before it is decoded, so the server's peak RSS grows by far less than the
// 885 MiB six such bodies took decoded, and a well-behaved caller is
// answered within a second throughout.
func TestHostileWideJSON(t *testing.T) {
	p := startProc(t)
	warm(t, p)
	base := p.kib(t, "VmRSS")
	var b strings.Builder
	b.WriteString(`{"labby_error":{"kind":"x","message":"m","detail":{`)
	for i := 0; b.Len() < 4<<20-64; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"` + string(rune('a'+i%26)) + `":1`)
	}
	b.WriteString(`}}}`)
	body := b.String()
	stop := time.Now().Add(2 * time.Second)
	var wg sync.WaitGroup
	var mu sync.Mutex
	codes := map[int]int{}
	for range 6 {
		wg.Go(func() {
			for time.Now().Before(stop) {
				resp, err := http.Post("http://"+p.httpAddr+"/v1/translate", "application/json", strings.NewReader(body))
				if err != nil {
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				mu.Lock()
				codes[resp.StatusCode]++
				mu.Unlock()
			}
		})
	}
	// A well-behaved caller meanwhile, over gRPC.
	client := errsvcv1.NewTranslationServiceClient(dialGRPC(t, p))
	var worst time.Duration
	calls := 0
	for time.Now().Before(stop) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		began := time.Now()
		_, err := client.Translate(ctx, validRequest())
		cancel()
		if err != nil {
			t.Fatalf("a well-behaved call under the attack: %v", err)
		}
		worst = max(worst, time.Since(began))
		calls++
		time.Sleep(20 * time.Millisecond)
	}
	wg.Wait()
	peak := p.kib(t, "VmHWM")
	growth := (peak - base) / 1024
	t.Logf("six 4 MiB wide bodies at once for 2 s (answers by status: %v): RSS %d MiB before, peak %d MiB (growth %d MiB); a well-behaved caller: %d calls, the slowest %v",
		codes, base/1024, peak/1024, growth, calls, worst.Round(time.Millisecond))
	if codes[http.StatusBadRequest] == 0 {
		t.Errorf("no wide body was refused (answers %v)", codes)
	}
	if growth > 128 {
		t.Errorf("RSS grew by %d MiB, want at most 128", growth)
	}
	if worst > time.Second {
		t.Errorf("a well-behaved caller waited %v, want at most 1 s", worst)
	}
}
