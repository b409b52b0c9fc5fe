package translate

import (
	"testing"

	"github.com/errsvc/errsvc/translate/sanitize"
)

// term() and metadataValue skip the sanitiser for the vocabularies' own
// terms: that is only right while every such term is its own sanitised form.
func TestKnownTermsAreClean(t *testing.T) {
	if len(knownTerms) < 50 {
		t.Fatalf("only %d known terms", len(knownTerms))
	}
	for term := range knownTerms {
		if got := sanitize.Identifier(term, shortCap); got != term {
			t.Errorf("known term %q sanitises to %q", term, got)
		}
		if got := sanitize.Text(term, metadataCap); got != term {
			t.Errorf("known term %q sanitises to %q in metadata", term, got)
		}
		// The memo answers a term from any cap not below its length.
		if got, rep := sanitize.TextReport(term, len(term)); got != term || rep != (sanitize.Report{}) || len(term) > metadataCap {
			t.Errorf("known term %q sanitises to %q, %+v at cap %d", term, got, rep, len(term))
		}
	}
}

// settleLimit skips the sanitiser for the limit facet's own terms.
func TestLimitTermsAreClean(t *testing.T) {
	if len(limitTerms) < 17 {
		t.Fatalf("only %d limit terms", len(limitTerms))
	}
	for term := range limitTerms {
		if got, rep := sanitize.TextReport(term, metadataCap); got != term || rep != (sanitize.Report{}) {
			t.Errorf("limit term %q sanitises to %q, %+v in metadata", term, got, rep)
		}
	}
}
