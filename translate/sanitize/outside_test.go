package sanitize

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/errsvc/errsvc/internal/golden"
)

// An outside corpus: detect-secrets' own test cases for its keyword
// detector (testdata/secrets/outside), lines nobody here wrote. Every
// secret it finds is gone from Text's output, but for the gaps the file
// lists with their reasons; a gap that no longer leaks fails too, so the
// list says what is true. Its placeholders and empty values stay.
func TestOutsideKeywordCorpus(t *testing.T) {
	var corpus struct {
		Cases []struct {
			List, Line string
			Secret     *string
		}
		Gaps map[string]string
		Keep []string
	}
	loadOutside(t, "detect-secrets-keyword.json", &corpus)
	found, positives := 0, 0
	for _, c := range corpus.Cases {
		if c.Secret == nil {
			continue
		}
		positives++
		out := Text(c.Line, EvidenceCap)
		leaks := strings.Contains(out, *c.Secret)
		_, gap := corpus.Gaps[c.Line]
		switch {
		case leaks && !gap:
			t.Errorf("%s: %q leaks its secret: %q", c.List, c.Line, out)
		case !leaks && gap:
			t.Errorf("%s: %q is listed as a gap and no longer leaks: take it off the list", c.List, c.Line)
		case !leaks:
			found++
		}
	}
	for _, line := range corpus.Keep {
		if out := Text(line, EvidenceCap); out != line {
			t.Errorf("%q changed: %q", line, out)
		}
	}
	if positives < 80 {
		t.Fatalf("%d positives read: the corpus did not load", positives)
	}
	t.Logf("%d of %d secrets found, the other %d listed as gaps", found, positives, positives-found)
}

// An outside corpus of the other kind: gitleaks' generic rule's fixed true
// and false positives (testdata/secrets/outside/gitleaks-generic.json).
// Each true positive's secret is gone; each false positive comes back
// unchanged, but for those the file lists as redacted, with the reason
// errsvc's reading differs; a listed one that comes back unchanged fails
// too.
func TestOutsideGenericCorpus(t *testing.T) {
	var corpus struct {
		Tps      []struct{ Line, Secret string }
		Fps      []string
		Redacted map[string]string
	}
	loadOutside(t, "gitleaks-generic.json", &corpus)
	for _, tp := range corpus.Tps {
		if out := Text(tp.Line, EvidenceCap); strings.Contains(out, tp.Secret) {
			t.Errorf("%q leaks its secret: %q", tp.Line, out)
		}
	}
	changed := 0
	for _, fp := range corpus.Fps {
		out := Text(fp, EvidenceCap)
		_, listed := corpus.Redacted[fp]
		switch {
		case out != fp && !listed:
			t.Errorf("%q changed: %q", fp, out)
		case out == fp && listed:
			t.Errorf("%q is listed as redacted and comes back unchanged: take it off the list", fp)
		case out != fp:
			changed++
		}
	}
	if len(corpus.Tps) < 5 || len(corpus.Fps) < 60 {
		t.Fatalf("%d true and %d false positives read: the corpus did not load", len(corpus.Tps), len(corpus.Fps))
	}
	t.Logf("%d true positives, %d false positives of which %d redacted (listed)", len(corpus.Tps), len(corpus.Fps), changed)
}

// loadOutside reads an outside corpus of testdata/secrets/outside into v.
func loadOutside(t *testing.T, name string, v any) {
	t.Helper()
	root, err := golden.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(root, "testdata", "secrets", "outside", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatal(err)
	}
}
