package provider

import (
	"slices"
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
	// Folded, when set, is FoldHeaders(Headers), read by a caller already;
	// Classify folds Headers itself otherwise.
	Folded Headers
	// Body is raw: JSON, plain text, or an SSE event stream.
	Body string
	// ReceivedAt is when the answer arrived; zero when unknown.
	ReceivedAt time.Time
	// Now is the clock (tests fix it); used only when neither a Date
	// header nor ReceivedAt is known.
	Now time.Time
	// Clock, when Now is zero, is read for the clock instead of time.Now,
	// and only when a wait counts from it: most answers need no clock, and
	// reading it is a good part of a classification.
	Clock func() time.Time
	// Limits asks for the limit facet (Result.Limit); without it Classify
	// stays nearly allocation-free.
	Limits bool
	// Room, when set, holds what the Result points to (the wait and the
	// limit facet) instead of new allocations: a caller that keeps storage
	// across answers (errsvc's leased translations) classifies without
	// allocating. The Result is valid while the caller keeps the Room for it.
	Room *Room
	// Operator, when set, is an operator's own reading (an errsvc policy's
	// provider family): it sees the built-in verdict and may replace it,
	// after the built-in tables and before the wait and the limit are read,
	// so a class it makes transient gets the provider's own wait.
	Operator func(e Seen, v *Verdict) bool
}

// Seen is what the classifier found of an answer's error, for an
// Operator reading.
type Seen struct {
	// Status is the HTTP status, or a 2xx answer's in-band error code.
	Status int
	// Code is the error's code as the classifier reads it; Type, Status
	// and ErrorType the body's error.type, google.rpc status name and
	// Bedrock exception name, when it gives them.
	Code, Type, StatusName, ErrorType string
	// Message is the raw error text. UNTRUSTED: match it, never echo it.
	Message string
}

// Verdict is a reading's class, Labby kind and rule id.
type Verdict struct {
	Class, Kind, Rule string
}

// Result is the classification of an Answer.
type Result struct {
	// Class is "transient", "permanent", "auth_required",
	// "context_overflow", or "" when the answer is not an error.
	Class string
	// RetryAfterSecs is the wait in whole seconds, rounded up, never above
	// MaxRetryAfterSecs (the wire's bound); set only for a transient Class.
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
	// WaitClamped says the provider's wait was longer than
	// MaxRetryAfterSecs, the most the wire carries, and was cut to it.
	WaitClamped bool
	// Clock says the wait was counted from the clock (an HTTP-date or a
	// reset time with neither a Date header nor ReceivedAt): the same
	// answer asked again later gets another wait, so it must not be cached.
	Clock bool
	// Stream says the error came from an SSE error event inside a 2xx
	// stream.
	Stream bool
	// InBody says the error came as an error object in a 2xx JSON body.
	InBody bool
	// AfterOutput says the stream had delivered model output before the
	// error: the class stays what the error says, but a retry with the
	// same input regenerates, and so repeats, that output.
	AfterOutput bool
	// Limit is the limit facet (limit.go), nil when the answer is not a
	// limit.
	Limit *Limit
	// HeadersFolded says every name in Answer.Headers is its own fold
	// (lower case ASCII, no surrounding blank), as the classifier found
	// when it read them: a caller looks a header up by its folded name
	// then, without walking the map for another spelling.
	HeadersFolded bool
}

// Room is storage a caller lends Classify (Answer.Room) for one Result.
type Room struct {
	wait  uint32
	limit Limit
}

// Classify classifies one upstream answer; see the package comment for the
// order of the rules.
func Classify(a Answer) Result { return classify(a, findError) }

// errorFinder is findError's signature; the differential tests pass the
// reference reading in its place.
type errorFinder func(h headers, body string, isError bool) found

