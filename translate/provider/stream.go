package provider

import "strings"

// looksLikeSSE says whether a body is a server-sent event stream: by its
// Content-Type, or, since callers often drop headers, by its first line.
func looksLikeSSE(h headers, body string) bool {
	if strings.Contains(strings.ToLower(h.get("content-type")), "text/event-stream") {
		return true
	}
	t := strings.TrimLeft(body, " \t\r\n\ufeff")
	for _, p := range [...]string{"event:", "data:", "id:", "retry:", ":"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// streamError finds the first error event of an SSE stream, and says
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
func streamError(body string) (errorObject, bool, bool) {
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
		o, isErr, out := eventError(name, strings.Join(data, "\n"))
		if !isErr {
			output = output || out
		}
		return o, isErr
	}
	for _, line := range sseLines(body) {
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

// sseLines splits on CRLF, CR or LF, as the SSE grammar allows.
func sseLines(body string) []string {
	body = strings.ReplaceAll(body, "\r\n", "\n")
	body = strings.ReplaceAll(body, "\r", "\n")
	return strings.Split(body, "\n")
}

// eventError reads one event: the error it carries, whether it is an
// error event, and, for an event that is not, whether it delivered output.
func eventError(name, data string) (errorObject, bool, bool) {
	t := strings.TrimSpace(data)
	if t == "[DONE]" {
		return errorObject{}, false, false
	}
	v, isJSON := decodeJSON(t)
	m, isObject := v.(map[string]any)
	switch {
	case isObject && code(m["type"]) == "response.failed":
		if r, ok := m["response"].(map[string]any); ok {
			if o, ok := objectError(r); ok {
				return o, true, false
			}
		}
		return errorObject{found: true, shape: familyOpenAI, Extra: t}, true, false
	case isObject && (name == "error" || isErrorValue(m["error"]) || code(m["type"]) == "error"):
		if o, ok := objectError(m); ok {
			return o, true, false
		}
		if name == "error" {
			return errorObject{found: true, Extra: t}, true, false
		}
	case isObject && finishedWithError(m):
		return errorObject{found: true, shape: familyOpenAI, Code: "error", Extra: t}, true, false
	case isObject:
		if o, ok := bedrockStreamException(m); ok {
			return o, true, false
		}
		return errorObject{}, false, deliversOutput(name, m)
	case isJSON && name == "error":
		if o, ok := jsonError(t); ok {
			return o, true, false
		}
		return errorObject{found: true, Extra: t}, true, false
	case name == "error":
		return errorObject{found: true, Message: data}, true, false
	}
	return errorObject{}, false, false
}

// isErrorValue says whether an "error" member carries an error: an object
// or a non-blank string, not null or false (OpenRouter and some servers
// send "error": null on every chunk).
func isErrorValue(v any) bool {
	switch v := v.(type) {
	case map[string]any:
		return len(v) > 0
	case string:
		return strings.TrimSpace(v) != ""
	}
	return false
}

// finishedWithError is OpenRouter's mid-stream failure without an error
// member: a choice whose finish_reason is "error".
func finishedWithError(m map[string]any) bool {
	for _, c := range objects(m["choices"]) {
		if code(c["finish_reason"]) == "error" {
			return true
		}
	}
	return false
}

// bedrockExceptions are the exception members of Bedrock's ConverseStream
// and InvokeModelWithResponseStream output, as SDKs and gateways render an
// event-stream exception frame in JSON.
// A slice, not a map, so an event naming two resolves the same way always.
var bedrockExceptions = [...]string{
	"internalServerException", "modelStreamErrorException", "validationException",
	"throttlingException", "serviceUnavailableException", "modelTimeoutException",
}

func bedrockStreamException(m map[string]any) (errorObject, bool) {
	for _, member := range bedrockExceptions {
		if e, ok := m[member].(map[string]any); ok {
			name := strings.ToUpper(member[:1]) + member[1:]
			o := errorObject{found: true, shape: familyBedrock, ErrorType: name}
			o.Message = firstText(e, "message", "Message")
			o.Extra = text(e["originalMessage"])
			return o, true
		}
	}
	return errorObject{}, false
}

// deliversOutput says whether a non-error event carried model output, so
// a later error means a retry with the same input repeats it: Chat
// Completions choices[].delta content or tool calls (and legacy text),
// Responses API *.delta events, Anthropic content_block_delta, Gemini
// candidates with parts, Bedrock contentBlockDelta or an InvokeModel chunk,
// TGI tokens.
func deliversOutput(name string, m map[string]any) bool {
	typ := code(m["type"])
	switch {
	case name == "content_block_delta" || typ == "content_block_delta":
		return true
	case strings.HasPrefix(typ, "response.") && strings.HasSuffix(typ, ".delta"):
		return m["delta"] != nil && m["delta"] != ""
	case m["contentBlockDelta"] != nil:
		return true
	}
	if c, ok := m["chunk"].(map[string]any); ok && text(c["bytes"]) != "" {
		return true
	}
	if tok, ok := m["token"].(map[string]any); ok && text(tok["text"]) != "" {
		return true
	}
	for _, c := range objects(m["choices"]) {
		if text(c["text"]) != "" {
			return true
		}
		if d, ok := c["delta"].(map[string]any); ok {
			if text(d["content"]) != "" || text(d["reasoning_content"]) != "" || text(d["reasoning"]) != "" || len(objects(d["tool_calls"])) > 0 {
				return true
			}
		}
	}
	for _, c := range objects(m["candidates"]) {
		if content, ok := c["content"].(map[string]any); ok && len(objects(content["parts"])) > 0 {
			return true
		}
	}
	return false
}

// objects returns the objects of a JSON array, skipping anything else.
func objects(v any) []map[string]any {
	a, _ := v.([]any)
	out := make([]map[string]any, 0, len(a))
	for _, e := range a {
		if m, ok := e.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// inBandError finds an error object in a 2xx JSON body: gateways and some
// OpenAI-compatible servers answer a failure with 200 and {"error": {...}}.
// Only an explicit error counts (a non-empty "error" member, Anthropic's
// {"type":"error"}, or a JSON array holding one), so a completion that
// merely has a "message" field is never read as an error.
func inBandError(body string) (errorObject, bool) {
	v, ok := decodeJSON(body)
	if !ok {
		return errorObject{}, false
	}
	candidates := []map[string]any{}
	switch v := v.(type) {
	case map[string]any:
		candidates = append(candidates, v)
	case []any:
		candidates = objects(v)
	}
	for _, m := range candidates {
		if isErrorValue(m["error"]) || code(m["type"]) == "error" {
			if o, ok := objectError(m); ok {
				return o, true
			}
		}
	}
	return errorObject{}, false
}
