package provider

// The reference reading: the error-object readers as they were before
// jsonread, on encoding/json's map tree, kept verbatim (renamed with a ref
// prefix) so the differential tests can hold the new readers to them.

import (
	"encoding/json"
	"strings"
)

// refBodyError finds the error object of a non-stream body: JSON in a known
// shape, any JSON object with error/message/code/type, or plain text.
func refBodyError(body string) errorObject {
	if o, ok := refJsonError(body); ok {
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

// refJsonError decodes body and finds its error object. A top-level array is
// searched element by element: Gemini sometimes wraps its google.rpc.Status
// in one.
func refJsonError(body string) (errorObject, bool) {
	v, ok := refDecodeJSON(body)
	if !ok {
		return errorObject{}, false
	}
	switch v := v.(type) {
	case map[string]any:
		return refObjectError(v)
	case []any:
		for _, e := range v {
			if m, ok := e.(map[string]any); ok {
				if o, ok := refObjectError(m); ok {
					return o, true
				}
			}
		}
	}
	return errorObject{}, false
}

// refDecodeJSON keeps numbers as json.Number so a numeric code comes back as
// the provider wrote it.
func refDecodeJSON(s string) (any, bool) {
	t := strings.TrimSpace(s)
	if !looksJSON(t) {
		return nil, false
	}
	d := json.NewDecoder(strings.NewReader(t))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, false
	}
	return v, true
}

// refObjectError reads one JSON object. The shapes, most specific first:
//
//	{"type":"error","error":{"type","message"}}              Anthropic
//	{"error":{"code":429,"message","status","details":[...]}} google.rpc.Status
//	{"error":{"message","type","param","code"}}               OpenAI and compatibles
//	{"error":"text","code":...}                               Ollama, xAI
//	{"message"|"Message","__type"|"code"|"type"}              Bedrock, vLLM, others
func refObjectError(m map[string]any) (errorObject, bool) {
	if e, ok := m["error"].(map[string]any); ok {
		o := errorObject{found: true, shape: familyOpenAI}
		o.Message = refFirstText(e, "message", "Message")
		o.Code = refCode(e["code"])
		o.Type = refCode(e["type"])
		// Only google.rpc.Status has a string status; Azure repeats the
		// HTTP status there as a number.
		if st, ok := e["status"].(string); ok {
			o.Status = strings.TrimSpace(st)
		}
		details, hasDetails := e["details"].([]any)
		refReadDetails(&o, details)
		if md, ok := e["metadata"].(map[string]any); ok {
			refReadMetadata(&o, md)
		}
		// Azure puts the specific cause of a content filter in innererror.
		if ie, ok := e["innererror"].(map[string]any); ok && o.Type == "" {
			o.Type = refCode(ie["code"])
		}
		switch {
		case refCode(m["type"]) == "error":
			o.shape = familyAnthropic
		case o.Status != "" || hasDetails:
			o.shape = familyGoogle
		}
		return o, true
	}
	if s := refText(m["error"]); strings.TrimSpace(s) != "" {
		o := errorObject{found: true, shape: familyOpenAI, Message: s}
		o.Code = refCode(m["code"])
		if t := refCode(m["type"]); t != "error" {
			o.Type = t
		}
		// Hugging Face TGI: {"error": "...", "error_type": "overloaded"}.
		if t := refCode(m["error_type"]); t != "" && o.Type == "" {
			o.Type = t
		}
		return o, true
	}
	o := errorObject{shape: familyOpenAI}
	o.Message = refFirstText(m, "message", "Message", "detail", "error_message")
	o.Code = strings.TrimSpace(refFirstText(m, "code", "error_code"))
	if t := refCode(m["type"]); t != "error" {
		o.Type = t
	}
	if t := refCode(m["__type"]); t != "" {
		o.ErrorType = amznName(t)
		o.shape = familyBedrock
	}
	o.found = o.Message != "" || o.Code != "" || o.Type != "" || o.ErrorType != ""
	return o, o.found
}

// refReadMetadata reads OpenRouter's error.metadata: the raw upstream error
// (text for the phrases, and, when it is JSON, an error object of its own),
// the upstream's name and which limit was hit.
func refReadMetadata(o *errorObject, md map[string]any) {
	o.Extra = refText(md["raw"])
	o.LimitSource = refCode(md["limit_source"])
	if hs, ok := md["headers"].(map[string]any); ok {
		for _, n := range metaRateLimitHeaders {
			v := refCode(hs[n[0]])
			if v == "" {
				v = refCode(hs[n[1]])
			}
			if v != "" {
				if o.RateLimitHeaders == nil {
					o.RateLimitHeaders = map[string]string{}
				}
				o.RateLimitHeaders[n[1]] = v
			}
		}
	}
	o.Upstream = strings.ToLower(refCode(md["provider_name"]))
	if o.Extra == "" {
		return
	}
	if inner, ok := refJsonError(o.Extra); ok {
		inner.Inner = nil
		o.Inner = &inner
	}
}

// refReadDetails reads the google.rpc.Status details errsvc understands.
func refReadDetails(o *errorObject, details []any) {
	for _, d := range details {
		m, ok := d.(map[string]any)
		if !ok {
			continue
		}
		switch t := refCode(m["@type"]); {
		case strings.HasSuffix(t, "google.rpc.RetryInfo"):
			if o.RetryDelay == "" {
				o.RetryDelay = refProtoDuration(m["retryDelay"])
			}
		case strings.HasSuffix(t, "google.rpc.ErrorInfo"):
			if r := refCode(m["reason"]); r != "" {
				o.Reasons = append(o.Reasons, r)
			}
		case strings.HasSuffix(t, "google.rpc.QuotaFailure"):
			vs, _ := m["violations"].([]any)
			for _, v := range vs {
				if vm, ok := v.(map[string]any); ok {
					if q := refCode(vm["quotaValue"]); q != "" {
						o.QuotaValues = append(o.QuotaValues, q)
					}
				}
			}
		}
	}
}

// refProtoDuration reads a google.protobuf.Duration in its JSON form ("20s")
// or, as some clients re-serialise it, {"seconds":20,"nanos":0}.
func refProtoDuration(v any) string {
	if s := refCode(v); s != "" {
		return s
	}
	m, ok := v.(map[string]any)
	if !ok {
		return ""
	}
	secs, nanos := refCode(m["seconds"]), refCode(m["nanos"])
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

// text renders a JSON string or number verbatim; anything else is "".
func refText(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case json.Number:
		return v.String()
	}
	return ""
}

// code renders a structured code: text without surrounding blanks.
func refCode(v any) string { return strings.TrimSpace(refText(v)) }

func refFirstText(m map[string]any, keys ...string) string {
	for _, k := range keys {
		if s := refText(m[k]); s != "" {
			return s
		}
	}
	return ""
}

// refStreamError finds the first error event of an SSE stream, and says
// whether output had begun before it. An event is an error when it is
// named "error" (Anthropic sends event: error with
// {"type":"error","error":{...}}; OpenAI's Responses API sends
// {"type":"error","code","message"}), when its data carries an "error"
// member (Chat Completions, Gemini, vLLM and sglang streams, OpenRouter's
// mid-stream chunks), when it is a response.failed event, whose
// response.error holds the cause (what Codex reads), when a choice
// finishes with finish_reason "error" (OpenRouter), or when it is a
// Bedrock stream exception ({"throttlingException": {"message"}}, as
// gateways relay ConverseStream).
func refStreamError(body string) (errorObject, bool, bool) {
	var (
		name   string
		data   []string
		seen   bool
		output bool
	)
	dispatch := func() (errorObject, bool) {
		defer func() { name, data, seen = "", nil, false }()
		if !seen {
			return errorObject{}, false
		}
		o, isErr, out := refEventError(name, strings.Join(data, "\n"))
		if !isErr {
			output = output || out
		}
		return o, isErr
	}
	for _, line := range refSseLines(body) {
		if line == "" {
			if o, ok := dispatch(); ok {
				return o, output, true
			}
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "event":
			name, seen = strings.TrimSpace(value), true
		case "data":
			data, seen = append(data, value), true
		}
	}
	o, ok := dispatch()
	return o, output, ok
}

// refSseLines splits on CRLF, CR or LF, as the SSE grammar allows.
func refSseLines(body string) []string {
	body = strings.ReplaceAll(body, "\r\n", "\n")
	body = strings.ReplaceAll(body, "\r", "\n")
	return strings.Split(body, "\n")
}

// refEventError reads one event: the error it carries, whether it is an
// error event, and, for an event that is not, whether it delivered output.
func refEventError(name, data string) (errorObject, bool, bool) {
	t := strings.TrimSpace(data)
	if t == "[DONE]" {
		return errorObject{}, false, false
	}
	v, isJSON := refDecodeJSON(t)
	m, isObject := v.(map[string]any)
	switch {
	case isObject && refCode(m["type"]) == "response.failed":
		if r, ok := m["response"].(map[string]any); ok {
			if o, ok := refObjectError(r); ok {
				return o, true, false
			}
		}
		return errorObject{found: true, shape: familyOpenAI, Extra: t}, true, false
	case isObject && (name == "error" || refIsErrorValue(m["error"]) || refCode(m["type"]) == "error"):
		if o, ok := refObjectError(m); ok {
			return o, true, false
		}
		if name == "error" {
			return errorObject{found: true, Extra: t}, true, false
		}
	case isObject && refFinishedWithError(m):
		return errorObject{found: true, shape: familyOpenAI, Code: "error", Extra: t}, true, false
	case isObject:
		if o, ok := refBedrockStreamException(m); ok {
			return o, true, false
		}
		return errorObject{}, false, refDeliversOutput(name, m)
	case isJSON && name == "error":
		if o, ok := refJsonError(t); ok {
			return o, true, false
		}
		return errorObject{found: true, Extra: t}, true, false
	case name == "error":
		return errorObject{found: true, Message: eventText(data)}, true, false
	}
	return errorObject{}, false, false
}

// refIsErrorValue says whether an "error" member carries an error: an object
// or a non-blank string, not null or false (OpenRouter and some servers
// send "error": null on every chunk).
func refIsErrorValue(v any) bool {
	switch v := v.(type) {
	case map[string]any:
		return len(v) > 0
	case string:
		return strings.TrimSpace(v) != ""
	}
	return false
}

// refFinishedWithError is OpenRouter's mid-stream failure without an error
// member: a choice whose finish_reason is "error".
func refFinishedWithError(m map[string]any) bool {
	for _, c := range refObjects(m["choices"]) {
		if refCode(c["finish_reason"]) == "error" {
			return true
		}
	}
	return false
}

// refBedrockExceptions are the exception members of Bedrock's ConverseStream
// and InvokeModelWithResponseStream output, as SDKs and gateways render an
// event-stream exception frame in JSON.
// A slice, not a map, so an event naming two resolves the same way always.
var refBedrockExceptions = [...]string{
	"internalServerException", "modelStreamErrorException", "validationException",
	"throttlingException", "serviceUnavailableException", "modelTimeoutException",
}

func refBedrockStreamException(m map[string]any) (errorObject, bool) {
	for _, member := range refBedrockExceptions {
		if e, ok := m[member].(map[string]any); ok {
			name := strings.ToUpper(member[:1]) + member[1:]
			o := errorObject{found: true, shape: familyBedrock, ErrorType: name}
			o.Message = refFirstText(e, "message", "Message")
			o.Extra = refText(e["originalMessage"])
			return o, true
		}
	}
	return errorObject{}, false
}

// refDeliversOutput says whether a non-error event carried model output, so
// a later error means a retry with the same input repeats it: Chat
// Completions choices[].delta content or tool calls (and legacy text),
// Responses API *.delta events, Anthropic content_block_delta, Gemini
// candidates with parts, Bedrock contentBlockDelta or an InvokeModel chunk,
// TGI tokens.
func refDeliversOutput(name string, m map[string]any) bool {
	typ := refCode(m["type"])
	switch {
	case name == "content_block_delta" || typ == "content_block_delta":
		return true
	case strings.HasPrefix(typ, "response.") && strings.HasSuffix(typ, ".delta"):
		return m["delta"] != nil && m["delta"] != ""
	case m["contentBlockDelta"] != nil:
		return true
	}
	if c, ok := m["chunk"].(map[string]any); ok && refText(c["bytes"]) != "" {
		return true
	}
	if tok, ok := m["token"].(map[string]any); ok && refText(tok["text"]) != "" {
		return true
	}
	for _, c := range refObjects(m["choices"]) {
		if refText(c["text"]) != "" {
			return true
		}
		if d, ok := c["delta"].(map[string]any); ok {
			if refText(d["content"]) != "" || refText(d["reasoning_content"]) != "" || refText(d["reasoning"]) != "" || len(refObjects(d["tool_calls"])) > 0 {
				return true
			}
		}
	}
	for _, c := range refObjects(m["candidates"]) {
		if content, ok := c["content"].(map[string]any); ok && len(refObjects(content["parts"])) > 0 {
			return true
		}
	}
	return false
}

// refObjects returns the refObjects of a JSON array, skipping anything else.
func refObjects(v any) []map[string]any {
	a, _ := v.([]any)
	out := make([]map[string]any, 0, len(a))
	for _, e := range a {
		if m, ok := e.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// refInBandError finds an error object in a 2xx JSON body: gateways and some
// OpenAI-compatible servers answer a failure with 200 and {"error": {...}}.
// Only an explicit error counts (a non-empty "error" member, Anthropic's
// {"type":"error"}, or a JSON array holding one), so a completion that
// merely has a "message" field is never read as an error.
func refInBandError(body string) (errorObject, bool) {
	v, ok := refDecodeJSON(body)
	if !ok {
		return errorObject{}, false
	}
	candidates := []map[string]any{}
	switch v := v.(type) {
	case map[string]any:
		candidates = append(candidates, v)
	case []any:
		candidates = refObjects(v)
	}
	for _, m := range candidates {
		if refIsErrorValue(m["error"]) || refCode(m["type"]) == "error" {
			if o, ok := refObjectError(m); ok {
				return o, true
			}
		}
	}
	return errorObject{}, false
}
