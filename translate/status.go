package translate

import (
	"strings"
	"time"

	"google.golang.org/genproto/googleapis/rpc/code"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// ErrorInfoDomain is the fixed AIP-193 domain of every ErrorInfo errsvc emits.
const ErrorInfoDomain = "errsvc.dev"

func encodeClassification(m *model, resp *errsvcv1.TranslateResponse) {
	if m.hasClass {
		resp.Classification = classification(m)
	}
}

func classification(m *model) *errsvcv1.Classification {
	recognized := m.recognized
	return &errsvcv1.Classification{Class: m.class, RetryAfterSecs: m.waitSecs, Recognized: &recognized}
}

func encodeHTTPStatus(m *model, resp *errsvcv1.TranslateResponse) {
	s := m.httpStatus
	resp.HttpStatus = &s
}

// encodeGRPCStatus writes google.rpc.Status with exactly one ErrorInfo
// (reason UPPER_SNAKE, the fixed domain, lowerCamel metadata carrying the
// class and the original term) and a RetryInfo whenever there is a wait.
func encodeGRPCStatus(m *model, resp *errsvcv1.TranslateResponse) {
	md := map[string]string{
		"kind":         m.kind,
		"originalTerm": m.originalTerm,
		"agentCode":    m.agentCode,
		"retry":        m.agentRetry,
	}
	if m.hasClass {
		md["class"] = m.class
	}
	for k, v := range md {
		if v == "" {
			delete(md, k)
		}
	}
	info, _ := anypb.New(&errdetails.ErrorInfo{Reason: errorInfoReason(m.kind), Domain: ErrorInfoDomain, Metadata: md})
	st := &status.Status{
		Code:    grpcCodeNumber(grpcCodeFor(m)),
		Message: agentMessage(m),
		Details: []*anypb.Any{info},
	}
	if m.waitSecs != nil {
		delay := time.Duration(*m.waitSecs) * time.Second
		if m.waitMs != nil {
			delay = time.Duration(*m.waitMs) * time.Millisecond
		}
		ri, _ := anypb.New(&errdetails.RetryInfo{RetryDelay: durationpb.New(delay)})
		st.Details = append(st.Details, ri)
	}
	resp.GrpcStatus = st
}

// errorInfoReason spells a kind as an AIP-193 reason: UPPER_SNAKE, starting
// with a letter, at most 63 characters.
func errorInfoReason(kind string) string {
	var b strings.Builder
	for _, r := range strings.ToUpper(kind) {
		if b.Len() == 63 {
			break
		}
		if r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	reason := strings.Trim(b.String(), "_0123456789")
	if reason == "" {
		return "UNKNOWN_KIND"
	}
	return reason
}

// grpcCodeByHTTPTable is the HTTP status each gRPC code answers with in
// grpc-gateway and Connect, read backwards; a status not listed falls to
// its class (4xx FAILED_PRECONDITION, 5xx INTERNAL).
var grpcCodeByHTTPTable = map[int32]string{
	400: "INVALID_ARGUMENT",
	401: "UNAUTHENTICATED",
	403: "PERMISSION_DENIED",
	404: "NOT_FOUND",
	408: "DEADLINE_EXCEEDED",
	409: "ABORTED",
	412: "FAILED_PRECONDITION",
	413: "RESOURCE_EXHAUSTED",
	422: "INVALID_ARGUMENT",
	429: "RESOURCE_EXHAUSTED",
	499: "CANCELLED",
	500: "INTERNAL",
	501: "UNIMPLEMENTED",
	502: "UNAVAILABLE",
	503: "UNAVAILABLE",
	504: "DEADLINE_EXCEEDED",
}

func grpcCodeByHTTP(status int32) string {
	if c, ok := grpcCodeByHTTPTable[status]; ok {
		return c
	}
	if status >= 400 && status < 500 {
		return "FAILED_PRECONDITION"
	}
	return "INTERNAL"
}

// grpcCodeNumber reads a google.rpc.Code name (as the matrix spells it).
func grpcCodeNumber(name string) int32 {
	if n, ok := code.Code_value[name]; ok {
		return n
	}
	return int32(code.Code_UNKNOWN)
}
