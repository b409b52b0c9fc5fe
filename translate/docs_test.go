package translate

import (
	"testing"

	"github.com/errsvc/errsvc/internal/golden"
)

// docs/VOCABULARIES.md is rendered from the matrix; the committed copy must
// not drift from it. `make docs` (this test with -update) rewrites it.
func TestVocabulariesDocIsCurrent(t *testing.T) {
	golden.CheckGenerated(t, "docs/VOCABULARIES.md", VocabulariesMarkdown(), *update, "run make docs")
}

// ListVocabularies serves every term of every vocabulary the docs render.
func TestListVocabulariesServesEveryTerm(t *testing.T) {
	resp := Vocabularies()
	if len(resp.GetVocabularies()) != len(allVocabularies) {
		t.Fatalf("%d vocabularies served, %d known", len(resp.GetVocabularies()), len(allVocabularies))
	}
	for i, v := range resp.GetVocabularies() {
		known := allVocabularies[i]
		if v.GetName() != known.Name || len(v.GetTerms()) != len(known.Terms) {
			t.Errorf("vocabulary %s served with %d terms, want %s with %d", v.GetName(), len(v.GetTerms()), known.Name, len(known.Terms))
		}
		for j, term := range v.GetTerms() {
			if term.GetTerm() != known.Terms[j].Wire || term.GetMeaning() == "" {
				t.Errorf("%s term %d = %q (meaning %q)", v.GetName(), j, term.GetTerm(), term.GetMeaning())
			}
			if (known.Terms[j].Row == nil) != (term.GetRow() == nil) {
				t.Errorf("%s %s: row served %v, known %v", v.GetName(), term.GetTerm(), term.GetRow() != nil, known.Terms[j].Row != nil)
			}
		}
	}
}
