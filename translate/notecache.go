package translate

import (
	"sync"
	"sync/atomic"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// noteTerms is m.note for a note of three string arguments. When every
// argument is a vocabulary term (knownTerms), the text is made once per
// format and terms and kept: those notes (what the agent projection cannot
// carry, say) are written for most translations, and the terms are a
// finite set, so the cache stays small; any other argument is formatted as
// m.note formats it. Issue 42's figure for the cache: a +1.8% / +0.6%
// alone (3 rounds, noise); the set of five paths docs/TESTING.md lists,
// a +5.2% / +6.7%, c +4.0% / +4.2% (bench/ab.sh, 5 rounds, 2026-12-05).
func (m *model) noteTerms(code errsvcv1.NoteCode, format, a, b, c string) {
	if !knownTerms[a] || !knownTerms[b] || !knownTerms[c] {
		m.note(code, format, a, b, c)
		return
	}
	m.noteCached(code, noteKey{format, a, b, c})
}

// noteTerm is noteTerms for a note of one string argument.
func (m *model) noteTerm(code errsvcv1.NoteCode, format, a string) {
	if !knownTerms[a] {
		m.note(code, format, a)
		return
	}
	m.noteCached(code, noteKey{format: format, a: a})
}

// noteCached notes the text of key's format and terms (formatNote reads as
// many as the format has verbs): made once, then kept.
func (m *model) noteCached(code errsvcv1.NoteCode, key noteKey) {
	if p := noteTexts.Load(); p != nil {
		if text, ok := (*p)[key]; ok {
			m.note(code, text)
			return
		}
	}
	text := formatNote(key.format, []any{key.a, key.b, key.c})
	noteTextsMu.Lock()
	if old := noteTexts.Load(); old == nil || len(*old) < maxNoteTexts {
		next := make(map[noteKey]string, 1+lenOf(old))
		if old != nil {
			for k, v := range *old {
				next[k] = v
			}
		}
		next[key] = text
		noteTexts.Store(&next)
	}
	noteTextsMu.Unlock()
	m.note(code, text)
}

type noteKey struct{ format, a, b, c string }

// noteTexts is copied on write: a new key is rare after the first
// translations, and a read is then one lookup without a lock.
var (
	noteTexts   atomic.Pointer[map[noteKey]string]
	noteTextsMu sync.Mutex
)

const maxNoteTexts = 4096

func lenOf(p *map[noteKey]string) int {
	if p == nil {
		return 0
	}
	return len(*p)
}
