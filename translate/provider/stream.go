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

// streamError finds the first error event of an SSE stream. An event is an
// error when it is named "error" (Anthropic sends event: error with
// {"type":"error","error":{...}}; OpenAI's Responses API sends
// {"type":"error","code","message"}), when its data carries an "error"
// member (Chat Completions and Gemini streams), or when it is a
// response.failed event, whose response.error holds the cause (what Codex
// reads).
func streamError(body string) (errorObject, bool) {
	var (
		name string
		data []string
		seen bool
	)
	dispatch := func() (errorObject, bool) {
		defer func() { name, data, seen = "", nil, false }()
		if !seen {
			return errorObject{}, false
		}
		return eventError(name, strings.Join(data, "\n"))
	}
	for _, line := range sseLines(body) {
		if line == "" {
			if o, ok := dispatch(); ok {
				return o, true
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
	return dispatch()
}

// sseLines splits on CRLF, CR or LF, as the SSE grammar allows.
func sseLines(body string) []string {
	body = strings.ReplaceAll(body, "\r\n", "\n")
	body = strings.ReplaceAll(body, "\r", "\n")
	return strings.Split(body, "\n")
}

// eventError reads one event.
func eventError(name, data string) (errorObject, bool) {
	t := strings.TrimSpace(data)
	if t == "[DONE]" {
		return errorObject{}, false
	}
	v, isJSON := decodeJSON(t)
	m, isObject := v.(map[string]any)
	switch {
	case isObject && code(m["type"]) == "response.failed":
		if r, ok := m["response"].(map[string]any); ok {
			if o, ok := objectError(r); ok {
				return o, true
			}
		}
		return errorObject{found: true, shape: familyOpenAI, Extra: t}, true
	case isObject && (name == "error" || m["error"] != nil || code(m["type"]) == "error"):
		if o, ok := objectError(m); ok {
			return o, true
		}
		if name == "error" {
			return errorObject{found: true, Extra: t}, true
		}
	case isJSON && name == "error":
		if o, ok := jsonError(t); ok {
			return o, true
		}
		return errorObject{found: true, Extra: t}, true
	case name == "error":
		return errorObject{found: true, Message: data}, true
	}
	return errorObject{}, false
}
