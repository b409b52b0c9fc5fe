package server

import (
	"context"
	"errors"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/grpc/codes"

	"github.com/errsvc/errsvc/translate/sanitize"
	"google.golang.org/grpc/status"
)

// restErrorHandler makes every REST failure a google.rpc.Status body that
// names the offending field (API.md), then lets the gateway write it.
func restErrorHandler(maxBytes int64, receiveTimeout time.Duration) runtime.ErrorHandlerFunc {
	return func(ctx context.Context, mux *runtime.ServeMux, m runtime.Marshaler, w http.ResponseWriter, r *http.Request, err error) {
		st, httpStatus := restError(ctx, maxBytes, receiveTimeout, err)
		if c := callFrom(ctx); c != nil {
			c.setStatus(st)
			if httpStatus == http.StatusRequestEntityTooLarge && c.limit == "" {
				c.limit = limitRequestBytes
			}
			if rpc, ok := runtime.RPCMethod(ctx); ok {
				c.rpc = rpc
			}
		}
		runtime.DefaultHTTPErrorHandler(ctx, mux, m, w, r, &runtime.HTTPStatusError{HTTPStatus: httpStatus, Err: st.Err()})
	}
}

func restError(ctx context.Context, maxBytes int64, receiveTimeout time.Duration, err error) (*status.Status, int) {
	if c := callFrom(ctx); c != nil {
		switch {
		case c.bodyTooLarge:
			return tooLarge(maxBytes), http.StatusRequestEntityTooLarge
		case c.bodyTimedOut:
			c.limit = limitReceiveTimeout
			return receiveTimedOut(receiveTimeout), http.StatusRequestTimeout
		case c.bodyRefused != nil && c.bodyRefused.Code() == codes.ResourceExhausted:
			return c.bodyRefused, http.StatusTooManyRequests
		case c.bodyRefused != nil:
			return c.bodyRefused, http.StatusBadRequest
		}
	}
	var withStatus *runtime.HTTPStatusError
	if errors.As(err, &withStatus) {
		// Routing errors: the router already chose the HTTP status.
		return status.Convert(withStatus.Err), withStatus.HTTPStatus
	}
	st := status.Convert(err)
	switch {
	// The service attaches a BadRequest to every INVALID_ARGUMENT it
	// returns, so one without it is the gateway failing to decode the body.
	case st.Code() == codes.InvalidArgument && !hasBadRequest(st):
		return decodeErrorStatus(st.Message()), http.StatusBadRequest
	// RESOURCE_EXHAUSTED with a field violation is a size limit (an
	// oversize batch), not rate limiting: 413, not the gateway's 429.
	case st.Code() == codes.ResourceExhausted && hasBadRequest(st):
		return st, http.StatusRequestEntityTooLarge
	}
	return st, runtime.HTTPStatusFromCode(st.Code())
}

// restRoutingError keeps the router's status on the wire: the gateway's
// default turns 405 into 501 through UNIMPLEMENTED.
func restRoutingError(ctx context.Context, mux *runtime.ServeMux, m runtime.Marshaler, w http.ResponseWriter, r *http.Request, httpStatus int) {
	code := codes.Internal
	switch httpStatus {
	case http.StatusBadRequest:
		code = codes.InvalidArgument
	case http.StatusNotFound:
		code = codes.NotFound
	case http.StatusMethodNotAllowed:
		code = codes.Unimplemented
		// RFC 9110, 15.5.6: a 405 lists the methods the resource has.
		w.Header().Set("Allow", restAllow(r.URL.Path))
	}
	err := status.Error(code, http.StatusText(httpStatus))
	runtime.HTTPError(ctx, mux, m, w, r, &runtime.HTTPStatusError{HTTPStatus: httpStatus, Err: err})
}

