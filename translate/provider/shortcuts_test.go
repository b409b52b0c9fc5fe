package provider

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// The classifier's shortcuts each stand for a slower reference: the
// regexp, strings.ToLower or strconv call they replace, or the folded
// header copy. checkShortcuts holds each to its reference on one input;
// the fuzz target runs it on arbitrary ones.

var (
	decimalRe = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?$`)
	integerRe = regexp.MustCompile(`^[+-]?[0-9]+$`)
)

func checkShortcuts(t *testing.T, s string) {
	t.Helper()
	if got, want := isDecimal(s), decimalRe.MatchString(s); got != want {
		t.Errorf("isDecimal(%q) = %v, the pattern says %v", s, got, want)
	}
	// strconv.Atoi is the call isInteger replaced, but its range error
	// comes before the syntax it has not read ("18700000000000000000A"):
	// the syntax is the pattern's.
	_, err := strconv.Atoi(s)
	if isInteger(s) != integerRe.MatchString(s) || err == nil && !isInteger(s) {
		t.Errorf("isInteger(%q) = %v, Atoi: %v", s, isInteger(s), err)
	}
	for _, in := range []string{s, "\ufeff" + s, " \ufeff\t\r\n" + s, "\xef\xbb" + s} {
		if got, want := trimStreamLead(in), strings.TrimLeft(in, " \t\r\n\ufeff"); got != want {
			t.Errorf("trimStreamLead(%q) = %q, strings.TrimLeft says %q", in, got, want)
		}
	}
	if !mayHint(s) && hintRe.MatchString(s) {
		t.Errorf("mayHint(%q) is false, yet the hint pattern matches", s)
	}
	if !containsFoldASCII(s, "try again in") && codexRe.MatchString(s) {
		t.Errorf("the Codex pattern matches %q, which its pre-check skips", s)
	}
	var buf [1024]byte
	low := lower(buf[:0], s)
	if got, want := string(low.b), strings.ToLower(s); got != want {
		t.Errorf("lower(%q) = %q, want %q", s, got, want)
	}
	// The trigram filter never hides a phrase.
	for _, p := range []string{"per day", "(tpd)", "in organization ", "api key's", "concurren", "tokens per", "ab", ""} {
		if got, want := low.index(p), strings.Index(strings.ToLower(s), p); got != want {
			t.Errorf("lowered(%q).index(%q) = %d, strings.Index says %d", s, p, got, want)
		}
	}
	for _, tbl := range []*codeTable{openaiTable, googleStatusTable, bedrockTable} {
		v, k, ok := tbl.lookup(s)
		wk, wok := tbl.folded[strings.ToLower(strings.TrimSpace(s))]
		if ok != wok || k != wk || v != tbl.entries[wk] {
			t.Errorf("lookup(%q) = %v %q %v, want %q %v", s, v, k, ok, wk, wok)
		}
	}
	// Header names: read in place or folded, the same value.
	in := map[string]string{s: " v1 ", strings.ToLower(s): "v2", "retry-after": "3", "Retry-After": "4"}
	ref := foldHeaders(in)
	h := newHeaders(in)
	for name := range ref {
		if got := h.get(name); got != ref[name] {
			t.Errorf("headers %q: get(%q) = %q, want %q", in, name, got, ref[name])
		}
	}
	for k := range in {
		if got, want := h.get(k), ref[k]; got != want {
			t.Errorf("headers %q: get(%q) = %q, want %q", in, k, got, want)
		}
	}
	if len(in) > 0 {
		single := map[string]string{s: "x"}
		if got, want := newHeaders(single).get(s), foldHeaders(single)[s]; got != want {
			t.Errorf("single header %q: %q, want %q", s, got, want)
		}
	}
}

var shortcutInputs = []string{
	"", "0", "1.5", "1.", ".5", "1.2.3", "+1", "-429", "+429", "0429", "99999999999999999999999", "1e3",
	"Please try again in 1.898s.", "TRY AGAIN IN 20ms", "try  again in 3 s", "Retry after 30 seconds",
	"resets in 2m", "Reſets in 2m", "WAIT 5s", "no hint here", "wait", "await", "retrying",
	"RESOURCE_EXHAUSTED", " ThrottlingException ", "Rate_Limit_Exceeded", "İnvalid", "\u212Aelvin",
	"Retry-After", " retry-after", "retry-after ", "x-\u212Aey", "\xff\xfe", strings.Repeat("A", 2000),
	"Rate limit in Organization org-x on Tokens Per Day (TPD): per API key's budget, concurrency",
}

func TestShortcuts(t *testing.T) {
	for _, s := range shortcutInputs {
		checkShortcuts(t, s)
	}
}

func FuzzShortcuts(f *testing.F) {
	for _, s := range shortcutInputs {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkShortcuts(t, s) })
}

// The pre-checks fold ASCII only, which is exact for their words only if
// none of the words' letters has a non-ASCII case fold (as "k" and "s"
// have, with the Kelvin sign and the long s): mayHint sends any non-ASCII
// text to the pattern, the Codex pre-check relies on this.
func TestPrecheckLettersFoldInASCII(t *testing.T) {
	for _, r := range "try again in" {
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if f >= 0x80 {
				t.Errorf("%q folds with %q: the Codex pre-check would miss it", r, f)
			}
		}
	}
}