func classify(a Answer, find errorFinder) Result {
	prof := profileOf(a.Provider)
	h := a.headers()
	isError := a.Status >= 400

	found := find(h, a.Body, isError)
	obj := found.obj
	if !obj.found {
		return Result{}
	}
	// Inside a 2xx answer the HTTP status says nothing; a numeric
	// error.code of 400-599 says what the provider meant.
	status := a.Status
	inBand := !isError
	if inBand {
		status = statusCode(obj.Code)
	}

	v, rule, codeValue := decide(prof, status, h, &obj, inBand, found.stream)
	text := scanText(obj.Message, obj.Extra)
	// The text lowered once, for the phrase rules and the limit facet.
	var buf [1024]byte
	var low lowered
	if v.refine != 0 || a.Limits {
		low = lower(buf[:0], text)
	}
	if r, rr, ok := refine(v, &low); ok {
		v, rule = r, rr
	}
	if a.Operator != nil {
		code := codeValue
		if code == "" {
			code = primaryCode(&obj)
		}
		ov := Verdict{Class: v.class, Kind: v.kind, Rule: rule}
		if a.Operator(Seen{Status: status, Code: code, Type: obj.Type, StatusName: obj.Status, ErrorType: obj.ErrorType, Message: obj.Message}, &ov) {
			v.class, v.kind, rule = ov.Class, ov.Kind, ov.Rule
		}
	}

	res := Result{
		Class:       v.class,
		Kind:        v.kind,
		Code:        codeValue,
		Message:     obj.Message,
		Rule:        rule,
		Stream:      found.stream && inBand,
		InBody:      inBand && !found.stream,
		AfterOutput: found.afterOutput && inBand,
		// newHeaders keeps the caller's map only when every name is
		// folded.
		HeadersFolded: h.folded == nil,
	}
	if res.Code == "" {
		res.Code = primaryCode(&obj)
	}
	var w *waitInput
	if v.class == classTransient {
		w = &waitInput{h: h, retryDelay: obj.RetryDelay, text: text, receivedAt: a.ReceivedAt, now: a.Now, clock: a.Clock}
		var secs uint32
		var found bool
		secs, found, res.WaitSource, res.WaitClamped = waitFor(prof.waitList(), w)
		if found {
			if a.Room != nil {
				res.RetryAfterSecs = &a.Room.wait
			} else {
				res.RetryAfterSecs = new(uint32)
			}
			*res.RetryAfterSecs = secs
		}
		res.Clock = w.clockRead
	}
	if a.Limits {
		if w == nil {
			w = &waitInput{h: h, retryDelay: obj.RetryDelay, text: text, receivedAt: a.ReceivedAt, now: a.Now, clock: a.Clock}
		}
		if res.Limit = readLimit(&res, &obj, status, &low, a.Body, w, a.Room); res.Limit != nil {
			res.Clock = res.Clock || res.Limit.Clock
		}
	}
	return res
}

// found is where findError found the error.
type found struct {
	obj errorObject
	// stream: the body is an event stream; afterOutput: an event before
	// the error delivered output.
	stream, afterOutput bool
}

