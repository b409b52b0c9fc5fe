package translate

import (
	"errors"
	"os"
	"testing"

	"github.com/errsvc/errsvc/internal/secrets"
)

// No piece of any corpus secret reaches any string of any response: the
// secret is planted in every string position of every source (found by
// walking the request's descriptor: fields, map keys and values, Struct and
// Value keys and values, MCP content blocks, provider bodies and headers),
// and every string of the response is read back by reflection, ErrorInfo
// and RetryInfo unpacked from their Any. Every position meets several
// corpus entries and every entry several positions (ERRSVC_SECRETS_EXHAUSTIVE=1
// runs every pair); the server and the CLI run the same plan over REST, gRPC
// and `errsvc translate`.
func TestSecretsNeverReachAResponse(t *testing.T) {
	corpus, err := secrets.Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(corpus) < 200 {
		t.Fatalf("corpus has %d entries, want at least 200", len(corpus))
	}
	positions := secrets.Positions()
	if len(positions) < 80 {
		t.Fatalf("%d request positions found; the reflective walk is broken", len(positions))
	}
	plan := secrets.Plan(len(positions), len(corpus), 3)
	if os.Getenv("ERRSVC_SECRETS_EXHAUSTIVE") == "1" {
		// Every position with every entry (about 20,000 translations; run
		// by hand, too slow for the race-enabled suite).
		plan = plan[:0]
		for p := range positions {
			for e := range corpus {
				plan = append(plan, [2]int{p, e})
			}
		}
	}
	leaks := 0
	for _, pe := range plan {
		p, e := positions[pe[0]], corpus[pe[1]]
		resp, err := Translate(p.Build(e.Text))
		if err != nil {
			var re *RequestError
			if !errors.As(err, &re) {
				t.Fatalf("%s: %v", secrets.Describe(e, p), err)
			}
			if w, ok := secrets.Leaks(re.Error(), e.Secret); ok {
				leaks++
				t.Errorf("%s: %q leaked into the request error %q", secrets.Describe(e, p), w, re.Error())
			}
			continue
		}
		if path, w, ok := secrets.LeakIn(resp, e.Secret); ok {
			leaks++
			if leaks <= 40 {
				t.Errorf("%s: %q leaked into %s", secrets.Describe(e, p), w, path)
			}
		}
	}
	t.Logf("%d positions × %d corpus entries: %d planted requests, %d leaks", len(positions), len(corpus), len(plan), leaks)
}
