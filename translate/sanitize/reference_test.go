package sanitize

import (
	"strings"
	"unicode/utf8"
	"unsafe"
)

// The implementations the faster code replaced, kept as references: the
// differential tests (reference_diff_test.go) require the same result.

// handScanRef is handScan as it was before its fast paths (the
// reference the differential tests hold handScan to).
func handScanRef(r *redactor) {
	s := r.s
	i := 0
	for i < len(s) {
		switch byteClass[s[i]] {
		case classOther:
			i++
			for i < len(s) && byteClass[s[i]] == classOther {
				i++
			}
		case classDash:
			if end, ok := pemBlock(s, i); ok {
				r.replace(i, end)
				i = end
				continue
			}
			i++
		case classColon:
			if from, to, ok := urlUserinfo(s, i); ok {
				r.replace(from, to)
				i = to
				continue
			}
			i++
		case classWord:
			if i > 0 && byteClass[s[i-1]] == classWord {
				i++
				continue
			}
			if next, ok := r.word(i); ok {
				i = next
				continue
			}
			// Inside escaped JSON ("failed\tsk-..."), the escape's letter
			// glues onto the token: try the word that starts after it.
			if i > 0 && s[i-1] == '\\' && strings.IndexByte("tnrbf", s[i]) >= 0 && i+1 < len(s) && byteClass[s[i+1]] == classWord {
				if next, ok := r.word(i + 1); ok {
					i = next
					continue
				}
			}
			// Not a secret at the word's start. A token glued behind '_'
			// (key_sk-proj-…, id_eyJ…) still starts a token rule.
			i++
			e := i
			for e < len(s) && byteClass[s[e]] == classWord {
				e++
			}
			if strings.IndexByte(s[i-1:e], '_') >= 0 {
				for k := i; k < e; k++ {
					if s[k-1] == '_' && s[k] != '_' {
						if next, ok := r.tokenRule(k); ok {
							e = next
							break
						}
					}
				}
			}
			i = e
		}
	}
}

// proseLineRef is proseLine as it was, on the list strings.Fields makes.
func proseLineRef(line string) bool {
	words := strings.Fields(line)
	if len(words) == 0 || authScheme(words[0]) {
		return false
	}
	for _, w := range words {
		if !plainWord(w) {
			return false
		}
	}
	return true
}

// filterRef is filter as it was, copying one non-ASCII rune at a time. It
// drops forbidden characters, replaces each run of invalid UTF-8
// bytes with one U+FFFD, and deletes prompt-injection markers until none is
// left. Marker deletion is a stack: every kept byte is pushed once; after a
// push a marker can only end at the top, and is popped. The stack never
// holds a marker, so neither does the result, and the scan is linear.
func filterRef(s string) (out string, stripped, removed bool) {
	// Fast path: nothing to drop and no byte that starts a marker.
	i := 0
	for i < len(s) {
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
	o := filterOut{s: s, n: i}
	invalid := false
	for i < len(s) {
		// A run of bytes that are kept and cannot end a marker is copied
		// at once.
		if j := i; !filterSlow[s[j]] {
			for j < len(s) && !filterSlow[s[j]] {
				j++
			}
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
