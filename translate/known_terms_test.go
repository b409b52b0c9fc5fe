package translate

import (
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
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

// limitTerms holds every wire term of the vocabulary's limit enums (the
// one source of truth), so a term the contract declares is never run
// through the sanitiser, nor one it does not skipped.
func TestLimitTermsAreTheContracts(t *testing.T) {
	want := map[string]bool{}
	for _, ed := range []protoreflect.EnumDescriptor{errsvcv1.LimitKind(0).Descriptor(), errsvcv1.LimitDimension(0).Descriptor(), errsvcv1.LimitScope(0).Descriptor()} {
		for _, term := range mustVocabulary(ed, "test").Terms {
			want[term.Wire] = true
			if !limitTerms[term.Wire] {
				t.Errorf("%s term %q is not in limitTerms", ed.Name(), term.Wire)
			}
		}
	}
	for term := range limitTerms {
		if !want[term] {
			t.Errorf("limitTerms holds %q, which no limit enum declares", term)
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
