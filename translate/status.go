package translate

import (
	"slices"
	"strings"
	"time"

	"google.golang.org/genproto/googleapis/rpc/code"
	"google.golang.org/protobuf/encoding/protowire"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/translate/provider"
)

// ErrorInfoDomain is the fixed AIP-193 domain of every ErrorInfo errsvc emits.
const ErrorInfoDomain = provider.OwnDomain

func encodeClassification(m *model, resp *errsvcv1.TranslateResponse) {
	if m.hasClass {
		resp.Classification = classification(m)
	}
}

// classification is the model's class message. The response's
// classification target and the Labby envelope's classification carry the
// same message (one per response: see Translate on sharing).
func classification(m *model) *errsvcv1.Classification {
	m.store.recognized = m.recognized
	c := &m.store.class
	c.Class, c.RetryAfterSecs, c.Recognized = m.class, m.waitSecs, &m.store.recognized
	return c
}

func encodeHTTPStatus(m *model, resp *errsvcv1.TranslateResponse) {
	m.store.http = m.httpStatus
	resp.HttpStatus = &m.store.http
}

// encodeGRPCStatus writes google.rpc.Status with exactly one ErrorInfo
// (reason UPPER_SNAKE, the fixed domain, lowerCamel metadata carrying the
// class and the original term) and a RetryInfo whenever there is a wait.
func encodeGRPCStatus(m *model, resp *errsvcv1.TranslateResponse) {
	class := ""
	if m.hasClass {
		class = m.class
	}
	// Metadata in key order, as a deterministic marshal would write it.
	// Every value is caller- or upstream-derived text: each goes through
	// the sanitiser here, where the detail is written, whatever its
	// decoder did (a vocabulary term passes as it is).
	kind := m.metadataValue(m.kind)
	// The limit facet, when it says more than the kind (whose limit
	// reads back from the kind itself); the decision reads back from the
	// class.
	var lk, ld, lr, ls string
	if l := m.limit; l != nil && limitSaysMore(m) {
		lk, ld, ls = l.kind, l.dimension, l.scope
		lr = resetText(m)
	}
	md := [...][2]string{
		{"agentCode", m.metadataValue(m.agentCode)},
		{"class", m.metadataValue(class)},
		{"kind", kind},
		{"limitDimension", ld},
		{"limitKind", lk},
		{"limitResetAt", lr},
		{"limitScope", ls},
		{"originalTerm", m.metadataValue(m.originalTerm)},
		{"producerStatus", m.metadataValue(m.producerStatus)},
		{"providerCode", m.metadataValue(m.providerCode)},
		{"retry", m.metadataValue(m.agentRetry)},
	}
	info := &m.store.info
	infoBuf := m.store.infoBytes[:0]
	if lk != "" {
		// A limit's metadata is longer: the limit room holds it.
		infoBuf = m.limitRoomV.infoBytes[:0]
	}
	info.TypeUrl, info.Value = errorInfoTypeURL, appendErrorInfo(infoBuf, errorInfoReason(kind), ErrorInfoDomain, md[:])
	m.store.details[0] = info
	st := &m.store.status
	code := grpcCodeFor(m)
	number := m.facts().grpcNumber
	if code != m.facts().grpcCode {
		number = grpcCodeNumber(code)
	}
	st.Code, st.Message, st.Details = number, agentMessage(m), m.store.details[:1]
	if m.waitSecs != nil {
		delay := time.Duration(*m.waitSecs) * time.Second
		if m.waitMs != nil {
			delay = time.Duration(*m.waitMs) * time.Millisecond
		}
		retry := &m.store.retryInfo
		retry.TypeUrl, retry.Value = retryInfoTypeURL, appendRetryInfo(m.store.retryBytes[:0], delay)
		st.Details = append(st.Details, retry)
	}
	if q := quotaFailureDetail(m); q != nil {
		r := m.limitRoomV
		st.Details = append(append(r.details[:0], st.Details...), q)
	}
	resp.GrpcStatus = st
}

// metadataCap bounds an ErrorInfo metadata value: a term, not a text.
const metadataCap = 128

// metadataValue is v sanitised for ErrorInfo metadata. Known terms (the
// common case) skip the sanitiser; other text (a provider code, also the
// original term) goes through the translation's memo.
func (m *model) metadataValue(v string) string {
	if v == "" || m.facts().isTerm(v) || knownTerms[v] {
		return v
	}
	out, _ := m.memo.textReport(v, metadataCap)
	return out
}

// knownTerms holds every wire term of the vocabularies metadata carries.
var knownTerms = func() map[string]bool {
	out := map[string]bool{}
	for _, v := range []*Vocabulary{LabbyKinds, ClassifiedCodes, AgentCodes, AgentRetries, Classes, GrpcCodes} {
		for _, t := range v.Terms {
			out[t.Wire] = true
		}
	}
	return out
}()

// The details are encoded with protowire rather than anypb.New: a
// reflective marshal of ErrorInfo's map cost more than the rest of a
// translation together. status_test.go decodes them with the real types.
const (
	errorInfoTypeURL = "type.googleapis.com/google.rpc.ErrorInfo"
	retryInfoTypeURL = "type.googleapis.com/google.rpc.RetryInfo"
)

