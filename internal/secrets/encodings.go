package secrets

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"html"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"golang.org/x/text/unicode/norm"
)

// encodings are the ways a producer escapes its text, by the names
// formats.json uses. Each encodes the whole text, as a producer that
// escapes its output does.
var encodings = map[string]func(string) string{
	"json_unicode": func(s string) string {
		var b strings.Builder
		for _, r := range s {
			if r > 0xffff {
				b.WriteString(strconv.QuoteToASCII(string(r)))
				continue
			}
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		return b.String()
	},
	"percent":        url.PathEscape,
	"form":           url.QueryEscape, // spaces as '+', as a form or Python's urlencode writes them
	"double_percent": func(s string) string { return url.PathEscape(url.PathEscape(s)) },
	"html_decimal": func(s string) string {
		var b strings.Builder
		for _, r := range s {
			fmt.Fprintf(&b, "&#%d;", r)
		}
		return b.String()
	},
	"html_hex": func(s string) string {
		var b strings.Builder
		for _, r := range s {
			fmt.Fprintf(&b, "&#x%x;", r)
		}
		return b.String()
	},
	"python_bytes": func(s string) string {
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			fmt.Fprintf(&b, `\x%02x`, s[i])
		}
		return b.String()
	},
	"hex":    func(s string) string { return hex.EncodeToString([]byte(s)) },
	"base64": func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) },
	"fullwidth": func(s string) string {
		return strings.Map(func(r rune) rune {
			if r > ' ' && r < 0x7f {
				return r - 0x21 + 0xFF01
			}
			return r
		}, s)
	},
	"ansi": func(s string) string {
		var b strings.Builder
		for i, r := range s {
			if i > 0 {
				fmt.Fprintf(&b, "\x1b[%dm", 31+i%6)
			}
			b.WriteRune(r)
		}
		return b.String() + "\x1b[0m"
	},
	"wrapped": func(s string) string { // Fresh wraps through the secret instead (wrapThrough)
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			if i > 0 && i%16 == 0 {
				b.WriteByte('\n')
			}
			b.WriteByte(s[i])
		}
		return b.String()
	},
}

var (
	ansiEscape = regexp.MustCompile("\x1b\\[[0-9;]*[A-Za-z]")
	pyBytes    = regexp.MustCompile(`\\x[0-9a-fA-F]{2}`)
	hexRun     = regexp.MustCompile(`[0-9a-fA-F]{16,}`)
	b64Run     = regexp.MustCompile(`[A-Za-z0-9+/]{16,}={0,2}`)
)

// views are the ways a reader may decode an output: as it is, and undoing
// each encoding of formats.json. A secret leaks when any view holds it.
func views(out string) []string {
	vs := []string{out}
	add := func(v string) {
		if v != out {
			vs = append(vs, v)
		}
	}
	add(html.UnescapeString(out))
	p := out
	for range 3 {
		u, err := url.PathUnescape(p)
		if err != nil || u == p {
			break
		}
		p = u
		add(p)
	}
	// A form's encoding: '+' for a space, then percent escapes (the words
	// of a mnemonic are parted by '+').
	if u, err := url.QueryUnescape(out); err == nil {
		add(u)
	} else {
		add(strings.ReplaceAll(out, "+", " "))
	}
	if strings.Contains(out, `\u`) {
		if u, err := strconv.Unquote(`"` + strings.ReplaceAll(out, `"`, `\"`) + `"`); err == nil {
			add(u)
		}
	}
	add(pyBytes.ReplaceAllStringFunc(out, func(m string) string {
		v, _ := strconv.ParseUint(m[2:], 16, 8)
		return string([]byte{byte(v)})
	}))
	add(norm.NFKC.String(out))
	add(ansiEscape.ReplaceAllString(out, ""))
	add(strings.ReplaceAll(out, "\n", ""))
	add(hexRun.ReplaceAllStringFunc(out, func(m string) string {
		if len(m)%2 == 1 {
			m = m[:len(m)-1]
		}
		b, _ := hex.DecodeString(m)
		return string(b)
	}))
	add(b64Run.ReplaceAllStringFunc(out, func(m string) string {
		if b, err := base64.StdEncoding.DecodeString(m); err == nil {
			return string(b)
		}
		if b, err := base64.RawStdEncoding.DecodeString(strings.TrimRight(m, "=")); err == nil {
			return string(b)
		}
		return m
	}))
	return vs
}
