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
