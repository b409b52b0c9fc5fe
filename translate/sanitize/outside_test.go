package sanitize

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/errsvc/errsvc/internal/secrets"
)

// An outside corpus: detect-secrets' own test cases for its keyword
// detector (testdata/secrets/outside), lines nobody here wrote. Every
// secret it finds is gone from Text's output, but for the gaps the file
// lists with their reasons (secrets.Leaks: the secret whole or a piece of
// it); a gap that no longer leaks fails too, so the list says what is
// true. Its placeholders and empty values stay.
func TestOutsideKeywordCorpus(t *testing.T) {
	var corpus secrets.KeywordCorpus
	loadOutside(t, "detect-secrets-keyword.json", &corpus)
	found, positives := 0, 0
	for _, c := range corpus.Cases {
		if c.Secret == nil {
			continue
		}
		positives++
		out := Text(c.Line, EvidenceCap)
		_, leaks := secrets.Leaks(out, *c.Secret)
		_, gap := corpus.Gaps[c.Line]
		if outsideCase(t, leaks, gap, fmt.Sprintf("%s: %q", c.List, c.Line), fmt.Sprintf("%s: %q leaks its secret: %q", c.List, c.Line, out)) {
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
	var corpus secrets.GenericCorpus
	loadOutside(t, "gitleaks-generic.json", &corpus)
	for _, tp := range corpus.Tps {
		out := Text(tp.Line, EvidenceCap)
		if _, leaks := secrets.Leaks(out, tp.Secret); leaks {
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

// outsideCase reports whether errsvc found an outside corpus's secret, and
// fails the test on a leak not listed as a gap (leak says what leaked) and
// on a listed gap that no longer leaks (which names it): the gap lists say
// what is true.
func outsideCase(t *testing.T, leaks, gap bool, which, leak string) bool {
	t.Helper()
	switch {
	case leaks && !gap:
		t.Error(leak)
	case !leaks && gap:
		t.Errorf("%s is listed as a gap and no longer leaks: take it off the list", which)
	}
	return !leaks
}

// loadOutside reads an outside corpus of testdata/secrets/outside into v.
func loadOutside(t *testing.T, name string, v any) {
	t.Helper()
	if err := secrets.LoadOutside(name, v); err != nil {
		t.Fatal(err)
	}
}

// An outside corpus of whole files: detect-secrets' config and source
// fixtures (testdata/secrets/outside/detect-secrets-files.json) with what
// detect-secrets 1.5.0 itself finds in them. Every secret it finds is gone
// from Text's output of the file, but for the listed gaps (a gap that
// stops leaking fails too); and the file keeps its shape: as many lines,
// and every line that starts with a key and its separator starts so still.
func TestOutsideFilesCorpus(t *testing.T) {
	var corpus secrets.FilesCorpus
	loadOutside(t, "detect-secrets-files.json", &corpus)
	found, findings := 0, 0
	for _, f := range corpus.Files {
		out := Text(f.Text, 1<<20)
		for _, x := range f.Findings {
			findings++
			_, leaks := secrets.Leaks(out, x.Secret)
			id := fmt.Sprintf("%s:%d", f.Name, x.Line)
			_, gap := corpus.Gaps[id]
			if outsideCase(t, leaks, gap, id, fmt.Sprintf("%s leaks %q", id, x.Secret)) {
				found++
			}
		}
		in, got := strings.Split(f.Text, "\n"), strings.Split(out, "\n")
		if len(got) != len(in) {
			t.Errorf("%s: %d lines came back of %d:\n%s", f.Name, len(got), len(in), out)
			continue
		}
		for n, line := range in {
			body := strings.TrimLeft(line, " \t")
			if _, sep, ok := keyAndSeparator(body); ok {
				head := line[:len(line)-len(body)+sep+1]
				if !strings.HasPrefix(got[n], head) {
					t.Errorf("%s:%d lost its key %q: %q", f.Name, n+1, head, got[n])
				}
			}
		}
	}
	if findings < 20 {
		t.Fatalf("%d findings read: the corpus did not load", findings)
	}
	t.Logf("%d of detect-secrets' %d findings redacted, the other %d listed as gaps", found, findings, findings-found)
}

// An outside corpus of snapshots: secretlint's recommended preset's test
// inputs (testdata/secrets/outside/secretlint-recommend.json), with each
// secret its snapshot reports. None leaks (secrets.Leaks: whole or a piece
// of it), but for the listed gaps, which must still leak; and each input,
// the negative cases too, comes back with as many lines, but for those
// listed with the reason their lines are joined.
func TestOutsideSecretlintCorpus(t *testing.T) {
	var corpus secrets.SecretlintCorpus
	loadOutside(t, "secretlint-recommend.json", &corpus)
	found, total := 0, 0
	for _, c := range corpus.Cases {
		out := Text(c.Text, 1<<20)
		for _, s := range c.Secrets {
			total++
			_, leaks := secrets.Leaks(out, s)
			_, gap := corpus.Gaps[c.Name+" "+s]
			if outsideCase(t, leaks, gap, fmt.Sprintf("%s %q", c.Name, s), fmt.Sprintf("%s leaks %q: %q", c.Name, s, out)) {
				found++
			}
		}
		_, joined := corpus.Joined[c.Name]
		if same := strings.Count(out, "\n") == strings.Count(c.Text, "\n"); same == joined {
			t.Errorf("%s: %d lines of %d came back (listed as joined: %v):\n%s", c.Name, strings.Count(out, "\n"), strings.Count(c.Text, "\n"), joined, out)
		}
	}
	if total < 100 {
		t.Fatalf("%d secrets read: the corpus did not load", total)
	}
	t.Logf("%d of secretlint's %d secrets redacted, the other %d listed as gaps", found, total, total-found)
}

// An outside corpus of formats: every gitleaks rule's true positives, as
// gitleaks' own config generator validates them
// (testdata/secrets/outside/gitleaks-rules.json), with the secret its
// detector reports. errsvc runs the same rules behind its own gates
// (keywords found once, a rule's regular expression only where its secret
// can stand): each secret is gone from the first layer's output alone, as
// from Text's, for every rule errsvc's rule set holds, and it holds them
// all.
func TestOutsideGitleaksRulesCorpus(t *testing.T) {
	var corpus secrets.GitleaksRulesCorpus
	loadOutside(t, "gitleaks-rules.json", &corpus)
	have := map[string]bool{}
	for _, r := range loadRules().rules {
		have[r.id] = true
	}
	n := 0
	for _, r := range corpus.Rules {
		if !have[r.Rule] {
			t.Errorf("gitleaks rule %s is not in errsvc's rule set", r.Rule)
		}
		for _, c := range r.Cases {
			out := Text(c.Text, 1<<20)
			first, _ := redactPass(c.Text) // the gated rules alone, as gitleaks runs them
			for _, s := range c.Secrets {
				n++
				if strings.Contains(out, s) {
					t.Errorf("%s: %q keeps %q: %q", r.Rule, c.Text, s, out)
				}
				if strings.Contains(first, s) {
					t.Errorf("%s: the first layer keeps %q of %q: %q", r.Rule, s, c.Text, first)
				}
			}
		}
	}
	if len(corpus.Rules) < 200 || n < 1000 {
		t.Fatalf("%d rules, %d secrets read: the corpus did not load", len(corpus.Rules), n)
	}
	t.Logf("%d rules, %d true positives' secrets: all redacted", len(corpus.Rules), n)
}

// An outside corpus of rules' examples: Nosey Parker's secret rules
// (testdata/secrets/outside/noseyparker-rules.json), each example with the
// secret its pattern captures. None leaks, whole or a piece that the text
// without it does not hold, but for the listed gaps, which must still
// leak. Its negative examples are kept in the file but not read: they are
// text one rule must not flag (a key of the wrong length, a FIXME the rule
// misses), not text without a secret.
func TestOutsideNoseyParkerCorpus(t *testing.T) {
	var corpus secrets.NoseyParkerCorpus
	loadOutside(t, "noseyparker-rules.json", &corpus)
	found, total := 0, 0
	for _, r := range corpus.Rules {
		for _, c := range r.Cases {
			out := Text(c.Text, 1<<20)
			for _, s := range c.Secrets {
				total++
				own := func(w string) bool {
					_, ok := secrets.Leaks(Text(strings.ReplaceAll(c.Text, s, ""), 1<<20), w)
					return ok
				}
				_, leaks := secrets.LeakPast(out, s, own)
				_, gap := corpus.Gaps[r.ID+" "+s]
				if outsideCase(t, leaks, gap, fmt.Sprintf("%s %q", r.ID, s), fmt.Sprintf("%s (%s) leaks %q: %q", r.ID, r.Name, s, out)) {
					found++
				}
			}
		}
	}
	if total < 250 {
		t.Fatalf("%d secrets read: the corpus did not load", total)
	}
	t.Logf("%d of Nosey Parker's %d secrets redacted, the other %d listed as gaps", found, total, total-found)
}

// An outside corpus of config and source files: whispers' fixtures
// (testdata/secrets/outside/whispers-fixtures.json), each in a compliant
// and a noncompliant part, the noncompliant part's secrets marked
// (hardcoded, fake). No secret is a word of the output's noncompliant part,
// and none of 12 bytes or more is in it at all, but for the listed gaps,
// which must still leak.
func TestOutsideWhispersCorpus(t *testing.T) {
	var corpus secrets.WhispersCorpus
	loadOutside(t, "whispers-fixtures.json", &corpus)
	marker := regexp.MustCompile(`(?i)non-?compliant`)
	word := regexp.MustCompile(`[^\s"'<>=:,\[\]{}()@]+`)
	found, total := 0, 0
	for _, f := range corpus.Files {
		out := Text(f.Text, 1<<20)
		m := marker.FindStringIndex(out)
		if m == nil {
			t.Errorf("%s: its noncompliant marker is gone: %q", f.Name, out)
			continue
		}
		rest := out[m[1]:]
		words := map[string]bool{}
		for _, w := range word.FindAllString(rest, -1) {
			words[strings.TrimRight(w, ".;")] = true
		}
		for _, s := range f.Secrets {
			total++
			leaks := words[s] || len(s) >= 12 && strings.Contains(rest, s)
			_, gap := corpus.Gaps[f.Name+" "+s]
			if outsideCase(t, leaks, gap, fmt.Sprintf("%s %q", f.Name, s), fmt.Sprintf("%s leaks %q: %q", f.Name, s, rest)) {
				found++
			}
		}
	}
	if total < 120 {
		t.Fatalf("%d secrets read: the corpus did not load", total)
	}
	t.Logf("%d of whispers' %d secrets redacted, the other %d listed as gaps", found, total, total-found)
}
