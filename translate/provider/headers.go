package provider

import "strings"

// headers is Answer.Headers with names folded to lower case, so lookups do
// not depend on how the caller (or the provider) spelled them.
type headers map[string]string

// newHeaders folds names to lower case. When two names differ only in case,
// the one that sorts first wins, so the result never depends on map order.
func newHeaders(in map[string]string) headers {
	h := make(headers, len(in))
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

// get returns the value of a header named in lower case.
func (h headers) get(name string) string { return h[name] }
