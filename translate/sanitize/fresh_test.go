package sanitize

import (
	"os"
	"strings"
	"testing"

	"github.com/errsvc/errsvc/internal/secrets"
)

// The fresh corpus (testdata/secrets/formats.json, filled with values made
// on this run) through the sanitiser: no format leaks, read as it is or
// decoded; and the ordinary messages, fixed and fresh, come back unchanged.
// The wire and reflection walks (translate, server, cmd) run the same
// corpus through every position of every source.
func TestFreshFormatsDoNotLeak(t *testing.T) {
	seed := secrets.Seed()
	es, err := secrets.Fresh(seed)
	if err != nil {
		t.Fatal(err)
	}
	leaked := map[string]int{}
	for _, e := range es {
		out := Text(e.Text, 1<<20)
		// A piece the template's own text holds is not the secret's.
		own := func(w string) bool { _, ok := secrets.Leaks(Text(e.Without(), 1<<20), w); return ok }
		if _, ok := secrets.LeakPast(out, e.Secret, own); ok {
			class := strings.SplitN(strings.TrimPrefix(e.Name, "fresh:"), "/", 2)[0]
			leaked[class]++
			t.Errorf("%s leaks (seed %d)", e.Name, seed)
			if os.Getenv("ERRSVC_SHOW_LEAKS") != "" { // a local replay only: the secret is made up
				t.Logf("in  %q\nout %q", e.Text, out)
			}
		}
	}
	t.Logf("%d fresh formats, leaks by class %v (seed %d)", len(es), leaked, seed)
}

func TestOrdinaryCorpusIsUnchanged(t *testing.T) {
	msgs, err := secrets.LoadAllOrdinary()
	if err != nil {
		t.Fatal(err)
	}
	changed := 0
	for _, m := range msgs {
		if out := Text(m, 1<<20); out != m {
			changed++
			t.Errorf("changed (seed %d):\n in: %q\nout: %q", secrets.Seed(), m, out)
		}
	}
	t.Logf("%d ordinary messages, %d changed", len(msgs), changed)
}
