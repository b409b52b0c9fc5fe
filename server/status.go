package server

import (
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// badRequest builds the error API.md promises for every malformed request:
// the status code plus a google.rpc.BadRequest naming the offending field, so
// clients can point at the field without parsing messages.
func badRequest(code codes.Code, field, description string) *status.Status {
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
