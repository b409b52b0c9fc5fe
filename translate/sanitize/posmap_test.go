package sanitize

import (
	"math/rand/v2"
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