// findError finds the answer's error object. An error status always has
// one, with or without a body; a 2xx (or any status below 400) only
// through an event stream's error event or an explicit error object in
// its JSON body.
func findError(h headers, body string, isError bool) found {
	if looksLikeSSE(h, body) {
		f := found{stream: true}
		if o, out, ok := streamError(body); ok {
			f.obj, f.afterOutput = o, out
		} else if isError {
			f.obj = bodyError(body)
		}
		f.obj = withHeaderType(h, f.obj)
		return f
	}
	if !isError {
		o, _ := inBandError(body)
		return found{obj: withHeaderType(h, o)}
	}
	return found{obj: withHeaderType(h, bodyError(body))}
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

// decide runs steps 2 to 4: codes (the answer's, then the relayed
// upstream's), x-should-retry, status defaults. It returns the verdict,
// its rule and the code that decided ("" if none). inBand says the error
// came inside a 2xx answer, where status is the body's numeric code (0
// when it has none) and stream says it came in an event stream.
func decide(prof profile, status int, h headers, obj *errorObject, inBand, stream bool) (verdict, string, string) {
	if v, ok := ownVerdict(obj); ok {
		return v, "errsvc.error_info", ""
	}
	if v, rule, c, ok := lookupCodes(rulesFor(prof.fam, obj.shape), obj, ""); ok {
		return v, rule, c
	}
	if in := obj.Inner; in != nil {
		if v, rule, c, ok := lookupCodes(rulesFor(familyOf(obj.Upstream), in.shape), in, upstreamPrefix); ok {
			return v, rule, c
		}
	}
	if inBand && status == 0 {
		if stream {
			return inBandDefault, "stream.error_event", ""
		}
		return inBandDefault, "body.error_object", ""
	}
	v, rule := statusVerdict(prof, status)
	if inBand {
		return v, inBandRule(rule), ""
	}
	if hv, ok := shouldRetry(h, status, v); ok {
		return hv, "header.x-should-retry", ""
	}
	return v, rule, ""
}

// lookupCodes runs code rules on one error object, first match wins.
func lookupCodes(rules []codeRule, obj *errorObject, prefix string) (verdict, string, string, bool) {
	for _, r := range rules {
		one, many := r.field.values(obj)
		if !r.field.repeated() {
			if v, rule, c, ok := lookupCode(r, one, prefix); ok {
				return v, rule, c, true
			}
			continue
		}
		for _, c := range many {
			if v, rule, c, ok := lookupCode(r, c, prefix); ok {
				return v, rule, c, true
			}
		}
	}
	return verdict{}, "", "", false
}

func lookupCode(r codeRule, c, prefix string) (verdict, string, string, bool) {
	v, key, ok := r.table.lookup(c)
	if !ok {
		return verdict{}, "", "", false
	}
	if !r.isCode {
		c = ""
	}
	return v, r.ruleName(prefix, key), c, true
}

// shouldRetry applies x-should-retry, the one rule for it: the header is
// the provider's own answer to "may a retry succeed?", so it decides
// between transient and permanent, both ways (true turns a permanent
// status default into transient, false a transient one into permanent),
// and nothing else. It never refines 401 or 403: the contract lets only a
// more specific structured code refine those, since a retry flag says
// nothing about whether the credential is good. It never touches
// context_overflow, which is about the input, not about retrying. A code
// that decided ranks above it (a code names the cause; the header does
// not); the status default ranks below it, since the OpenAI and Anthropic
// SDKs let the header override the status.
func shouldRetry(h headers, status int, v verdict) (verdict, bool) {
	if status == 401 || status == 403 {
		return verdict{}, false
	}
	switch strings.ToLower(h.get("x-should-retry")) {
	case "true":
		if v.class == classPermanent {
			return verdict{classTransient, kindUpstreamError, 0}, true
		}
	case "false":
		if v.class == classTransient {
			kind := v.kind
			if status == 429 {
				kind = kindQuotaExceeded
			}
			return verdict{classPermanent, kind, 0}, true
		}
	}
	return verdict{}, false
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

// OwnDomain is the ErrorInfo domain of the answers errsvc writes.
const OwnDomain = "errsvc.dev"

// ownClassKinds is the kind an answer of errsvc's own reads as when its
// ErrorInfo names a kind outside the ones a provider answer can read as.
var ownClassKinds = map[string]string{
	classTransient:       kindProviderUnavailable,
	classPermanent:       kindProviderError,
	classAuthRequired:    kindAuthFailed,
	classContextOverflow: kindContentTooLarge,
}

// ownVerdict reads an answer errsvc wrote itself (google_error carries its
// ErrorInfo, domain errsvc.dev): the class it stated is the class, so a
// context overflow, which no HTTP status says, reads back as one.
func ownVerdict(obj *errorObject) (verdict, bool) {
	fallback, ok := ownClassKinds[obj.OwnClass]
	if !ok {
		return verdict{}, false
	}
	kind := obj.OwnKind
	if !slices.Contains(kinds, kind) {
		kind = fallback
	}
	return verdict{class: obj.OwnClass, kind: kind}, true
}
