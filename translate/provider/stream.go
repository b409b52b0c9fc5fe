package provider

import (
	"encoding/json"
	"strings"

	"github.com/errsvc/errsvc/translate/internal/jsonread"
)

// looksLikeSSE says whether a body is a server-sent event stream: by its
// Content-Type, or, since callers often drop headers, by its first line.
func looksLikeSSE(h headers, body string) bool {
	if strings.Contains(strings.ToLower(h.get("content-type")), "text/event-stream") {
		return true
	}
	t := trimStreamLead(body)
	for _, p := range [...]string{"event:", "data:", "id:", "retry:", ":"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// trimStreamLead is strings.TrimLeft(s, " \t\r\n\ufeff") without its
// Unicode path (a cutset with a non-ASCII rune decodes every rune of s
// through a general search); TestShortcuts and FuzzShortcuts hold the
// two to the same result.
func trimStreamLead(s string) string {
	for {
		switch {
		case s == "":
			return s
		case s[0] == ' ' || s[0] == '\t' || s[0] == '\r' || s[0] == '\n':
			s = s[1:]
		case strings.HasPrefix(s, "\ufeff"):
			s = s[len("\ufeff"):]
		default:
			return s
		}
	}
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
		data   string
		ndata  int
		seen   bool
		output bool
	)
	// dispatch reads the event gathered so far; its data lines joined by
	// "\n", as the SSE grammar says.
	dispatch := func() (errorObject, bool) {
		if !seen {
			return errorObject{}, false
		}
		o, isErr, out := eventError(name, data)
		if !isErr {
			output = output || out
		}
		name, data, ndata, seen = "", "", 0, false
		return o, isErr
	}
	for lines := (sseLines{rest: body}); ; {
		line, more := lines.next()
		if !more {
			break
		}
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
			if ndata > 0 {
				data += "\n" + value
			} else {
				data = value
			}
			ndata, seen = ndata+1, true
		}
	}
	o, ok := dispatch()
	return o, output, ok
}

// sseLines splits on CRLF, CR or LF, as the SSE grammar allows, without
// copying: like splitting on "\n" after turning CRLF and CR into LF, so a
// body ending in a line break ends with an empty line.
type sseLines struct {
	rest string
	done bool
}

func (l *sseLines) next() (string, bool) {
	if l.done {
		return "", false
	}
	i := strings.IndexByte(l.rest, '\n')
	if i < 0 {
		i = strings.IndexByte(l.rest, '\r')
	} else if j := strings.IndexByte(l.rest[:i], '\r'); j >= 0 {
		i = j
	}
	if i < 0 {
		l.done = true
		return l.rest, true
	}
	line := l.rest[:i]
	if l.rest[i] == '\r' && i+1 < len(l.rest) && l.rest[i+1] == '\n' {
		i++
	}
	l.rest = l.rest[i+1:]
	return line, true
}

// eventError reads one event: the error it carries, whether it is an
// error event, and, for an event that is not, whether it delivered output.
func eventError(name, data string) (errorObject, bool, bool) {
	t := strings.TrimSpace(data)
	if t == "[DONE]" {
		return errorObject{}, false, false
	}
	d, isJSON := parseJSON(t)
	if isJSON {
		defer d.Release()
	}
	var m jsonread.Value
	if isJSON {
		m = d.Root()
	}
	isObject := m.Kind() == jsonread.Object
	switch {
	case isObject && code(m.Get("type")) == "response.failed":
		if r := m.Get("response"); r.Kind() == jsonread.Object {
			if o, ok := objectError(r); ok {
				return o, true, false
			}
		}
		return errorObject{found: true, shape: familyOpenAI, Extra: t}, true, false
	case isObject && (name == "error" || isErrorValue(m.Get("error")) || code(m.Get("type")) == "error"):
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
		if o, ok := valueError(m); ok {
			return o, true, false
		}
		return errorObject{found: true, Extra: t}, true, false
	case name == "error":
		return errorObject{found: true, Message: eventText(data)}, true, false
	}
	return errorObject{}, false, false
}

// eventText is the message of an error event whose data is no JSON object
// or array: the data itself, or, when it is a JSON string ("boom"), the
// string it holds, not its quotes and escapes.
func eventText(data string) string {
	t := strings.TrimSpace(data)
	if len(t) < 2 || t[0] != '"' {
		return data
	}
	var s string
	if err := json.Unmarshal([]byte(t), &s); err != nil {
		return data
	}
	return s
}

