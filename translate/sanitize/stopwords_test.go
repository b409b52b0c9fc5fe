package sanitize

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/zricethezav/gitleaks/v8/config"
)

// TestStopWordsMatchGitleaks holds stopWords to gitleaks' own
// Allowlist.ContainsStopWord on every allowlist of the rule set in force:
// each stop word alone, inside other text, in upper case, cut by a byte,
// and random secret-shaped strings.
func TestStopWordsMatchGitleaks(t *testing.T) {
	cfg, err := readConfig(config.DefaultConfig)
	if err != nil {
		t.Fatal(err)
	}
	var lists []*config.Allowlist
	lists = append(lists, cfg.Allowlists...)
	for _, r := range cfg.Rules {
		lists = append(lists, r.Allowlists...)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./+="
	random := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return string(b)
	}
	checked, words := 0, 0
	for _, a := range lists {
		if len(a.StopWords) == 0 {
			continue
		}
		sw := newStopWords(a.StopWords)
		probe := func(s string) {
			t.Helper()
			want, _ := a.ContainsStopWord(s)
			if got := sw.contains(s); got != want {
				t.Fatalf("contains(%q) = %v, gitleaks says %v", s, got, want)
			}
			checked++
		}
		for _, w := range a.StopWords {
			words++
			probe(w)
			probe(strings.ToUpper(w))
			probe(random(8) + w + random(5))
			probe(w[:len(w)-1])
			probe(w[1:])
		}
		for range 20000 {
			probe(random(1 + rng.IntN(48)))
		}
		probe("")
	}
	if words < 1000 {
		t.Fatalf("only %d stop words in the rule set: is the generic rule's allowlist read?", words)
	}
	t.Logf("%d stop words, %d probes agree with gitleaks", words, checked)
}
