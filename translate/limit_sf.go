package translate

import (
	"encoding/base64"
	"strconv"

	"github.com/dunglas/httpsfv"
)

// The http_error source reads back the RFC 9651 Structured Field Values
// errsvc writes into http_headers (Errsvc-Limit, a Dictionary; RateLimit
// and RateLimit-Policy, Lists of Items with Parameters) with httpsfv, a
// maintained parser, not one of ours: parsing them is not the product.
// Only the writer (appendSFString) is errsvc's, held to the parser by
// TestSFStringRoundTrip.

// sfDictionary reads a Dictionary of Items as key → text; ok false when v
// is not one (or holds an Inner List).
func sfDictionary(v string) (map[string]string, bool) {
	d, err := httpsfv.UnmarshalDictionary([]string{v})
	if err != nil {
		return nil, false
	}
	out := make(map[string]string, len(d.Names()))
	for _, k := range d.Names() {
		m, _ := d.Get(k)
		it, ok := m.(httpsfv.Item)
		if !ok {
			return nil, false
		}
		out[k] = sfText(it.Value)
	}
	return out, true
}

// sfFirstParams reads the parameters of a List's first member.
func sfFirstParams(v string) (map[string]string, bool) {
	l, err := httpsfv.UnmarshalList([]string{v})
	if err != nil || len(l) == 0 {
		return nil, false
	}
	var p *httpsfv.Params
	switch m := l[0].(type) {
	case httpsfv.Item:
		p = m.Params
	case httpsfv.InnerList:
		p = m.Params
	}
	out := map[string]string{}
	for _, k := range p.Names() {
		val, _ := p.Get(k)
		out[k] = sfText(val)
	}
	return out, true
}

// sfText is a bare item as text: a String or Display String as its
// characters, a Token as written, a number in its shortest form, a
// Boolean as ?1 or ?0, a Byte Sequence as base64.
func sfText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case httpsfv.Token:
		return string(x)
	case httpsfv.DisplayString:
		return string(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		if x {
			return "?1"
		}
		return "?0"
	case []byte:
		return base64.StdEncoding.EncodeToString(x)
	}
	return ""
}
