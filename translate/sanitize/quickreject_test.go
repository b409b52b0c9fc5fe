package sanitize

import (
	"encoding/json"
	"math/rand"
	"strings"
	"testing"

	"github.com/errsvc/errsvc/internal/secrets"
)

// The second layer's quick reject (mayHoldContextSecret) is sound: a text
// it rejects is one the whole layer, every reading run (contextPassAll),
// leaves as it is. Checked on texts nobody wrote for the reject: the
// secret corpus, the fresh and outside corpora, the ordinary texts and
// the differential texts, each whole, line by line (a short line is what
// the reject passes over), and each quoted as a JSON document's member or
// wrapped in braces and brackets (an MCP block's text, a tool's error
// object). A byte taken out of the reject's markup that a reading needs
// fails here; one it never needs (a JSON document's '{') passes.
func TestQuickRejectIsSound(t *testing.T) {
	var base []string
	entries, err := secrets.LoadAll()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		// The text, and its secret alone and after a key the reject does
		// not know: the layer may find a secret by its shape alone.
		base = append(base, e.Text, e.Secret, "v="+e.Secret, "value: "+e.Secret)
	}
	outside, err := secrets.Outside()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range outside {
		base = append(base, c.Text, c.Secret)
	}
	ordinary, err := secrets.LoadAllOrdinary()
	if err != nil {
		t.Fatal(err)
	}
	base = append(base, ordinary...)
	base = append(base, diffTexts(300)...)
	// And texts made of what the layer reads: its key words, short values,
	// separators, quotes and the markup bytes, at random.
	pieces := []string{" ", " ", "_", "-", ".", ":", ": ", "=", "\"", "'", "{", "}", "[", "]", ",", "\n", "@", "/", "::", "://",
		"hunter2", "Xy9Zq8Lm", "s3cr3t!", "123456", "abcdefgh", "user", "admin", "id", "name", "value"}
	var words []string
	for _, w := range credentialWords {
		words = append(words, w.word)
	}
	words = append(words, transcriptWords...)
	rng := rand.New(rand.NewSource(43))
	for n := 0; n < 40000; n++ {
		var sb strings.Builder
		for k := rng.Intn(8); k >= 0; k-- {
			if rng.Intn(8) == 0 { // a key word in one piece of eight
				sb.WriteString(words[rng.Intn(len(words))])
				continue
			}
			sb.WriteString(pieces[rng.Intn(len(pieces))])
		}
		base = append(base, sb.String())
	}

	seen := map[string]bool{}
	var texts []string
	add := func(s string) {
		if len(s) <= 8<<10 && !seen[s] {
			seen[s] = true
			texts = append(texts, s)
		}
	}
	for _, s := range base {
		forms := []string{s}
		if len(s) <= 8<<10 {
			forms = append(forms, strings.Split(s, "\n")...)
		}
		for _, f := range forms {
			q, _ := json.Marshal(f)
			add(f)
			add(`{"text":` + string(q) + `}`)
			add(`{` + f + `}`)
			add(`[` + f + `]`)
		}
	}
	rejected, found := 0, 0
	for _, s := range texts {
		_, changed, panicked := contextPassAllSafe(s)
		if panicked != nil {
			t.Errorf("the layer panics on %q: %v", s, panicked)
			continue
		}
		if changed {
			found++
		}
		if mayHoldContextSecret(s) {
			continue
		}
		rejected++
		if changed {
			out, _ := contextPassAll(s)
			t.Errorf("the quick reject passes over %q, which the layer redacts to %q", s, out)
		}
	}
	// The check must be able to fail: enough texts are rejected, and
	// enough hold what the layer finds.
	if rejected < 5000 || found < 2000 {
		t.Fatalf("of %d texts, %d rejected and %d found by the layer: too few to judge the reject", len(texts), rejected, found)
	}
	t.Logf("%d texts: %d rejected, %d found by the layer", len(texts), rejected, found)
}

// contextPassAllSafe is contextPassAll with a panic returned, so the test
// names the text.
func contextPassAllSafe(s string) (out string, changed bool, panicked any) {
	defer func() { panicked = recover() }()
	out, changed = contextPassAll(s)
	return out, changed, nil
}
