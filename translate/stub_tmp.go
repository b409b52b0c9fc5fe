package translate

import errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"

// Temporary stubs: replaced by the engine (translate.go, matrix.go).

// Translate translates one request. A malformed request returns *RequestError.
func Translate(req *errsvcv1.TranslateRequest) (*errsvcv1.TranslateResponse, error) {
	if req.GetSource() == nil {
		return nil, &RequestError{Field: "source", Description: "exactly one source is required"}
	}
	return &errsvcv1.TranslateResponse{}, nil
}

// Vocabularies renders the matrix for ListVocabularies.
func Vocabularies() *errsvcv1.ListVocabulariesResponse {
	return &errsvcv1.ListVocabulariesResponse{}
}
