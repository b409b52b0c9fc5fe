package sanitize

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// Secrets inside JSON that was escaped once or twice (an error body quoted
// inside another error body) are redacted like unescaped ones.
func TestEscapedJSONSecrets(t *testing.T) {
	cases := map[string]string{
		`body was {\"client_secret\":\"vFbSabdY3tzZMUJT_En-tta94abgtOm4ZztRkMXm\"}`:                                            "vFbSabdY3tzZMUJT",
		`{\\\"client_secret\\\":\\\"vFbSabdY3tzZMUJT_En-tta94abgtOm4ZztRkMXm\\\"}`:                                             "vFbSabdY3tzZMUJT",
		`verify failed\tsecret\twhsec_9217UmFm7GPLjSMQGbI6lVccm63QEw9k\tNo signatures`:                                         "9217UmFm7GPL",
		`{\\\"private_key\\\":\\\"-----BEGIN PRIVATE KEY-----\\\\nrEzRjta5Zj8QKJI/I0n\\\\n-----END PRIVATE KEY-----\\\\n\\\"}`: "rEzRjta5",
		`line one\nAuthorization: Bearer abcdefgh12345678`:                                                                     "abcdefgh1234",
	}
	for in, secret := range cases {
		out := Text(in, CauseCap)
		if strings.Contains(out, secret) {
			t.Errorf("Text(%q) = %q keeps %q", in, out, secret)
		}
		if Text(out, CauseCap) != out {
			t.Errorf("Text is not idempotent on %q", out)
		}
	}
}

// A redaction that begins at an escaped value begins at the escape, not at
// the byte the escape reads as: no piece of the value's encoding is left
// before it ("Pwd=%2[REDACTED]" told that the password starts with a
// character from 0x20 to 0x2F).
func TestRedactionStartsAtTheEscape(t *testing.T) {
	for in, want := range map[string]string{
		"Pwd=%25abc9Q2&x=1":             "Pwd=[REDACTED]&x=1",
		"Server=db;Pwd=%41bc9Q2zz;x=1":  "Server=db;Pwd=[REDACTED];x=1",
		"password=%25xyzQ9w2 user=ana":  "password=[REDACTED] user=ana",
		`{"password":"\u0041bc9Q2zzK"}`: `{"password":"[REDACTED]"}`,
	} {
		if got := Text(in, CauseCap); got != want {
			t.Errorf("Text(%q) = %q, want %q", in, got, want)
		}
	}
}

// partialEscape is a piece of an escape right before a redaction: what
// TestRedactionStartsAtTheEscape pins, looked for in generated texts.
var partialEscape = regexp.MustCompile(`(%[0-9A-Fa-f]?|%25|\\u[0-9A-Fa-f]{0,3}|\\)\[REDACTED\]`)

// Over generated values after generated keys, each with its first
// characters escaped in every form escapeView reads (%XX, %25XX, \uXXXX,
// once or twice): the redaction never leaves a piece of an escape before
// it, and no run of the value's own characters of 6 or more survives.
func TestNoEscapePieceBeforeARedaction(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 7))
	keys := []string{"password", "Pwd", "client_secret", "api_key", "token", "passcode", "pin"}
	seps := []string{"=", ": ", `":"`, "%3D"}
	const alnum = "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"
	escape := func(c byte, form int) string {
		switch form {
		case 0:
			return fmt.Sprintf("%%%02X", c)
		case 1:
			return fmt.Sprintf("%%25%02X", c)
		default:
			return fmt.Sprintf(`\u%04x`, c)
		}
	}
	for n := range 3000 {
		v := make([]byte, 10+rng.IntN(14))
		for i := range v {
			v[i] = alnum[rng.IntN(len(alnum))]
		}
		head := ""
		k := 1 + rng.IntN(2)
		for _, c := range v[:k] {
			head += escape(c, rng.IntN(3))
		}
		in := "request failed: " + keys[n%len(keys)] + seps[rng.IntN(len(seps))] + head + string(v[k:]) + " (retry later)"
		out := Text(in, CauseCap)
		if partialEscape.MatchString(out) {
			t.Fatalf("Text(%q) = %q: a piece of an escape before the redaction", in, out)
		}
		if rest := string(v[k:]); len(rest) >= 6 && strings.Contains(out, rest[:6]) {
			t.Fatalf("Text(%q) = %q keeps %q", in, out, rest[:6])
		}
	}
}
