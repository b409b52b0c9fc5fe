package provider

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// appendASCIILower is strings.ToLower for every ASCII text that fits, at
// every alignment, and refuses any other.
func TestAppendASCIILowerIsToLower(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 5))
	for n := range 200 {
		b := make([]byte, n%70)
		for i := range b {
			b[i] = byte(rng.IntN(256))
			if rng.IntN(4) > 0 {
				b[i] &= 0x7f
			}
		}
		for _, edge := range []byte{'@', 'A', 'Z', '[', '`', 'a', 'z', '{', 0x7f, 0x80} {
			if len(b) > 0 {
				b[rng.IntN(len(b))] = edge
			}
		}
		s := string(b)
		var buf [64]byte
		got, ok := appendASCIILower(buf[:0], s)
		ascii := !strings.ContainsFunc(s, func(r rune) bool { return r >= 0x80 }) && !strings.Contains(s, "\uFFFD")
		for i := 0; i < len(s); i++ {
			if s[i] >= 0x80 {
				ascii = false
			}
		}
		switch {
		case ok != (ascii && len(s) <= 64):
			t.Fatalf("appendASCIILower(%q) ok = %v", s, ok)
		case ok && string(got) != strings.ToLower(s):
			t.Fatalf("appendASCIILower(%q) = %q, want %q", s, got, strings.ToLower(s))
		}
		// Appending after a prefix keeps the prefix.
		pre := append(buf[:0], "AB"...)
		if got, ok := appendASCIILower(pre, s); ok && string(got) != "AB"+strings.ToLower(s) {
			t.Fatalf("appendASCIILower(AB, %q) = %q", s, got)
		}
	}
}

// match with the trigram filter finds what a plain search of every phrase
// finds, on texts made of the phrases themselves, cut and joined.
func TestMatchFilterMissesNothing(t *testing.T) {
	tables := [][]phrase{overflowPhrases, notOverflowPhrases, oversizePhrases, authPhrases, billingPhrases, windowPhrases}
	var all []string
	for _, tb := range tables {
		for _, p := range tb {
			all = append(all, p.text)
		}
	}
	rng := rand.New(rand.NewPCG(18, 6))
	for range 5000 {
		var sb strings.Builder
		for range rng.IntN(4) + 1 {
			p := all[rng.IntN(len(all))]
			from, to := rng.IntN(3), len(p)-rng.IntN(3)
			if rng.IntN(2) == 0 || from >= to {
				from, to = 0, len(p)
			}
			sb.WriteString(p[from:to])
			sb.WriteString([]string{" ", "", ": ", "x"}[rng.IntN(4)])
		}
		text := sb.String()
		var g gramSet
		g.fill([]byte(text))
		for _, tb := range tables {
			for _, weakOK := range []bool{true, false} {
				got, gotOK := match(&g, []byte(text), newPhraseSet(tb), weakOK)
				var want phrase
				wantOK := false
				for _, p := range tb {
					if (weakOK || !p.weak) && strings.Contains(text, p.text) {
						want, wantOK = p, true
						break
					}
				}
				if got != want || gotOK != wantOK {
					t.Fatalf("match(%q) = %v %v, a plain search finds %v %v", text, got, gotOK, want, wantOK)
				}
			}
		}
	}
}
