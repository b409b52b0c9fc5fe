package jsonwire

import (
	"encoding/json"
	"strings"
	"testing"
)

// plainRunRef is the byte loop plainRun stands for.
func plainRunRef(s string) int {
	i := 0
	for i < len(s) && plainByte(s[i]) {
		i++
	}
	return i
}

// Every byte value at every position of a word, and a byte next to every
// other: plainRun stops exactly where the byte loop stops.
func TestPlainRunIsTheByteLoop(t *testing.T) {
	base := "abcdefghijklmnopqrstuvwxyz0123456789"
	for c := 0; c < 256; c++ {
		for pos := 0; pos < 20; pos++ {
			s := base[:pos] + string([]byte{byte(c)}) + base[pos:]
			if got, want := plainRun(s), plainRunRef(s); got != want {
				t.Fatalf("plainRun(%q) = %d, the byte loop says %d", s, got, want)
			}
		}
		for d := 0; d < 256; d++ {
			s := "0123456" + string([]byte{byte(c), byte(d)}) + "0123456"
			if got, want := plainRun(s), plainRunRef(s); got != want {
				t.Fatalf("plainRun(%q) = %d, the byte loop says %d", s, got, want)
			}
		}
	}
}

// String writes what encoding/json writes for valid UTF-8 (with its HTML
// escaping off), long runs included.
func TestStringIsEncodingJSON(t *testing.T) {
	for _, s := range []string{"", "plain", strings.Repeat("a long plain run ", 20), "tab\there", "quote\"q", `back\slash`,
		"ctl\x01\x1f\x7f", "é ü 请求 \u2028", strings.Repeat("x", 7) + "\"" + strings.Repeat("y", 9)} {
		var e Encoder
		e.String(s)
		var sb strings.Builder
		enc := json.NewEncoder(&sb)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(s)
		want := strings.TrimSuffix(sb.String(), "\n")
		// encoding/json escapes U+2028 and U+2029; protojson does not.
		want = strings.NewReplacer(`\u2028`, "\u2028", `\u2029`, "\u2029").Replace(want)
		if string(e.Buf) != want {
			t.Errorf("String(%q) = %s, encoding/json says %s", s, e.Buf, want)
		}
	}
}
