package sanitize

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestSearchesAgainstStrings holds the layer's hand-written searches to the
// standard library's over random texts of a small alphabet (so markers
// occur, partly and whole, at every offset): indexAt (a marker found by its
// rarest byte) to strings.Index, and indexFold (ASCII case folded, found
// by its rarest letter) to the first offset strings.EqualFold accepts.
func TestSearchesAgainstStrings(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const alphabet = " eEcChHoO|LlGgIiNnDdYyBbSsTtWw:."
	markers := []string{"echo ", " LOGIN ", "name:", "identified by ", "set password ", "AUTH ", ".auth(", "e", " ", "ho"}
	for round := 0; round < 20000; round++ {
		b := make([]byte, r.IntN(64))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		s := string(b)
		m := markers[r.IntN(len(markers))]
		if r.IntN(3) == 0 && len(s) > 0 { // plant the marker, in a random case for the folded search
			p := r.IntN(len(s))
			s = s[:p] + m + s[p:]
		}
		if got, want := indexAt(s, m, anchorByte(m)), strings.Index(s, m); got != want {
			t.Fatalf("indexAt(%q, %q) = %d, want %d", s, m, got, want)
		}
		want := -1
		for i := 0; i+len(m) <= len(s); i++ {
			if strings.EqualFold(s[i:i+len(m)], m) {
				want = i
				break
			}
		}
		if got := indexFold(s, m); got != want {
			t.Fatalf("indexFold(%q, %q) = %d, want %d", s, m, got, want)
		}
	}
}
