package translate

import (
	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// decodeHTTPError reads a bare HTTP error from a service that is not a
// model provider with the provider classifier's generic family: a body in
// any known error shape still decides by its code, then x-should-retry,
// then the status; the wait comes from any header or body shape.
func decodeHTTPError(m *model, h *errsvcv1.HttpError) error {
	if s := h.GetStatus(); s < 400 || s > 599 {
		return &RequestError{Field: "http_error.status", Description: "must be an HTTP error status (400 to 599)"}
	}
	p := &errsvcv1.ProviderResponse{Status: h.GetStatus(), Headers: h.GetHeaders(), Body: h.GetBody(), ReceivedAt: h.GetReceivedAt()}
	if err := decodeProvider(m, p); err != nil {
		return err
	}
	if d := m.detail; d != nil {
		delete(d.Fields, "provider") // there is none: the generic family
	}
	return nil
}
