package translate

import (
	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// decodeHTTPError reads a bare HTTP error from a service that is not a
// model provider with the provider classifier's generic family: a body in
// any known error shape still decides by its code, then x-should-retry,
// then the status; the wait comes from any header or body shape.
func decodeHTTPError(m *model, h *errsvcv1.HttpError) error {
	s := h.GetStatus()
	if s == 0 || s >= 100 && s < 400 {
		return &RequestError{Field: "http_error.status", Description: "must be an HTTP error status (400 to 599)"}
	}
	s = validStatus(m, s, "http_error.status")
	p := &errsvcv1.ProviderResponse{Status: s, Headers: h.GetHeaders(), Body: h.GetBody(), ReceivedAt: h.GetReceivedAt()}
	if err := decodeProvider(m, p); err != nil {
		return err
	}
	if d := m.detail; d != nil {
		delete(d.Fields, "provider") // there is none: the generic family
	}
	readErrsvcLimit(m, h.GetHeaders(), false)
	return nil
}

// validStatus reads RFC 9110 §15: a status outside 100 to 599 is not a
// status, and a client treats it as a server error (5xx). It is answered as
// 500 with a note, never refused: the producer did fail.
func validStatus(m *model, s int32, field string) int32 {
	if s >= 100 && s <= 599 {
		return s
	}
	m.note(errsvcv1.NoteCode_NOTE_CODE_VALUE_COERCED, "%s %d is outside RFC 9110's 100 to 599; read as 500, a server error", field, s)
	return 500
}
