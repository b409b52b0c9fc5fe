package translate

import errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"

func decodeProvider(m *model, p *errsvcv1.ProviderResponse) error {
	return &RequestError{Field: "provider_response", Description: "not yet supported"}
}
