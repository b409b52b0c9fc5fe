package secrets

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/errsvc/errsvc/internal/golden"
)

// The outside corpora (testdata/secrets/outside): lines and files other
// projects wrote to test their own secret scanners, each with the secrets
// that project says they hold and, for each, whether errsvc is known to
// keep it (a gap, listed with its reason in the corpus file). The sanitiser's
// tests hold errsvc to each corpus as a whole; Outside hands the secrets
// errsvc finds to the walks, which put each in every text position of
// every source.

// OutsideCase is one secret of an outside corpus in the text that holds it.
type OutsideCase struct {
	Entry
	Gap bool // listed as a gap: errsvc keeps it, for the reason the corpus gives
}

// KeywordCorpus is detect-secrets' keyword detector's test cases.
type KeywordCorpus struct {
	Cases []struct {
		List, Line string
		Secret     *string
	}
	Gaps map[string]string
	Keep []string
}

// GenericCorpus is gitleaks' generic rule's fixed true and false positives.
type GenericCorpus struct {
	Tps      []struct{ Line, Secret string }
	Fps      []string
	Redacted map[string]string
}

// FilesCorpus is detect-secrets' fixture files with what detect-secrets
// finds in them.
type FilesCorpus struct {
	Files []struct {
		Name, Text string
		Findings   []struct {
			Line   int
			Secret string
		}
	}
	Gaps map[string]string
}

// SecretlintCorpus is secretlint's recommended preset's snapshot inputs
// with the secrets each reports.
type SecretlintCorpus struct {
	Cases []struct {
		Name, Text string
		Secrets    []string
	}
	Gaps   map[string]string
	Joined map[string]string
}

// GitleaksRulesCorpus is every gitleaks rule's true positives, with the
// secret gitleaks' detector reports for each.
type GitleaksRulesCorpus struct {
	Rules []struct {
		Rule  string
		Cases []struct {
			Text    string
			Secrets []string
		}
	}
}

// NoseyParkerCorpus is Nosey Parker's rules' examples with the secrets
// their patterns capture, and their negative examples.
type NoseyParkerCorpus struct {
	Rules []struct {
		ID, Name string
		Cases    []struct {
			Text    string
			Secrets []string
		}
		Negative []string
	}
	Gaps map[string]string
}

// WhispersCorpus is whispers' fixtures with the marked secrets of their
// noncompliant parts.
type WhispersCorpus struct {
	Files []struct {
		Name, Text string
		Secrets    []string
	}
	Gaps map[string]string
}

// LoadOutside reads the outside corpus file name into v.
func LoadOutside(name string, v any) error {
	root, err := golden.ModuleRoot()
	if err != nil {
		return err
	}
	data, err := os.ReadFile(filepath.Join(root, "testdata", "secrets", "outside", name))
	if err != nil {
		return err
	}
	return json.Unmarshal(data, v)
}

