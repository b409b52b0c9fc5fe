package translate

import (
	"strconv"
	"strings"
)

// A reader of the RFC 9651 Structured Field Values errsvc writes into
// http_headers (Errsvc-Limit, a Dictionary; RateLimit and RateLimit-Policy,
// Lists of Items with Parameters), so http_error reads them back. It
// parses what the RFC allows of Items (Strings, Display Strings, Tokens,
// Integers, Decimals, Booleans, Byte Sequences) and rejects the rest; a
// member's value is returned as text. A dependency-free reader, not a
// library, because it runs in the engine (every build of it, the bench
// module too); the tests hold what errsvc writes to an independent parser
// (github.com/dunglas/httpsfv).

type sfReader struct {
	s  string
	i  int
	ok bool
}

func (r *sfReader) ows() {
	for r.i < len(r.s) && (r.s[r.i] == ' ' || r.s[r.i] == '\t') {
		r.i++
	}
}

func (r *sfReader) sp() {
	for r.i < len(r.s) && r.s[r.i] == ' ' {
		r.i++
	}
}

func isLCAlpha(c byte) bool { return c >= 'a' && c <= 'z' }
func isDigit(c byte) bool   { return c >= '0' && c <= '9' }

// key reads an RFC 9651 key.
func (r *sfReader) key() string {
	start := r.i
	if r.i >= len(r.s) || !(isLCAlpha(r.s[r.i]) || r.s[r.i] == '*') {
		r.ok = false
		return ""
	}
	for r.i < len(r.s) {
		c := r.s[r.i]
		if !(isLCAlpha(c) || isDigit(c) || c == '_' || c == '-' || c == '.' || c == '*') {
			break
		}
		r.i++
	}
	return r.s[start:r.i]
}

// bareItem reads one bare item as text: a String unescaped, a Display
// String decoded, anything else as written.
func (r *sfReader) bareItem() string {
	if r.i >= len(r.s) {
		r.ok = false
		return ""
	}
	switch c := r.s[r.i]; {
	case c == '"':
		return r.str()
	case c == '%' && r.i+1 < len(r.s) && r.s[r.i+1] == '"':
		return r.display()
	case c == '-' || isDigit(c):
		start := r.i
		r.i++
		for r.i < len(r.s) && (isDigit(r.s[r.i]) || r.s[r.i] == '.') {
			r.i++
		}
		return r.s[start:r.i]
	case c == '?' || c == ':' || c == '@':
		start := r.i
		r.i++
		for r.i < len(r.s) && r.s[r.i] != ';' && r.s[r.i] != ',' && r.s[r.i] != ' ' {
			r.i++
		}
		return r.s[start:r.i]
	case c == '*' || c >= 'A' && c <= 'Z' || isLCAlpha(c):
		start := r.i
		for r.i < len(r.s) && r.s[r.i] > ' ' && r.s[r.i] < 0x7f && !strings.ContainsRune(`",;()<>=?@[\]{}`, rune(r.s[r.i])) {
			r.i++
		}
		return r.s[start:r.i]
	}
	r.ok = false
	return ""
}

func (r *sfReader) str() string {
	var b strings.Builder
	for r.i++; r.i < len(r.s); r.i++ {
		c := r.s[r.i]
		switch {
		case c == '\\':
			r.i++
			if r.i >= len(r.s) || r.s[r.i] != '"' && r.s[r.i] != '\\' {
				r.ok = false
				return ""
			}
			b.WriteByte(r.s[r.i])
		case c == '"':
			r.i++
			return b.String()
		case c < 0x20 || c > 0x7e:
			r.ok = false
			return ""
		default:
			b.WriteByte(c)
		}
	}
	r.ok = false
	return ""
}

func (r *sfReader) display() string {
	var b strings.Builder
	for r.i += 2; r.i < len(r.s); r.i++ {
		c := r.s[r.i]
		switch {
		case c == '%':
			if r.i+2 >= len(r.s) {
				r.ok = false
				return ""
			}
			n, err := strconv.ParseUint(r.s[r.i+1:r.i+3], 16, 8)
			if err != nil {
				r.ok = false
				return ""
			}
			b.WriteByte(byte(n))
			r.i += 2
		case c == '"':
			r.i++
			return b.String()
		case c < 0x20 || c > 0x7e:
			r.ok = false
			return ""
		default:
			b.WriteByte(c)
		}
	}
	r.ok = false
	return ""
}

// params reads an item's parameters into out (nil: skipped).
func (r *sfReader) params(out map[string]string) {
	for r.ok && r.i < len(r.s) && r.s[r.i] == ';' {
		r.i++
		r.sp()
		k := r.key()
		v := "?1"
		if r.i < len(r.s) && r.s[r.i] == '=' {
			r.i++
			v = r.bareItem()
		}
		if out != nil && r.ok {
			out[k] = v
		}
	}
}

// next moves past a member's comma; false at the end (or on an error).
func (r *sfReader) next() bool {
	r.ows()
	if !r.ok || r.i >= len(r.s) {
		return false
	}
	if r.s[r.i] != ',' {
		r.ok = false
		return false
	}
	r.i++
	r.ows()
	if r.i >= len(r.s) {
		r.ok = false // a trailing comma
		return false
	}
	return true
}

// sfDictionary reads a Dictionary of Items as key → text; ok false when v
// is not one (an Inner List, a broken String).
func sfDictionary(v string) (map[string]string, bool) {
	r := &sfReader{s: v, ok: true}
	r.sp()
	out := map[string]string{}
	for r.ok && r.i < len(r.s) {
		k := r.key()
		val := "?1"
		if r.ok && r.i < len(r.s) && r.s[r.i] == '=' {
			r.i++
			val = r.bareItem()
		}
		r.params(nil)
		if r.ok {
			out[k] = val
		}
		if !r.next() {
			break
		}
	}
	return out, r.ok
}

// sfFirstParams reads the parameters of a List's first Item.
func sfFirstParams(v string) (map[string]string, bool) {
	r := &sfReader{s: v, ok: true}
	r.sp()
	r.bareItem()
	out := map[string]string{}
	r.params(out)
	r.ows()
	if r.ok && r.i < len(r.s) && r.s[r.i] != ',' {
		r.ok = false
	}
	return out, r.ok
}
