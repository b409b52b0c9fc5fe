package translate

import (
	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/translate/provider"
)

// errLimitsOnly is what decodeProvider answers for a provider answer that
// is not an error but reports rate-limit windows (a 2xx with
// x-ratelimit-remaining-*, anthropic-ratelimit-*, RateLimit): the
// translation answers the limit facet alone (translateInto), since every
// other target describes an error there is not.
var errLimitsOnly = &RequestError{Field: "provider_response", Description: "the answer carries no error; only its limit facet is answered"}

// successLimits reads a 2xx answer's rate-limit windows into the facet;
// false when it reports none (then the answer is refused, as before: there
// is nothing to translate).
func successLimits(m *model, a provider.Answer) bool {
	l := provider.SuccessLimit(a)
	if l == nil {
		return false
	}
	limitFromProvider(m, l)
	m.note(errsvcv1.NoteCode_NOTE_CODE_FIELD_DROPPED, "the answer (status %d) carries no error, only what remains of its rate limits: the limit facet alone is answered, so a client can slow down before a 429; every other target describes an error and is left out", a.Status)
	return true
}

// limitsOnly is the answer for errLimitsOnly: the limit facet and the
// notes. Its decision says to wait for the reset only when nothing is left
// of the tightest window (the next call would be refused); with room left
// there is nothing to do yet, and the decision stays empty.
func limitsOnly(m *model) *errsvcv1.TranslateResponse {
	resp := &m.store.resp
	encodeLimit(m, resp)
	if l := resp.Limit; l != nil {
		l.Decision = ""
		if l.Remaining != nil && *l.Remaining == 0 {
			l.Decision = provider.DecisionWait
		}
	}
	resp.Notes = m.notes
	return resp
}
