package sanitize

import (
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
