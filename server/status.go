package server

import (
	"github.com/errsvc/errsvc/translate/sanitize"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// badRequest builds the error API.md promises for every malformed request:
// the status code plus a google.rpc.BadRequest naming the offending field, so
// clients can point at the field without parsing messages.
//
// Field and description may quote the request (an unknown JSON key, a
// wrongly typed value, protojson's own wording), so both pass through the
// sanitiser that cleans upstream text: a secret written where a field name
// goes is redacted, control and bidi characters dropped, length capped.
func badRequest(code codes.Code, field, description string) *status.Status {
	field = sanitize.Text(field, maxViolationField)
	description = sanitize.Text(description, maxViolationDescription)
	st := status.New(code, field+": "+description)
	withDetail, err := st.WithDetails(&errdetails.BadRequest{
		FieldViolations: []*errdetails.BadRequest_FieldViolation{{
			Field:       field,
			Description: description,
		}},
	})
	if err != nil {
		// Only reachable if the detail cannot be marshalled into an Any,
		// which a well-formed BadRequest always can.
		return st
	}
	return withDetail
}

// Caps, in runes, of what a BadRequest echoes.
const (
	maxViolationField       = 256
	maxViolationDescription = 1024
)

func invalidArgument(field, description string) *status.Status {
	return badRequest(codes.InvalidArgument, field, description)
}

func resourceExhausted(field, description string) *status.Status {
	return badRequest(codes.ResourceExhausted, field, description)
}

// hasBadRequest reports whether st already names its offending field.
func hasBadRequest(st *status.Status) bool {
	for _, d := range st.Details() {
		if _, ok := d.(*errdetails.BadRequest); ok {
			return true
		}
	}
	return false
}
