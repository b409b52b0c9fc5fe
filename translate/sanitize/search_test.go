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
		if got, want := indexAt(s, m, anchorByte(m, false)), strings.Index(s, m); got != want {
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

// TestMnemonicBound holds scanView's bound and hasMnemonic's quick reject
// (mnemonicRoom) to mnemonicStretches: over random texts of BIP-39 words,
// other words and separators, every stretch of candidate words it yields
// (its words counted again here) is at most the bound, so a bound under
// 12 skips no mnemonic, and no text with a stretch is rejected.
func TestMnemonicBound(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	pieces := []string{"abandon", "zoo", "ability", "able", "about", "above", "absent", "Able", "ab", "abandonment", "x1",
		" ", " ", " ", "\n", ".", ",", "-", "_", "/", "\t", "é", "[", "0"}
	stretches := 0
	for round := 0; round < 20000; round++ {
		var b strings.Builder
		for range r.IntN(80) {
			if r.IntN(10) > 0 { // mostly words between spaces, so stretches of 12 occur
				b.WriteString(pieces[r.IntN(7)] + pieces[11+r.IntN(4)])
				continue
			}
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		v := b.String()
		bound := scanView(v).mnemonicWords
		for from, to := range mnemonicStretches(v) {
			stretches++
			n := len(strings.Fields(v[from:to]))
			if !mnemonicRoom(v) {
				t.Fatalf("%q: mnemonicRoom rejects a text with the stretch %q", v, v[from:to])
			}
			if n > bound {
				t.Fatalf("%q: a stretch of %d words (%q), bound %d", v, n, v[from:to], bound)
			}
		}
	}
	if stretches < 1000 {
		t.Fatalf("only %d stretches of 12 words: the texts do not test the bound", stretches)
	}
}

// TestRunMemoAgainstScans holds runEnd, the memo covered widens through,
// to the byte scans it replaces, over random texts of token and other
// bytes and positions visited mostly in order, as candidates are.
func TestRunMemoAgainstScans(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const alphabet = "ab-+/=_.:@ \n%"
	for round := 0; round < 2000; round++ {
		b := make([]byte, r.IntN(80))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		s := string(b)
		var m runMemo
		p := 0
		for range 20 {
			if r.IntN(5) == 0 {
				p = r.IntN(len(s) + 1) // now and then, back
			} else {
				p = min(len(s), p+r.IntN(6))
			}
			wantEnd := p
			for wantEnd < len(s) && tokenTable[s[wantEnd]] {
				wantEnd++
			}
			wantStart := p
			for wantStart > 0 && widenLeft(s[wantStart-1]) {
				wantStart--
			}
			if got := m.token.end(s, p, &tokenTable); got != wantEnd {
				t.Fatalf("round %d: end(%q, %d) = %d, want %d", round, s, p, got, wantEnd)
			}
			if got := m.left.start(s, p); got != wantStart {
				t.Fatalf("round %d: start(%q, %d) = %d, want %d", round, s, p, got, wantStart)
			}
		}
	}
}
