package sanitize

import (
	"testing"

	"github.com/errsvc/errsvc/internal/secrets"
)

// Ordinary error messages (ids, digests, model names, ARNs, trace ids,
// "name: problem" phrasing) come back exactly as they were.
func TestOrdinaryMessagesUnchanged(t *testing.T) {
	msgs, err := secrets.LoadOrdinary()
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) < 100 {
		t.Fatalf("%d ordinary messages, want at least 100", len(msgs))
	}
	changed := 0
	for _, m := range msgs {
		if out, rep := TextReport(m, CauseCap); out != m {
			changed++
			t.Errorf("changed (%+v):\n  in:  %q\n  out: %q", rep, m, out)
		}
	}
	t.Logf("%d of %d ordinary messages changed", changed, len(msgs))
}
