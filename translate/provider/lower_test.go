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