// appendErrorInfo encodes ErrorInfo{reason=1, domain=2, metadata=3}, leaving
// out empty metadata values, in the bytes a deterministic proto.Marshal
// writes (TestErrorInfoBytesAreProtoMarshal).
func appendErrorInfo(b []byte, reason, domain string, md [][2]string) []byte {
	size := 2 + protowire.SizeBytes(len(reason)) + protowire.SizeBytes(len(domain))
	for _, kv := range md {
		if kv[1] != "" {
			size += 5 + protowire.SizeBytes(len(kv[0])) + protowire.SizeBytes(len(kv[1]))
		}
	}
	b = slices.Grow(b, size)
	b = appendField(b, errorInfoReasonTag, reason)
	b = appendField(b, errorInfoDomainTag, domain)
	for _, kv := range md {
		if kv[1] == "" {
			continue
		}
		// A map entry is a message {key=1, value=2}.
		entry := 2 + protowire.SizeBytes(len(kv[0])) + protowire.SizeBytes(len(kv[1]))
		b = append(b, errorInfoMetadataTag)
		if entry < 0x80 {
			b = append(b, byte(entry))
		} else {
			b = protowire.AppendVarint(b, uint64(entry))
		}
		b = appendField(b, mapKeyTag, kv[0])
		b = appendField(b, mapValueTag, kv[1])
	}
	return b
}

// The one-byte tags of ErrorInfo's length-delimited fields and of a map
// entry's (field number << 3 | wire type 2). Written as bytes, with a
// metadata term's one-byte length, a metadata pair costs a few appends
// instead of eight protowire calls the compiler does not inline; that
// was a fifth of the gRPC status encoding.
const (
	errorInfoReasonTag   = 1<<3 | byte(protowire.BytesType)
	errorInfoDomainTag   = 2<<3 | byte(protowire.BytesType)
	errorInfoMetadataTag = 3<<3 | byte(protowire.BytesType)
	mapKeyTag            = 1<<3 | byte(protowire.BytesType)
	mapValueTag          = 2<<3 | byte(protowire.BytesType)
)

// appendField appends a length-delimited field: its one-byte tag, its
// length as a varint and s.
func appendField(b []byte, tag byte, s string) []byte {
	if len(s) < 0x80 {
		return append(append(b, tag, byte(len(s))), s...)
	}
	return protowire.AppendString(append(b, tag), s)
}

// appendRetryInfo encodes RetryInfo{retry_delay=1: Duration{seconds=1, nanos=2}}.
func appendRetryInfo(b []byte, d time.Duration) []byte {
	secs, nanos := int64(d/time.Second), int64(d%time.Second)
	size := 0
	if secs != 0 {
		size += protowire.SizeTag(1) + protowire.SizeVarint(uint64(secs))
	}
	if nanos != 0 {
		size += protowire.SizeTag(2) + protowire.SizeVarint(uint64(nanos))
	}
	b = protowire.AppendTag(b, 1, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(size))
	if secs != 0 {
		b = protowire.AppendTag(b, 1, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(secs))
	}
	if nanos != 0 {
		b = protowire.AppendTag(b, 2, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(nanos))
	}
	return b
}

// knownReasons holds the reason of every known kind, spelled once.
var knownReasons = func() map[string]string {
	out := map[string]string{}
	for _, t := range LabbyKinds.Terms {
		out[t.Wire] = spellReason(t.Wire)
	}
	for _, t := range ClassifiedCodes.Terms {
		out[t.Wire] = spellReason(t.Wire)
	}
	return out
}()

// errorInfoReason spells a kind as an AIP-193 reason: UPPER_SNAKE, starting
// with a letter, at most 63 characters.
func errorInfoReason(kind string) string {
	if r, ok := knownReasons[kind]; ok {
		return r
	}
	return spellReason(kind)
}

func spellReason(kind string) string {
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
	switch {
	case reason == "":
		return "UNKNOWN_KIND"
	case len(reason) < 3:
		// AIP-193's grammar [A-Z][A-Z0-9_]+[A-Z0-9] needs three characters:
		// a producer's two-letter code (io) becomes IO_ERROR.
		return reason + "_ERROR"
	}
	return reason
}

// httpStatusOfCode is the HTTP status google.rpc.Code documents for each
// code (google/rpc/code.proto), as grpc-gateway's runtime.HTTPStatusFromCode
// answers it: the status of every answer that speaks AIP-193 JSON
// (google_error), whose error.code and HTTP status are its status's.
var httpStatusOfCode = map[string]int32{
	"OK": 200, "CANCELLED": 499, "UNKNOWN": 500, "INVALID_ARGUMENT": 400,
	"DEADLINE_EXCEEDED": 504, "NOT_FOUND": 404, "ALREADY_EXISTS": 409,
	"PERMISSION_DENIED": 403, "UNAUTHENTICATED": 401, "RESOURCE_EXHAUSTED": 429,
	"FAILED_PRECONDITION": 400, "ABORTED": 409, "OUT_OF_RANGE": 400,
	"UNIMPLEMENTED": 501, "INTERNAL": 500, "UNAVAILABLE": 503, "DATA_LOSS": 500,
}

// httpStatusForCode is httpStatusOfCode, 500 for a name it lacks (as
// grpc-gateway answers an unknown code).
func httpStatusForCode(name string) int32 {
	if s, ok := httpStatusOfCode[name]; ok {
		return s
	}
	return 500
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
