package translate

import (
	"strings"
	"testing"

	"github.com/errsvc/errsvc/translate/provider"
)

// TestErrsvcLimitFoldedLookupIsTheWalk holds readErrsvcLimit's one lookup
// (when the classifier found every header name folded) to the walk over
// every name that it replaces.
func TestErrsvcLimitFoldedLookupIsTheWalk(t *testing.T) {
	for _, h := range []map[string]string{
		nil,
		{},
		{"errsvc-limit": "kind=rate"},
		{"Errsvc-Limit": "kind=rate"},
		{"ERRSVC-LIMIT": "kind=rate", "retry-after": "3"},
		{"errsvc-limit ": "kind=rate"},
		{"errsvc-limit": "", "content-type": "application/json"},
		{"errſvc-limit": "kind=rate"}, // a long s: folds to s in Unicode
		{"retry-after": "3", "x-ratelimit-remaining-requests": "0"},
		{"Retry-After": "3", "errsvc-limit": "kind=quota"},
	} {
		r := provider.Classify(provider.Answer{Provider: "openai", Status: 429, Headers: h, Body: `{"error":{"message":"slow down"}}`})
		if r.Class == "" {
			t.Fatalf("%v: no error read", h)
		}
		folded := true
		for k := range h {
			if !isASCII(k) || k != strings.ToLower(strings.TrimSpace(k)) {
				folded = false
			}
		}
		if r.HeadersFolded != folded {
			t.Errorf("%v: HeadersFolded = %v, want %v", h, r.HeadersFolded, folded)
		}
		if !r.HeadersFolded {
			continue
		}
		var walked string
		for k, v := range h {
			if len(k) == len(headerLimit) && strings.EqualFold(k, headerLimit) {
				walked = v
			}
		}
		if got := h[headerLimitFolded]; got != walked {
			t.Errorf("%v: lookup %q, walk %q", h, got, walked)
		}
	}
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
