package sanitize

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestPlainWordsNeedNoRule holds TextReport's shortcut to the whole
// pipeline: text plainWords lets through is what the pipeline returns, for
// prose built from every rule keyword, the hand rules' key names and random
// lower-case and hex words of every allowed length.
var plainIterations = 20000

func TestPlainWordsNeedNoRule(t *testing.T) {
	words := []string{"password", "passwd", "secret", "token", "apikey", "bearer", "authorization",
		"cookie", "session", "sig", "jwt", "pwd", "auth", "pass", "credential", "privatekey", "accesskey",
		"system", "inst", "slow", "down", "timed", "out", "no", "account", "backend", "502", "upstream"}
	for _, k := range loadRules().keywords {
		if w := plainPart(k); w != "" {
			words = append(words, w)
		}
	}
	r := rand.New(rand.NewPCG(20261201, 21))
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	const hex = "0123456789abcdef"
	randWord := func(chars string) string {
		b := make([]byte, 1+r.IntN(plainWordMax))
		for i := range b {
			b[i] = chars[r.IntN(len(chars))]
		}
		return string(b)
	}
	checked := 0
	for range plainIterations {
		n := 1 + r.IntN(8)
		parts := make([]string, n)
		for i := range parts {
			switch r.IntN(4) {
			case 0:
				parts[i] = randWord(alphabet)
			case 1:
				parts[i] = randWord(hex)
			default:
				parts[i] = words[r.IntN(len(words))]
			}
		}
		s := strings.Join(parts, " ")
		if !plainWords(s) {
			continue
		}
		checked++
		if got, rep := textReport(s, CauseCap); got != s || rep.Changed() {
			t.Fatalf("%q: the pipeline gives %q (%+v), the shortcut would return it unchanged", s, got, rep)
		}
	}
	if checked < plainIterations*3/4 {
		t.Fatalf("only %d inputs took the shortcut", checked)
	}
	for _, s := range []string{"", "a", "slow down", "timed out after 30 tries"} {
		if !plainWords(s) {
			t.Errorf("%q should take the shortcut", s)
		}
	}
	for _, s := range []string{"Slow down", "a  b", " a", "x=1", "sk-proj", "dapi" + strings.Repeat("a", 32), "tab\there", "é"} {
		if plainWords(s) {
			t.Errorf("%q must not take the shortcut", s)
		}
	}
}

// plainPart is k with every character plainWords refuses removed, capped.
func plainPart(k string) string {
	var b strings.Builder
	for i := 0; i < len(k) && b.Len() < plainWordMax; i++ {
		if c := k[i]; c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// FuzzPlainWords: whatever plainWords lets through, the pipeline leaves as it is.
func FuzzPlainWords(f *testing.F) {
	for _, s := range []string{"slow down", "bearer abc", "password is wrong", "dapi0123", "token expired 3 times"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !plainWords(s) || len(s) > CauseCap {
			return
		}
		if got, rep := textReport(s, CauseCap); got != s || rep.Changed() {
			t.Fatalf("%q: the pipeline gives %q (%+v)", s, got, rep)
		}
	})
}
