// Package translate is errsvc's pure core: it turns an error in any source
// vocabulary into every target vocabulary, reading the one matrix declared in
// the contract (proto/errsvc/v1/vocabulary.proto). It does no I/O and knows
// no transport; the server and the in-process client both call it.
package translate

import (
	"fmt"
)

// RequestError is a malformed translation request: no source, two sources,
// an unknown target shape. Field names the offending request field in its
// JSON spelling (for example "labby_error.kind").
type RequestError struct {
	Field       string
	Description string
}

func (e *RequestError) Error() string {
	return fmt.Sprintf("%s: %s", e.Field, e.Description)
}
