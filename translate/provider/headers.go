package provider

import "strings"

// headers is Answer.Headers read with names folded to lower case, so
// lookups do not depend on how the caller (or the provider) spelled them.
// Callers mostly send names already folded (HTTP/2 requires it, and the
// proto's map carries them so): then the caller's map is read as it is and
// nothing is copied.
type headers struct {
	raw    map[string]string // every name already folded
	folded map[string]string // otherwise, the folded copy
}

// newHeaders folds names to lower case. When two names differ only in case,
// the one that sorts first wins, so the result never depends on map order.
func newHeaders(in map[string]string) headers {
	for k := range in {
		if !isFolded(k) {
			return headers{folded: foldHeaders(in)}
		}
	}
	return headers{raw: in}
}

// isFolded says a name is its own fold: ASCII, no upper case, no blank at
// either end (non-ASCII names take the folding path, which knows Unicode).
func isFolded(k string) bool {
	for i := 0; i < len(k); i++ {
		if c := k[i]; c >= 0x80 || 'A' <= c && c <= 'Z' {
			return false
		}
	}
	return k == "" || !isASCIISpace(k[0]) && !isASCIISpace(k[len(k)-1])
}

func isASCIISpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

func foldHeaders(in map[string]string) map[string]string {
	h := make(map[string]string, len(in))
	from := make(map[string]string, len(in))
	for k, v := range in {
		lk := strings.ToLower(strings.TrimSpace(k))
		if prev, ok := from[lk]; ok && prev < k {
			continue
		}
		from[lk] = k
		h[lk] = strings.TrimSpace(v)
	}
	return h
}

// Headers is an answer's headers read once with their names folded
// (FoldHeaders). A caller that reads a header before Classify does (errsvc's
// policy finds a provider family by a header) passes the reading on in
// Answer.Folded, so the caller's map is walked once for both.
type Headers struct {
	h    headers
	read bool
}

// FoldHeaders reads a map of headers, names in any case.
func FoldHeaders(in map[string]string) Headers { return Headers{newHeaders(in), true} }

// Lookup returns the value of the header named name (in lower case),
// without surrounding blanks, and whether the answer has it.
func (h Headers) Lookup(name string) (string, bool) { return h.h.lookup(name) }

// headers is a.Folded when the caller read the headers already, else a
// reading of a.Headers.
func (a *Answer) headers() headers {
	if a.Folded.read {
		return a.Folded.h
	}
	return newHeaders(a.Headers)
}

// lookup is get that also says whether the header is there.
func (h headers) lookup(name string) (string, bool) {
	if h.folded != nil {
		v, ok := h.folded[name] // folded values are trimmed already
		return v, ok
	}
	v, ok := h.raw[name]
	return strings.TrimSpace(v), ok
}

// get returns the value of a header named in lower case, without
// surrounding blanks.
func (h headers) get(name string) string {
	v, _ := h.lookup(name)
	return v
}

// each calls fn with every header, its name folded and its value as get
// returns it (in no particular order).
func (h headers) each(fn func(name, value string)) {
	if h.folded != nil {
		for k, v := range h.folded {
			fn(k, v)
		}
		return
	}
	for k, v := range h.raw {
		fn(k, strings.TrimSpace(v))
	}
}
