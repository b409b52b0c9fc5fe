package provider

import (
	"strings"
	"time"
)

// Answer is a raw upstream HTTP answer.
type Answer struct {
	// Provider names who answered: "openai", "anthropic", "gemini",
	// "vertex", "bedrock", an OpenAI-compatible server (providerFamilies),
	// or anything else for the generic family. Case-insensitive.
	Provider string
	Status   int
	// Headers, names in any case.
	Headers map[string]string
	// Body is raw: JSON, plain text, or an SSE event stream.
	Body string
	// ReceivedAt is when the answer arrived; zero when unknown.
	ReceivedAt time.Time
	// Now is the clock (tests fix it); used only when neither a Date
	// header nor ReceivedAt is known.
	Now time.Time
}

// Result is the classification of an Answer.
type Result struct {
	// Class is "transient", "permanent", "auth_required",
	// "context_overflow", or "" when the answer is not an error.
	Class string
	// RetryAfterSecs is the wait in whole seconds, rounded up, clamped to
	// MaxRetryAfterSecs; set only for a transient Class.
	RetryAfterSecs *uint32
	// Kind is the Labby kind the answer reads as.
	Kind string
	// Code is the provider's structured code/type/status, verbatim; "" if
	// none.
	Code string
	// Message is the provider's raw error text. UNTRUSTED: it may echo the
	// request or a credential; the caller sanitises it. Never log it.
	Message string
	// Rule is the stable id of the rule that decided Class, e.g.
	// "openai.code.insufficient_quota", "status.429", "phrase.context_window".
	Rule string
	// WaitSource names where RetryAfterSecs came from, "" when unset.
	WaitSource string
	// Stream says the error came from an SSE error event inside a 2xx
	// stream.
	Stream bool
}

// Classify classifies one upstream answer; see the package comment for the
// order of the rules.
func Classify(a Answer) Result {
	fam := familyOf(a.Provider)
	h := newHeaders(a.Headers)
	isError := a.Status >= 400

	obj, fromStream := findError(h, a.Body, isError)
	if !obj.found {
		return Result{}
	}
	stream := fromStream && !isError

	v, rule, codeValue := decide(fam, a.Status, h, &obj, stream)
	text := scanText(obj.Message, obj.Extra)
	if r, rr, ok := refine(v, text); ok {
		v, rule = r, rr
	}

	res := Result{
		Class:   v.class,
		Kind:    v.kind,
		Code:    codeValue,
		Message: obj.Message,
		Rule:    rule,
		Stream:  stream,
	}
	if res.Code == "" {
		res.Code = primaryCode(&obj)
	}
	if v.class == classTransient {
		w := &waitInput{h: h, obj: &obj, text: text, ref: referenceTime(h, a.ReceivedAt, a.Now)}
		res.RetryAfterSecs, res.WaitSource = waitFor(fam, w)
	}
	return res
}

// findError finds the answer's error object. A 2xx (or any status below
// 400) is an error only through an SSE error event; an error status
// always is, with or without a body.
func findError(h headers, body string, isError bool) (errorObject, bool) {
	var obj errorObject
	if looksLikeSSE(h, body) {
		if o, ok := streamError(body); ok {
			obj = o
		} else if isError {
			obj = bodyError(body)
		}
		return withHeaderType(h, obj), true
	}
	if !isError {
		return errorObject{}, false
	}
	return withHeaderType(h, bodyError(body)), false
}

// withHeaderType adds Bedrock's x-amzn-ErrorType, which names the
// exception when the body carries only {"message"}.
func withHeaderType(h headers, o errorObject) errorObject {
	if !o.found {
		return o
	}
	if t := amznName(h.get("x-amzn-errortype")); t != "" {
		o.ErrorType = t
		if o.shape == familyGeneric || o.shape == familyOpenAI {
			o.shape = familyBedrock
		}
	}
	return o
}

// decide runs steps 2 to 4: codes, x-should-retry, status defaults. It
// returns the verdict, its rule and the code that decided ("" if none).
func decide(fam family, status int, h headers, obj *errorObject, stream bool) (verdict, string, string) {
	for _, r := range rulesFor(fam, obj.shape) {
		for _, c := range r.field.values(obj) {
			if v, key, ok := r.table.lookup(c); ok {
				if !r.isCode {
					c = ""
				}
				return v, r.id + "." + key, c
			}
		}
	}
	if stream {
		return streamDefault, "stream.error_event", ""
	}
	v, rule := statusVerdict(status)
	switch strings.ToLower(h.get("x-should-retry")) {
	case "true":
		kind := v.kind
		if v.class != classTransient {
			kind = kindUpstreamError
		}
		return verdict{classTransient, kind, 0}, "header.x-should-retry", ""
	case "false":
		// auth_required, context_overflow and permanent already say "do
		// not retry"; only a transient default needs overriding.
		if v.class == classTransient {
			kind := v.kind
			if status == 429 {
				kind = kindQuotaExceeded
			}
			return verdict{classPermanent, kind, 0}, "header.x-should-retry", ""
		}
	}
	return v, rule, ""
}

// primaryCode is Result.Code when no code decided: the most specific
// structured value the body carried. A numeric code ("429") comes last:
// it repeats the status.
func primaryCode(o *errorObject) string {
	for _, c := range []string{o.ErrorType, o.Status, nonNumeric(o.Code), o.Type, o.Code} {
		if c != "" {
			return c
		}
	}
	if len(o.Reasons) > 0 {
		return o.Reasons[0]
	}
	return ""
}

func nonNumeric(s string) string {
	if _, ok := parseDecimal(s); ok {
		return ""
	}
	return s
}

// maxScan bounds how much provider text the phrase and body-text rules
// read. Error messages are short; a multi-megabyte body (an HTML page, a
// runaway stream) should not make classification slow, and what decides
// is near the start anyway.
const maxScan = 64 << 10

// scanText is the text the phrase and body-text rules read: the message
// plus provider detail text, at most maxScan bytes.
func scanText(message, extra string) string {
	if len(message) >= maxScan {
		return message[:maxScan]
	}
	text := message
	if extra != "" {
		text += "\n" + extra
	}
	if len(text) > maxScan {
		text = text[:maxScan]
	}
	return text
}
