package sanitize

import "sort"

// posMap maps each byte of a view's text (and the position just past its
// end) to the byte of the original where its source begins. It is
// piecewise: a decoding changes a text in few places, so a view holds a
// few segments instead of one entry per byte. nil maps every position to
// itself (the original).
type posMap []posSeg

// posSeg maps the view's bytes from out up to the next segment's out:
// when step is 1 they map to src, src+1, ... (bytes copied as they are);
// when step is 0 every one maps to src (the bytes an escape decodes to).
type posSeg struct{ out, src, step int }

// at is the original position of view position i.
func (m posMap) at(i int) int {
	if m == nil {
		return i
	}
	k := sort.Search(len(m), func(k int) bool { return m[k].out > i }) - 1
	s := m[k]
	return s.src + s.step*(i-s.out)
}

// posMapBuilder builds the posMap of a text written left to right.
type posMapBuilder struct {
	m   posMap
	out int // bytes written so far
}

// add maps the next n bytes written: from src on (step 1) or all to src
// (step 0), joining the last segment when it continues it.
func (b *posMapBuilder) add(n, src, step int) {
	if n <= 0 {
		return
	}
	if k := len(b.m) - 1; k >= 0 {
		last := b.m[k]
		if last.step == step && last.src+step*(b.out-last.out) == src {
			b.out += n
			return
		}
	}
	b.m = append(b.m, posSeg{out: b.out, src: src, step: step})
	b.out += n
}

// copyFrom maps the next j-i bytes written as copies of from's bytes i to
// j (their sources, through from's own map).
func (b *posMapBuilder) copyFrom(from posMap, i, j int) {
	if from == nil {
		b.add(j-i, i, 1)
		return
	}
	k := sort.Search(len(from), func(k int) bool { return from[k].out > i }) - 1
	for i < j {
		s := from[k]
		end := j
		if k+1 < len(from) && from[k+1].out < end {
			end = from[k+1].out
		}
		b.add(end-i, s.src+s.step*(i-s.out), s.step)
		i = end
		k++
	}
}

// done maps the position past the end to src and returns the map.
func (b *posMapBuilder) done(src int) posMap {
	b.m = append(b.m, posSeg{out: b.out, src: src, step: 0})
	return b.m
}
