package provider

import (
	"strconv"
	"strings"

	"github.com/errsvc/errsvc/translate/internal/jsonread"
)

// errorObject is the error an answer carries, in the fields every family's
// rules read. Values are verbatim from the body (or header); the tables do
// the case folding.
type errorObject struct {
	found bool
	// shape is the family whose error shape the body has: a Vertex answer
	// may carry an Anthropic-shaped error (Claude on Vertex), a gateway any
	// shape. familyGeneric means plain text or no recognised shape.
	shape family

	Message string
	Code    string // error.code or a top-level code, numbers rendered as text
	Type    string // error.type, or a top-level type other than "error"
	Status  string // google.rpc.Status status, e.g. RESOURCE_EXHAUSTED
	// ErrorType is Bedrock's exception name, from x-amzn-ErrorType or __type.
	ErrorType string
	// Reasons are google.rpc.ErrorInfo reasons, e.g. API_KEY_INVALID.
	Reasons []string
	// OwnClass and OwnKind are the class and kind metadata of an ErrorInfo
	// of errsvc's own domain (OwnDomain): an answer errsvc wrote
	// (google_error), read back as what it said.
	OwnClass, OwnKind string
	// QuotaValues are google.rpc.QuotaFailure violations' quotaValue.
	QuotaValues []string
	// RetryDelay is google.rpc.RetryInfo's retryDelay, e.g. "20s".
	RetryDelay string
	// Extra is provider text that is not the message but may explain it
	// (OpenRouter's metadata.raw, the upstream's own error). It is read by
	// the phrase and body-text rules only, never returned.
	Extra string
	// LimitSource is OpenRouter's metadata.limit_source: which limit a 402
	// or 429 hit.
	LimitSource string
	// RateLimitHeaders are OpenRouter's metadata.headers: the rate-limit
	// headers of the limit hit (X-RateLimit-Limit, -Remaining, -Reset in
	// Unix milliseconds), sent in the body instead of on the answer, under
	// their folded names.
	RateLimitHeaders map[string]string
	// Upstream is the provider a gateway relayed the error from
	// (OpenRouter's metadata.provider_name), lower-cased; Inner is that
	// provider's own error when metadata.raw holds it as JSON. Inner's
	// codes are read by the upstream's tables after the gateway's own.
	Upstream string
	Inner    *errorObject
}

// bodyError finds the error object of a non-stream body: JSON in a known
// shape, any JSON object with error/message/code/type, or plain text.
func bodyError(body string) errorObject {
	if o, ok := jsonError(body); ok {
		return o
	}
	t := strings.TrimSpace(body)
	if t == "" {
		return errorObject{found: true}
	}
	if looksJSON(t) {
		// JSON of no known shape: there is no message to return, but the
		// phrase rules may still read the text.
		return errorObject{found: true, Extra: t}
	}
	return errorObject{found: true, Message: t}
}

