package translate

import (
	"errors"
	"os"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/errsvc/errsvc/internal/secrets"
	"github.com/errsvc/errsvc/translate/sanitize"
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
	corpus, err := secrets.LoadAll()
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
		if path, w, ok := secrets.LeakInAnswer(resp, e.Secret, func() proto.Message {
			base, _ := Translate(p.Build(e.Without()))
			return base
		}); ok {
			leaks++
			if leaks <= 40 {
				t.Errorf("%s: %q leaked into %s", secrets.Describe(e, p), w, path)
			}
		}
	}
	t.Logf("%d positions × %d corpus entries: %d planted requests, %d leaks", len(positions), len(corpus), len(plan), leaks)
}

// The other side of the trade: no ordinary message (digests, fingerprints,
// ids, ARNs, placeholders, masks, payloads; testdata/secrets/ordinary.json
// and the fresh shapes of formats.json) is changed in any text position of
// any source: no string of the answer, read by reflection, holds a
// redaction, and no note says the text was sanitised.
func TestOrdinaryMessagesPassEveryPositionUnchanged(t *testing.T) {
	msgs, err := secrets.LoadAllOrdinary()
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) < 300 {
		t.Fatalf("%d ordinary messages, want at least 300", len(msgs))
	}
	// Text positions only: a term (a kind, a target, a map key) is an
	// identifier, and a value under a credential's name is redacted
	// whatever it holds; a position where a plain sentence does not come
	// back as it is is one of those.
	// (Terms and keys are held to an identifier's shape: a sentence with an
	// id in it is redacted whole there, which the second control finds.)
	controls := []string{"the upstream timed out after 30s", "request 123e4567-e89b-12d3-a456-426614174000 timed out",
		"commit 9fceb02d0ae598e95dc970b74767f19372d61af8 broke the build"}
	var positions []secrets.Position
	for _, p := range secrets.Positions() {
		text := true
		for _, control := range controls {
			resp, err := Translate(p.Build(control))
			if err != nil {
				text = false
				break
			}
			seen, redacted := false, false
			for _, f := range secrets.Strings(resp) {
				seen = seen || strings.Contains(f.Value, control)
				redacted = redacted || strings.Contains(f.Value, sanitize.RedactedToken)
			}
			text = text && seen && !redacted
		}
		if text {
			positions = append(positions, p)
		}
	}
	if len(positions) < 60 {
		t.Fatalf("%d text positions found; the reflective walk is broken", len(positions))
	}
	plan := secrets.Plan(len(positions), len(msgs), 1)
	changed := 0
	for _, pm := range plan {
		p, m := positions[pm[0]], msgs[pm[1]]
		resp, err := Translate(p.Build(m))
		if err != nil {
			continue // a position whose value is refused is not an answer
		}
		for _, f := range secrets.Strings(resp) {
			if strings.Count(f.Value, sanitize.RedactedToken) > strings.Count(m, sanitize.RedactedToken) {
				changed++
				t.Errorf("ordinary message changed at %s (position %s, ERRSVC_PROPERTY_SEED=%d):\n in: %q\nout: %q", f.Path, p.Name, secrets.Seed(), m, f.Value)
				break
			}
		}
	}
	t.Logf("%d text positions × %d ordinary messages: %d planted requests, %d changed", len(positions), len(msgs), len(plan), changed)
}