// isErrorValue says whether an "error" member carries an error: an object
// or a non-blank string, not null or false (OpenRouter and some servers
// send "error": null on every chunk).
func isErrorValue(v jsonread.Value) bool {
	switch v.Kind() {
	case jsonread.Object:
		return v.Len() > 0
	case jsonread.String:
		s, _ := v.Str()
		return strings.TrimSpace(s) != ""
	}
	return false
}

// finishedWithError is OpenRouter's mid-stream failure without an error
// member: a choice whose finish_reason is "error".
func finishedWithError(m jsonread.Value) bool {
	for it := m.Get("choices").Elems(); ; {
		c, more := it.Next()
		if !more {
			return false
		}
		if c.Kind() == jsonread.Object && code(c.Get("finish_reason")) == "error" {
			return true
		}
	}
}

// bedrockExceptions are the exception members of Bedrock's ConverseStream
// and InvokeModelWithResponseStream output, as SDKs and gateways render an
// event-stream exception frame in JSON, with the exception names they
// stand for.
// A slice, not a map, so an event naming two resolves the same way always.
var bedrockExceptions = [...]struct{ member, name string }{
	{"internalServerException", "InternalServerException"},
	{"modelStreamErrorException", "ModelStreamErrorException"},
	{"validationException", "ValidationException"},
	{"throttlingException", "ThrottlingException"},
	{"serviceUnavailableException", "ServiceUnavailableException"},
	{"modelTimeoutException", "ModelTimeoutException"},
}

func bedrockStreamException(m jsonread.Value) (errorObject, bool) {
	for _, x := range bedrockExceptions {
		if e := m.Get(x.member); e.Kind() == jsonread.Object {
			o := errorObject{found: true, shape: familyBedrock, ErrorType: x.name}
			o.Message = firstText(e, "message", "Message")
			o.Extra = text(e.Get("originalMessage"))
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
func deliversOutput(name string, m jsonread.Value) bool {
	typ := code(m.Get("type"))
	switch {
	case name == "content_block_delta" || typ == "content_block_delta":
		return true
	case strings.HasPrefix(typ, "response.") && strings.HasSuffix(typ, ".delta"):
		d := m.Get("delta")
		s, isStr := d.Str()
		return !d.IsNull() && !(isStr && s == "")
	case !m.Get("contentBlockDelta").IsNull():
		return true
	}
	if c := m.Get("chunk"); c.Kind() == jsonread.Object && text(c.Get("bytes")) != "" {
		return true
	}
	if tok := m.Get("token"); tok.Kind() == jsonread.Object && text(tok.Get("text")) != "" {
		return true
	}
	for it := m.Get("choices").Elems(); ; {
		c, more := it.Next()
		if !more {
			break
		}
		if c.Kind() != jsonread.Object {
			continue
		}
		if text(c.Get("text")) != "" {
			return true
		}
		if d := c.Get("delta"); d.Kind() == jsonread.Object {
			if text(d.Get("content")) != "" || text(d.Get("reasoning_content")) != "" || text(d.Get("reasoning")) != "" || hasObject(d.Get("tool_calls")) {
				return true
			}
		}
	}
	for it := m.Get("candidates").Elems(); ; {
		c, more := it.Next()
		if !more {
			break
		}
		if content := c.Get("content"); content.Kind() == jsonread.Object && hasObject(content.Get("parts")) {
			return true
		}
	}
	return false
}

// hasObject says whether a JSON array holds an object.
func hasObject(v jsonread.Value) bool {
	for it := v.Elems(); ; {
		e, more := it.Next()
		if !more {
			return false
		}
		if e.Kind() == jsonread.Object {
			return true
		}
	}
}

// inBandError finds an error object in a 2xx JSON body: gateways and some
// OpenAI-compatible servers answer a failure with 200 and {"error": {...}}.
// Only an explicit error counts (a non-empty "error" member, Anthropic's
// {"type":"error"}, or a JSON array holding one), so a completion that
// merely has a "message" field is never read as an error.
func inBandError(body string) (errorObject, bool) {
	d, ok := parseJSON(body)
	if !ok {
		return errorObject{}, false
	}
	defer d.Release()
	v := d.Root()
	if v.Kind() == jsonread.Object {
		return explicitError(v)
	}
	for it := v.Elems(); ; {
		m, more := it.Next()
		if !more {
			return errorObject{}, false
		}
		if m.Kind() == jsonread.Object {
			if o, ok := explicitError(m); ok {
				return o, true
			}
		}
	}
}

func explicitError(m jsonread.Value) (errorObject, bool) {
	if isErrorValue(m.Get("error")) || code(m.Get("type")) == "error" {
		if o, ok := objectError(m); ok {
			return o, true
		}
	}
	return errorObject{}, false
}
