package sanitize

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// Escapes, glue and look-alike separators do not hide a secret.
func TestEscapesAndGlueDoNotHideSecrets(t *testing.T) {
	key := "sk-proj-" + strings.Repeat("Ab3dE", 20)
	opaque := "Zq8XwV2mL5pR9tY1uK4nB7cD0eF3gH6j"
	cases := map[string]string{
		`{"error":"bad key \u003c` + key + `\u003e"}`:                           key,
		`body: \u0022` + key + `\u0022 rejected`:                                key,
		"env key_" + key + " missing scope":                                     key,
		"Authorization: Bearer\u00a0" + opaque:                                  opaque,
		"bearer\u2003" + opaque + " expired":                                    opaque,
		"Authorization: Bearer\n" + opaque + "\nAccept: */*":                    opaque,
		"Authorization: Bearer\r\n  " + opaque:                                  opaque,
		"body=username%3Dadmin%26password%3D" + opaque + "%26x%3D1":             opaque,
		"%22client_secret%22%3A%22" + opaque + "%22":                            opaque,
		"登录失败 password：" + opaque:                                               opaque,
		"password＝" + opaque:                                                    opaque,
		"cache miss for session_eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0." + opaque: opaque,
	}
	for in, secret := range cases {
		out := Text(in, CauseCap)
		if strings.Contains(out, secret) || strings.Contains(out, secret[8:24]) {
			t.Errorf("Text(%q) = %q keeps the secret", in, out)
		}
		if Text(out, CauseCap) != out {
			t.Errorf("Text is not idempotent on %q", out)
		}
	}
}

// "name: problem" prose is not a credential, in text or in the key=value
// rule's neighbours.
func TestProseIsKept(t *testing.T) {
	for _, in := range []string{
		"password: must contain a digit", "token: expired", "sessionId: abc not found", "jwt: expired",
		"credentials: not found in ~/.aws/credentials", "Bearer authentication failed",
		"Authorization: missing in request", "cookie: expired", "oauth2: cannot fetch token: 400 Bad Request",
		"PWD=/home/runner/work/app failed",
	} {
		if out := Text(in, CauseCap); out != in {
			t.Errorf("Text(%q) = %q", in, out)
		}
	}
}

// A long unbroken run keeps the cap's worth of text; a run a secret rule
// matches is redacted whole.
func TestCapKeepsLongRuns(t *testing.T) {
	// 62 KB of minified JSON evidence.
	items := make([]map[string]any, 0, 1600)
	for i := 0; i < 1600; i++ {
		items = append(items, map[string]any{"id": i, "name": fmt.Sprintf("item-%04d", i), "ok": i%2 == 0})
	}
	blob, _ := json.Marshal(map[string]any{"items": items})
	if len(blob) < 60<<10 {
		t.Fatalf("blob is %d bytes", len(blob))
	}
	for _, c := range []int{256, CauseCap, EvidenceCap} {
		out := Text(string(blob), c)
		body := strings.TrimSuffix(out, TruncationMarker)
		if n := utf8.RuneCountInString(body); n < c*9/10 || n > c {
			t.Errorf("cap %d: minified JSON kept %d characters", c, n)
		}
		if !strings.HasPrefix(string(blob), body) {
			t.Errorf("cap %d: the kept text is not the start of the input", c)
		}
	}
	// A long hex run that is no secret: cut at the cap.
	hexRun := strings.Repeat("0123456789abcdef", 8<<10)
	if body := strings.TrimSuffix(Text(hexRun, 300), TruncationMarker); len(body) != 300 {
		t.Errorf("hex run kept %d characters, want 300", len(body))
	}
	// A long base64 private key (bare PKCS#8) and a long JWT: redacted
	// whole, nothing of them kept.
	pkcs8 := "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC" + strings.Repeat("q83Kz+/Lw", 4000)
	jwt := "eyJhbGciOiJIUzI1NiJ9." + strings.Repeat("eyJzdWIiOiIx", 3000)
	for name, s := range map[string]string{"pkcs8": pkcs8, "jwt": jwt} {
		out := Text("key "+s, 300)
		if strings.Contains(out, s[20:40]) || !strings.Contains(out, RedactedToken) {
			t.Errorf("%s: %q", name, out)
		}
	}
}
