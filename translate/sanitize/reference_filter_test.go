package sanitize

import (
	"unicode/utf8"
	"unsafe"
)

// filterPiecesRef is filterInto as it was before its output was copied
// lazily (one append and one piece per kept run): checkFilter holds
// filterMap's text and pieces to it.
func filterPiecesRef(s string, pieces *[]seg) (out string, stripped, removed bool) {
	// Fast path: nothing to drop and no byte that starts a marker.
	i := 0
	for i < len(s) {
		for i+8 <= len(s) && !(filterStop[s[i]] || filterStop[s[i+1]] || filterStop[s[i+2]] || filterStop[s[i+3]] ||
			filterStop[s[i+4]] || filterStop[s[i+5]] || filterStop[s[i+6]] || filterStop[s[i+7]]) {
			i += 8
		}
		if i == len(s) {
			break
		}
		b := s[i]
		if !filterStop[b] {
			i++
			continue
		}
		if b < utf8.RuneSelf {
			break
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || forbidden(r) {
			break
		}
		i += size
	}
	if i == len(s) {
		return s, false, false
	}
	o := filterRefOut{s: s, n: i, pieces: pieces}
	invalid := false
	for i < len(s) {
		// A run of bytes that are kept and cannot end a marker (valid,
		// allowed non-ASCII runes included) is copied at once.
		if j := keptRun(s, i); j > i {
			o.keep(i, j)
			invalid = false
			if i = j; i == len(s) {
				break
			}
		}
		b := s[i]
		if b >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			i += size
			switch {
			case r == utf8.RuneError && size == 1:
				stripped = true
				o.change()
				if !invalid {
					o.buf = utf8.AppendRune(o.buf, utf8.RuneError)
					invalid = true
				}
			case forbidden(r):
				stripped = true
				o.change()
			default:
				o.keep(i-size, i)
				invalid = false
			}
			continue
		}
		i++
		if (b < 0x20 && b != '\n') || b == 0x7f {
			stripped = true
			o.change()
			continue
		}
		invalid = false
		o.keep(i-1, i)
		if b != '>' && b != ']' && b != '#' && b != '<' {
			continue
		}
		for _, m := range markers {
			if m.text[len(m.text)-1] == b && hasSuffixFold(o.bytes(), m.text, m.fold) {
				o.cut(len(m.text))
				removed = true
				break
			}
		}
	}
	if !stripped && !removed {
		return s, false, false
	}
	// o.buf is not written again: the string can share its bytes.
	return unsafe.String(unsafe.SliceData(o.buf), len(o.buf)), stripped, removed
}

// filterRefOut is filter's output: s[:n] as long as nothing was dropped (no
// copy is made), then buf.
type filterRefOut struct {
	s      string
	n      int
	buf    []byte
	copied bool
	pieces *[]seg // when set: the copies made (see filterMap)
}

// keep appends s[from:to] (right after what is kept so far, until a change).
func (o *filterRefOut) keep(from, to int) {
	if o.copied {
		if o.pieces != nil {
			o.piece(from, to)
		}
		o.buf = append(o.buf, o.s[from:to]...)
		return
	}
	o.n = to
}

// piece notes that s[from:to] is copied to the end of the output.
func (o *filterRefOut) piece(from, to int) {
	p := *o.pieces
	if k := len(p) - 1; k >= 0 && p[k].s+p[k].n == len(o.buf) && p[k].r+p[k].n == from {
		p[k].n += to - from
		return
	}
	*o.pieces = append(p, seg{len(o.buf), from, to - from})
}

// change makes the output a copy, before something is dropped or added.
func (o *filterRefOut) change() {
	if !o.copied {
		o.buf = append(make([]byte, 0, len(o.s)), o.s[:o.n]...)
		o.copied = true
		if o.pieces != nil {
			*o.pieces = (*o.pieces)[:0]
			if o.n > 0 {
				*o.pieces = append(*o.pieces, seg{0, 0, o.n})
			}
		}
	}
}

// cut drops the last k bytes of the output.
func (o *filterRefOut) cut(k int) {
	if !o.copied {
		o.n -= k
		o.change()
		return
	}
	o.buf = o.buf[:len(o.buf)-k]
	if o.pieces != nil {
		p := *o.pieces
		for len(p) > 0 && p[len(p)-1].s >= len(o.buf) {
			p = p[:len(p)-1]
		}
		if k := len(p) - 1; k >= 0 && p[k].s+p[k].n > len(o.buf) {
			p[k].n = len(o.buf) - p[k].s
		}
		*o.pieces = p
	}
}

// bytes is the output so far (not to be written to).
func (o *filterRefOut) bytes() []byte {
	if o.copied {
		return o.buf
	}
	return unsafe.Slice(unsafe.StringData(o.s), o.n)
}
