package translate

import (
	"fmt"
	"math"
	"testing"
)

// formatNote writes what fmt.Sprintf writes for the verbs and types notes use.
func TestFormatNoteIsSprintf(t *testing.T) {
	cases := []struct {
		format string
		args   []any
	}{
		{"plain", nil},
		{"kind %q and %s", []any{"rate\"limited\x00\u2028", "x"}},
		{"%d s, %d ms, %d, %d", []any{int(-3), uint32(4294967295), int32(-7), uint64(1 << 63)}},
		{"%g %g %g %g", []any{2.5, 1e21, 0.1 + 0.2, math.Inf(1)}},
		{"100%% sure: %s", []any{"yes"}},
		{"%s=%d", []any{"a", int64(math.MinInt64)}},
		{"%q", []any{"\xff invalid"}},
		{"%q %q %q %q %q", []any{"plain_term", "with \"quote\"", "back\\slash", "tab\there", "del\x7f"}},
		{"%s%s%%%q", []any{"", "a", "~ !#$"}},
	}
	for _, c := range cases {
		if got, want := formatNote(c.format, c.args), fmt.Sprintf(c.format, c.args...); got != want {
			t.Errorf("formatNote(%q) = %q, fmt says %q", c.format, got, want)
		}
	}
}

// Every note the golden vectors make is formatted without the fallback.
func TestNotesNeedNoFallback(t *testing.T) {
	before := noteFallbacks.Load()
	for name, req := range wellFormed(t) {
		if _, err := Translate(req); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	if n := noteFallbacks.Load() - before; n != 0 {
		t.Fatalf("%d note arguments of a type formatNote does not write", n)
	}
}
