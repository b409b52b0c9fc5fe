package server

import (
	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/translate"
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

// badRequestAll is badRequest naming several fields: the message says the
// first, the BadRequest lists them all.
func badRequestAll(code codes.Code, violations []*errdetails.BadRequest_FieldViolation) *status.Status {
	for _, v := range violations {
		v.Field = sanitize.Text(v.Field, maxViolationField)
		v.Description = sanitize.Text(v.Description, maxViolationDescription)
	}
	st := status.New(code, violations[0].Field+": "+violations[0].Description)
	withDetail, err := st.WithDetails(&errdetails.BadRequest{FieldViolations: violations})
	if err != nil {
		return st
	}
	return withDetail
}

// missingSource is the refusal of a request with no source: the names it
// used that the contract does not have come first, each with the nearest
// known one ("labbi": did you mean "labby_error"?), then the source.
func missingSource(req *errsvcv1.TranslateRequest) *status.Status {
	var vs []*errdetails.BadRequest_FieldViolation
	for _, m := range translate.UnknownTopLevel(req) {
		vs = append(vs, &errdetails.BadRequest_FieldViolation{Field: m.Field, Description: m.Description})
	}
	vs = append(vs, &errdetails.BadRequest_FieldViolation{Field: sourceField, Description: "exactly one of " + sourceChoices() + " is required"})
	return badRequestAll(codes.InvalidArgument, vs)
}

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