// Outside is every secret of the seven outside corpora (a gitleaks rule's
// first true positive only), named
// "outside:<corpus>/<case>", gaps marked.
func Outside() ([]OutsideCase, error) {
	var out []OutsideCase
	add := func(name, text, secret string, gap bool) {
		out = append(out, OutsideCase{Entry{Name: "outside:" + name, Text: text, Secret: secret}, gap})
	}
	var kw KeywordCorpus
	if err := LoadOutside("detect-secrets-keyword.json", &kw); err != nil {
		return nil, err
	}
	for n, c := range kw.Cases {
		if c.Secret != nil {
			_, gap := kw.Gaps[c.Line]
			add(fmt.Sprintf("detect-secrets-keyword/%s#%d", c.List, n), c.Line, *c.Secret, gap)
		}
	}
	var gen GenericCorpus
	if err := LoadOutside("gitleaks-generic.json", &gen); err != nil {
		return nil, err
	}
	for n, tp := range gen.Tps {
		add(fmt.Sprintf("gitleaks-generic/tp#%d", n), tp.Line, tp.Secret, false)
	}
	var files FilesCorpus
	if err := LoadOutside("detect-secrets-files.json", &files); err != nil {
		return nil, err
	}
	for _, f := range files.Files {
		for _, x := range f.Findings {
			id := fmt.Sprintf("%s:%d", f.Name, x.Line)
			_, gap := files.Gaps[id]
			add("detect-secrets-files/"+id, f.Text, x.Secret, gap)
		}
	}
	var sl SecretlintCorpus
	if err := LoadOutside("secretlint-recommend.json", &sl); err != nil {
		return nil, err
	}
	for _, c := range sl.Cases {
		for _, s := range c.Secrets {
			_, gap := sl.Gaps[c.Name+" "+s]
			add("secretlint/"+c.Name, c.Text, s, gap)
		}
	}
	var np NoseyParkerCorpus
	if err := LoadOutside("noseyparker-rules.json", &np); err != nil {
		return nil, err
	}
	for _, r := range np.Rules {
		for n, c := range r.Cases {
			for _, s := range c.Secrets {
				_, gap := np.Gaps[r.ID+" "+s]
				add(fmt.Sprintf("noseyparker/%s#%d", r.ID, n), c.Text, s, gap)
			}
		}
	}
	var wh WhispersCorpus
	if err := LoadOutside("whispers-fixtures.json", &wh); err != nil {
		return nil, err
	}
	for _, f := range wh.Files {
		for _, s := range f.Secrets {
			_, gap := wh.Gaps[f.Name+" "+s]
			add("whispers/"+f.Name, f.Text, s, gap)
		}
	}
	var gl GitleaksRulesCorpus
	if err := LoadOutside("gitleaks-rules.json", &gl); err != nil {
		return nil, err
	}
	for _, r := range gl.Rules {
		// A rule's first true positive: the sanitiser's test reads them
		// all; the walks need each rule's shape once.
		if len(r.Cases) > 0 && len(r.Cases[0].Secrets) > 0 {
			add("gitleaks-rules/"+r.Rule, r.Cases[0].Text, r.Cases[0].Secrets[0], false)
		}
	}
	return out, nil
}

// OutsideFound is Outside's secrets errsvc finds, for the walks: its gaps
// left out, the secrets shorter than 8 bytes, which an answer holds as
// words of its own ("pass", a URL's password in secretlint's cases, is in
// every "password"), and those a piece of which their text holds
// elsewhere.
func OutsideFound() ([]Entry, error) {
	cases, err := Outside()
	if err != nil {
		return nil, err
	}
	var out []Entry
	for _, c := range cases {
		if c.Gap || len(c.Secret) < 8 || walkGaps[c.Name] {
			continue
		}
		if filler(EntropyPart(c.Secret)) {
			// A fixture's filler (xoxb-0000000000-…-xxxx…): its pieces are
			// any text's ("00000000" in /metrics).
			continue
		}
		if _, own := Leaks(c.Without(), c.Secret); own {
			// Its text holds a piece of it elsewhere (whispers' keys
			// 01_hardcoded_password around the value hardcoded0): the
			// wire walks, which read the raw answer, would count the
			// text's own words. Its corpus test holds it.
			continue
		}
		out = append(out, c.Entry)
	}
	return out, nil
}

// filler reports whether s holds 8 bytes in a row of at most two
// distinct bytes.
func filler(s string) bool {
	for i := 0; i+8 <= len(s); i++ {
		a, b, n := s[i], s[i], 1
		for _, c := range []byte(s[i+1 : i+8]) {
			if c != a && c != b {
				if n == 2 {
					n = 3
					break
				}
				b, n = c, 2
			}
		}
		if n <= 2 {
			return true
		}
	}
	return false
}

// walkGaps are outside secrets errsvc finds in their text but not in every
// position the walks put them in (ERRSVC_SECRETS_EXHAUSTIVE=1 finds
// them): left out of the walks, whose plan is drawn at random, with the
// reason.
var walkGaps = map[string]bool{
	// password = @"m{{h}o)p${e]…"; quoted in a JSON string inside an MCP
	// block's JSON document: the escaped quote and the value's "{{" (a
	// template's opening) together keep both layers off it.
	"outside:detect-secrets-keyword/COMMON_C_TEST_CASES#68": true,
}