func looksJSON(t string) bool {
	return strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[")
}

// jsonError decodes body and finds its error object. A top-level array is
// searched element by element: Gemini sometimes wraps its google.rpc.Status
// in one.
func jsonError(body string) (errorObject, bool) {
	d, ok := parseJSON(body)
	if !ok {
		return errorObject{}, false
	}
	defer d.Release()
	return valueError(d.Root())
}

// valueError finds the error object of a decoded value: the object itself,
// or the first element of an array that holds one.
func valueError(v jsonread.Value) (errorObject, bool) {
	switch v.Kind() {
	case jsonread.Object:
		return objectError(v)
	case jsonread.Array:
		for it := v.Elems(); ; {
			e, more := it.Next()
			if !more {
				break
			}
			if e.Kind() == jsonread.Object {
				if o, ok := objectError(e); ok {
					return o, true
				}
			}
		}
	}
	return errorObject{}, false
}

// parseJSON reads the JSON object or array a body starts with, after
// blanks, as encoding/json's Decoder (UseNumber) would: the first value
// only, numbers as their literal text, so a numeric code comes back as the
// provider wrote it (jsonread says what else it keeps of encoding/json).
// The caller releases the Doc.
//
// What jsonread earns (issue 42), against the encoding/json readers it
// replaced (jsonref_test.go): with a provider answer as a fifth of the
// calls, gRPC Translate cold (a) +3.9% / +1.6% at 16 / 64 callers, REST (c)
// +0.7% / +0.9% (bench/ab.sh, 3 interleaved rounds, 2026-12-05); the
// provider core 3.56 µs and no allocation, 5.88 µs and 23 without.
func parseJSON(s string) (*jsonread.Doc, bool) {
	t := strings.TrimSpace(s)
	if !looksJSON(t) {
		return nil, false
	}
	return jsonread.Parse(t)
}

// objectError reads one JSON object. The shapes, most specific first:
//
//	{"type":"error","error":{"type","message"}}              Anthropic
//	{"error":{"code":429,"message","status","details":[...]}} google.rpc.Status
//	{"error":{"message","type","param","code"}}               OpenAI and compatibles
//	{"error":"text","code":...}                               Ollama, xAI
//	{"message"|"Message","__type"|"code"|"type"}              Bedrock, vLLM, others
func objectError(m jsonread.Value) (errorObject, bool) {
	if e := m.Get("error"); e.Kind() == jsonread.Object {
		o := errorObject{found: true, shape: familyOpenAI}
		var f errorFields
		f.read(e)
		if o.Message = text(f.message); o.Message == "" {
			o.Message = text(f.messageCap)
		}
		o.Code = code(f.code)
		o.Type = code(f.typ)
		// Only google.rpc.Status has a string status; Azure repeats the
		// HTTP status there as a number.
		if st, ok := f.status.Str(); ok {
			o.Status = strings.TrimSpace(st)
		}
		hasDetails := f.details.Kind() == jsonread.Array
		readDetails(&o, f.details)
		if f.metadata.Kind() == jsonread.Object {
			readMetadata(&o, f.metadata)
		}
		// Azure puts the specific cause of a content filter in innererror.
		if f.innererror.Kind() == jsonread.Object && o.Type == "" {
			o.Type = code(f.innererror.Get("code"))
		}
		switch {
		case code(m.Get("type")) == "error":
			o.shape = familyAnthropic
		case o.Status != "" || hasDetails:
			o.shape = familyGoogle
		}
		return o, true
	}
	if s := text(m.Get("error")); strings.TrimSpace(s) != "" {
		o := errorObject{found: true, shape: familyOpenAI, Message: s}
		o.Code = code(m.Get("code"))
		if t := code(m.Get("type")); t != "error" {
			o.Type = t
		}
		// Hugging Face TGI: {"error": "...", "error_type": "overloaded"}.
		if t := code(m.Get("error_type")); t != "" && o.Type == "" {
			o.Type = t
		}
		return o, true
	}
	o := errorObject{shape: familyOpenAI}
	o.Message = firstText(m, "message", "Message", "detail", "error_message")
	o.Code = strings.TrimSpace(firstText(m, "code", "error_code"))
	if t := code(m.Get("type")); t != "error" {
		o.Type = t
	}
	if t := code(m.Get("__type")); t != "" {
		o.ErrorType = amznName(t)
		o.shape = familyBedrock
	}
	o.found = o.Message != "" || o.Code != "" || o.Type != "" || o.ErrorType != ""
	return o, o.found
}

// errorFields are the members of an error object objectError reads, each
// the last of its name (as Get finds it), read in one walk of the members
// rather than one walk per name.
type errorFields struct {
	message, messageCap, code, typ, status, details, metadata, innererror jsonread.Value
}

func (f *errorFields) read(e jsonread.Value) {
	for it := e.Members(); ; {
		name, v, ok := it.Next()
		if !ok {
			return
		}
		switch name {
		case "message":
			f.message = v
		case "Message":
			f.messageCap = v
		case "code":
			f.code = v
		case "type":
			f.typ = v
		case "status":
			f.status = v
		case "details":
			f.details = v
		case "metadata":
			f.metadata = v
		case "innererror":
			f.innererror = v
		}
	}
}

// metaRateLimitHeaders are the names OpenRouter's metadata.headers carries
// a limit under, as it spells them and folded.
var metaRateLimitHeaders = [...][2]string{
	{"X-RateLimit-Limit", "x-ratelimit-limit"},
	{"X-RateLimit-Remaining", "x-ratelimit-remaining"},
	{"X-RateLimit-Reset", "x-ratelimit-reset"},
}

// readMetaHeaders keeps OpenRouter's metadata.headers that state the
// limit, under their folded names.
func readMetaHeaders(o *errorObject, hs jsonread.Value) {
	for _, n := range metaRateLimitHeaders {
		v := code(hs.Get(n[0]))
		if v == "" {
			v = code(hs.Get(n[1]))
		}
		if v == "" {
			continue
		}
		if o.RateLimitHeaders == nil {
			o.RateLimitHeaders = make(map[string]string, len(metaRateLimitHeaders))
		}
		o.RateLimitHeaders[n[1]] = v
	}
}

// readMetadata reads OpenRouter's error.metadata: the raw upstream error
// (text for the phrases, and, when it is JSON, an error object of its own),
// the upstream's name and which limit was hit.
func readMetadata(o *errorObject, md jsonread.Value) {
	o.Extra = text(md.Get("raw"))
	o.LimitSource = code(md.Get("limit_source"))
	readMetaHeaders(o, md.Get("headers"))
	o.Upstream = strings.ToLower(code(md.Get("provider_name")))
	if o.Extra == "" {
		return
	}
	if inner, ok := jsonError(o.Extra); ok {
		inner.Inner = nil
		o.Inner = &inner
	}
}

// statusCode reads a numeric error.code as an HTTP error status, 0 if it is
// none: the status the provider meant, where the HTTP status cannot say it
// (an error inside a 2xx answer).
func statusCode(c string) int {
	if !isInteger(c) {
		return 0 // what Atoi would refuse, without building its error
	}
	n, err := strconv.Atoi(c)
	if err != nil || n < 400 || n > 599 {
		return 0
	}
	return n
}

// isInteger says s has strconv.Atoi's syntax: a sign, then digits.
func isInteger(s string) bool {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// readDetails reads the google.rpc.Status details errsvc understands.
func readDetails(o *errorObject, details jsonread.Value) {
	for it := details.Elems(); ; {
		m, more := it.Next()
		if !more {
			return
		}
		if m.Kind() != jsonread.Object {
			continue
		}
		switch t := code(m.Get("@type")); {
		case strings.HasSuffix(t, "google.rpc.RetryInfo"):
			if o.RetryDelay == "" {
				o.RetryDelay = protoDuration(m.Get("retryDelay"))
			}
		case strings.HasSuffix(t, "google.rpc.ErrorInfo"):
			if r := code(m.Get("reason")); r != "" {
				o.Reasons = append(o.Reasons, r)
			}
			if code(m.Get("domain")) == OwnDomain && o.OwnClass == "" {
				md := m.Get("metadata")
				o.OwnClass, o.OwnKind = code(md.Get("class")), code(md.Get("kind"))
			}
		case strings.HasSuffix(t, "google.rpc.QuotaFailure"):
			for vs := m.Get("violations").Elems(); ; {
				v, more := vs.Next()
				if !more {
					break
				}
				if q := code(v.Get("quotaValue")); q != "" {
					o.QuotaValues = append(o.QuotaValues, q)
				}
			}
		}
	}
}

// protoDuration reads a google.protobuf.Duration in its JSON form ("20s")
// or, as some clients re-serialise it, {"seconds":20,"nanos":0}.
func protoDuration(v jsonread.Value) string {
	if s := code(v); s != "" {
		return s
	}
	if v.Kind() != jsonread.Object {
		return ""
	}
	secs, nanos := code(v.Get("seconds")), code(v.Get("nanos"))
	if secs == "" {
		secs = "0"
	}
	if nanos == "" || nanos == "0" {
		return secs + "s"
	}
	n, ok := parseDecimal(nanos)
	if !ok {
		return secs + "s"
	}
	s, ok := parseDecimal(secs)
	if !ok {
		return ""
	}
	return formatSeconds(s+n/1e9) + "s"
}

// amznName strips an AWS error type to its exception name:
// "ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/"
// and "com.amazon.coral.service#UnrecognizedClientException" both name it.
func amznName(t string) string {
	t = strings.TrimSpace(t)
	if i := strings.IndexByte(t, ':'); i >= 0 {
		t = t[:i]
	}
	if i := strings.LastIndexByte(t, '#'); i >= 0 {
		t = t[i+1:]
	}
	return strings.TrimSpace(t)
}

// text renders a JSON string or number verbatim; anything else is "".
func text(v jsonread.Value) string { return v.Text() }

// code renders a structured code: text without surrounding blanks.
func code(v jsonread.Value) string { return strings.TrimSpace(v.Text()) }

func firstText(m jsonread.Value, keys ...string) string {
	for _, k := range keys {
		if s := text(m.Get(k)); s != "" {
			return s
		}
	}
	return ""
}
