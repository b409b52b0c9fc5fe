package translate

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dunglas/httpsfv"
)

// What appendSFString (errsvc's own writer) writes, any bytes at all, is
// an RFC 9651 Dictionary member that the parser (httpsfv) reads back whole,
// directly and through sfDictionary.
func TestSFStringRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(propertySeed(t), 37))
	terms := []string{"", "rate", `a "quoted" \ term`, "équipe", "per-day %", "x\r\ny", "%\"", "\x00\x7f\xff"}
	for range 2000 {
		b := make([]byte, rng.IntN(24))
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		terms = append(terms, string(b))
	}
	for _, s := range terms {
		v := "kind=" + string(appendSFString(nil, s)) + ", scope=\"unknown\""
		d, ok := sfDictionary(v)
		// Bytes that are not UTF-8 cannot be in a Display String: they
		// come back as U+FFFD (a term from protobuf is UTF-8 already).
		s = strings.ToValidUTF8(s, "\uFFFD")
		if !ok || d["kind"] != s || d["scope"] != "unknown" {
			t.Errorf("%q: written %q, read %q (ok %v)", s, v, d["kind"], ok)
		}
		dict, err := httpsfv.UnmarshalDictionary([]string{v})
		if err != nil {
			t.Errorf("%q: written %q, not a Dictionary: %v", s, v, err)
			continue
		}
		m, _ := dict.Get("kind")
		var got string
		switch x := m.(httpsfv.Item).Value.(type) {
		case string:
			got = x
		case httpsfv.DisplayString:
			got = string(x)
		}
		if got != s {
			t.Errorf("%q: written %q, httpsfv reads %q", s, v, got)
		}
	}
}