var (
	// protojson reports the member that found the oneof taken; the rule
	// broken is the oneof's, so the violation names the oneof.
	oneofTakenRE = regexp.MustCompile(`oneof [\w.]*?\.?(\w+) is already set`)
	namedFieldRE = regexp.MustCompile(`(?:unknown|duplicate) field "([^"]*)"`)
	// This one quotes the JSON (lowerCamel) name; see snakeCase.
	badValueRE = regexp.MustCompile(`invalid value for \w+ field (\w+):`)
)

// decodeErrorStatus turns a body the gateway could not decode into
// INVALID_ARGUMENT naming the field (see JSONErrorField). protojson quotes
// the caller's unknown field names and wrong values; the answer keeps a name
// only where it looks like one (safeName) and drops the value, since a
// caller can write a secret in either place and the sanitiser cannot know
// that a bare token is one.
func decodeErrorStatus(msg string) *status.Status {
	// errsvc's own decoder (codec/errjson, see decodeRefusal) names the
	// field with its path, and its descriptions echo no value.
	if field, desc, ok := strings.Cut(msg, fieldSeparator); ok {
		return invalidArgument(safePath(strings.ToValidUTF8(field, "\uFFFD")), desc)
	}
	// The decoder quotes the bytes it choked on, which may be invalid UTF-8:
	// a Status holding them cannot be marshalled (REST answered 500).
	msg = strings.ToValidUTF8(msg, "\uFFFD")
	field := jsonErrorField(msg)
	if m := namedFieldRE.FindStringSubmatchIndex(msg); m != nil {
		msg = msg[:m[2]] + safeName(msg[m[2]:m[3]]) + msg[m[3]:]
	}
	if m := badValueRE.FindStringIndex(msg); m != nil {
		msg = msg[:m[1]-1] + " (value not echoed)"
	}
	return invalidArgument(safePath(field), msg)
}

// identifierRE is what a field name a caller mistyped looks like: words,
// optionally a short number at the end.
var identifierRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z_-]{0,47}[0-9]{0,2}$`)

// safeName returns a caller-written field name when it is a name of the
// contract or looks like a mistyped one, else "*": a random-looking token
// (mixed letters and digits, base64, hex, a long run of mixed case) is
// treated as a possible secret.
func safeName(name string) string {
	if knownFieldNames[name] {
		return name
	}
	if !identifierRE.MatchString(name) {
		return "*"
	}
	// The same reading of a name as the answers use (sanitize.Identifier).
	if sanitize.IsOpaqueToken(name) {
		return "*"
	}
	return name
}

// safePath applies safeName to each dotted segment of a path, keeping
// array indices ("a[2]") and the ellipsis of a cut path.
func safePath(path string) string {
	segs := strings.Split(path, ".")
	for i, seg := range segs {
		name, idx, _ := strings.Cut(seg, "[")
		if name == "" || name == "…" {
			continue
		}
		if idx != "" {
			idx = "[" + idx
		}
		segs[i] = safeName(name) + idx
	}
	return strings.Join(segs, ".")
}

// JSONErrorField names the request field (proto spelling, leaf name only)
// that a protojson or encoding/json decode error is about, or "body" when the
// text does not tell (syntax errors, a wrong top-level type). The REST gateway and
// the CLI use it so both report a bad body the same way. protojson's wording
// is not a stable API; if it changes, the answer degrades to "body".
func JSONErrorField(err error) string {
	return jsonErrorField(err.Error())
}

func jsonErrorField(msg string) string {
	if m := oneofTakenRE.FindStringSubmatch(msg); m != nil {
		return m[1]
	}
	if m := namedFieldRE.FindStringSubmatch(msg); m != nil && m[1] != "" {
		return m[1]
	}
	if m := badValueRE.FindStringSubmatch(msg); m != nil {
		return snakeCase(m[1])
	}
	return "body"
}

// snakeCase undoes protojson's lowerCamel JSON names so violations use the
// proto (snake_case) names the REST API speaks.
func snakeCase(s string) string {
	var b strings.Builder
	for _, r := range s {
		if 'A' <= r && r <= 'Z' {
			b.WriteByte('_')
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}
