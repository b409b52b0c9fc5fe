package sanitize

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestPosMapAgainstSlots holds the piecewise map to the plain one it
// replaces, a slot per byte: random texts built from copied runs (of the
// original or of an earlier map, through its own segments) and decoded
// bytes, compared at every position.
func TestPosMapAgainstSlots(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 2000; round++ {
		// A chain of up to 4 maps, each built over the previous one.
		var prev posMap
		prevSlots := func(i int) int { return i }
		prevLen := 1 + r.IntN(200)
		for depth := 0; depth < 1+r.IntN(4); depth++ {
			var b posMapBuilder
			var slots []int
			for i := 0; i < prevLen; {
				n := min(prevLen-i, 1+r.IntN(12))
				switch r.IntN(3) {
				case 0, 1: // copied as it is
					b.copyFrom(prev, i, i+n)
					for k := i; k < i+n; k++ {
						slots = append(slots, prevSlots(k))
					}
				default: // decoded: m bytes from the source byte at i
					m := r.IntN(4)
					b.add(m, prevSlots(i), 0)
					for range m {
						slots = append(slots, prevSlots(i))
					}
				}
				i += n
			}
			end := prevSlots(prevLen)
			m := b.done(end)
			slots = append(slots, end)
			for i, want := range slots {
				if got := m.at(i); got != want {
					t.Fatalf("round %d depth %d: at(%d) = %d, want %d (map %v)", round, depth, i, got, want, m)
				}
			}
			prev, prevLen = m, len(slots)-1
			prevSlots = func(i int) int { return slots[i] }
			if prevLen == 0 {
				break
			}
		}
	}
}

// TestAroundKeepsTheLinesNearChanges: a later reading cut to its changes
// keeps, for every change, the lines the window promises, each byte mapped
// to the original byte it was read from; and on text whose decoding
// changes little it reads far less than the whole.
func TestAroundKeepsTheLinesNearChanges(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	lines := []string{"plain words on a line", "key=%41%42%43 value", "a &amp; b", "token\\u0041xyz", "x", "", "café ünïcode"}
	for round := 0; round < 500; round++ {
		var parts []string
		for range 1 + r.IntN(40) {
			parts = append(parts, lines[r.IntN(len(lines))])
		}
		orig := strings.Join(parts, "\n")
		v, changed := decodeOnce(view{text: orig}, false)
		if !changed {
			continue
		}
		before, after := r.IntN(3), r.IntN(3)
		w := v.around(before, after, false)
		if w.text == v.text {
			continue // most of the text is near a change: read whole
		}
		for _, p := range v.changes {
			// The lines as strings.Split counts them.
			all := strings.Split(v.text, "\n")
			at := strings.Count(v.text[:p], "\n")
			first, last := max(0, at-before), min(len(all)-1, at+after)
			from := len(strings.Join(all[:first], "\n")) + min(first, 1)
			want := strings.Join(all[first:last+1], "\n")
			// The same lines may appear more than once: one of their
			// copies must map byte for byte to them.
			found := false
			for i := 0; !found; i++ {
				k := strings.Index(w.text[i:], want)
				if k < 0 {
					break
				}
				i += k
				found = true
				for b := range len(want) {
					found = found && w.at.at(i+b) == v.at.at(from+b)
				}
			}
			if !found {
				t.Fatalf("round %d: lines %q around change %d not kept (mapped to where they were read) in %q", round, want, p, w.text)
			}
		}
	}
	in := benchInput(64 << 10)
	v := decodedView(cleanFirst(in, &Report{}))
	if w := v.around(aroundLines, aroundLines, false); len(w.text)*2 > len(v.text) {
		t.Errorf("the bench text's decoding reads %d of %d bytes again; want under half", len(w.text), len(v.text))
	}
}

// TestAroundSpansStopAtGaps: a span a reading of around's parts finds
// across the gap between two parts maps to its two pieces in the
// original, never to the unread text between them.
func TestAroundSpansStopAtGaps(t *testing.T) {
	far := strings.Repeat("plain line of words\n", 40)
	orig := "key=%41%42\n" + far + "token=%43%44"
	v, ok := decodeOnce(view{text: orig}, false)
	if !ok {
		t.Fatal("nothing decoded")
	}
	w := v.around(0, 0, false)
	if len(w.gaps) != 1 {
		t.Fatalf("around(%q) = %q with gaps %v, want two parts", v.text, w.text, w.gaps)
	}
	g := w.gaps[0]
	got := w.original([]ctxSpan{{4, g + len(partGap) + 6}}, nil)
	tok := strings.Index(orig, "token=")
	want := []ctxSpan{{4, strings.Index(orig, "\n")}, {tok, tok + 6}}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("a span across the gap of %q maps to %v, want %v", w.text, got, want)
	}
}
