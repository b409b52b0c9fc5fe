package provider

import (
	"strings"
	"testing"
)

// TestEdges pins what the classifier does where no fixture goes: text past
// the phrase rules' bound, arrays and SSE events that hold no error object,
// and Anthropic reset headers it cannot use. Each case is an answer a
// provider or a gateway can send; found by mutation testing (gremlins), which
// listed these branches as run by no test.
func TestEdges(t *testing.T) {
	sse := map[string]string{"content-type": "text/event-stream"}
	const overflow = "maximum context length is 8192 tokens"
	// fill brings a text to exactly maxScan bytes before what follows it.
	fill := func(used int) string { return strings.Repeat("x", maxScan-used) }
	openRouter := func(raw string) string {
		return `{"error":{"code":400,"message":"Provider returned error","metadata":{"raw":"` + raw + `","provider_name":"Mystery"}}}`
	}
	cases := []struct {
		name             string
		a                Answer
		class, rule, src string
		wait             string
	}{
		{"a phrase inside the bound is read", Answer{Provider: "openai", Status: 400,
			Body: `{"error":{"message":"` + overflow + `"}}`}, "context_overflow", "phrase.maximum_context", "", "absent"},
		{"a message longer than the bound: a phrase past it is not read", Answer{Provider: "openai", Status: 400,
			Body: `{"error":{"message":"` + fill(0) + overflow + `"}}`}, "permanent", "status.400", "", "absent"},
		{"a message just under the bound: its phrase is read", Answer{Provider: "openai", Status: 400,
			Body: `{"error":{"message":"` + fill(len(overflow)+1) + overflow + `"}}`}, "context_overflow", "phrase.maximum_context", "", "absent"},
		{"message and raw upstream text: a phrase past the bound is not read", Answer{Provider: "openrouter", Status: 400,
			Body: openRouter(fill(len("Provider returned error\n")) + overflow)}, "permanent", "status.400", "", "absent"},
		{"message and raw upstream text: a phrase inside the bound is read", Answer{Provider: "openrouter", Status: 400,
			Body: openRouter(overflow)}, "context_overflow", "phrase.maximum_context", "", "absent"},
		{"plain text past the bound", Answer{Status: 400, Body: fill(0) + " " + overflow}, "permanent", "status.400", "", "absent"},
		{"JSON of no known shape: its text is read", Answer{Status: 400, Body: `{"detail":"` + overflow + `"}`},
			"context_overflow", "phrase.maximum_context", "", "absent"},
		{"an array with no error object", Answer{Status: 503, Body: `[1,"x",[]]`}, "transient", "status.503", "", "absent"},
		{"an Anthropic reset that is no time", Answer{Provider: "anthropic", Status: 429, Headers: map[string]string{
			"anthropic-ratelimit-requests-remaining": "0", "anthropic-ratelimit-requests-reset": "tomorrow"}},
			"transient", "status.429", "", "absent"},
		{"an Anthropic reset", Answer{Provider: "anthropic", Status: 429, Headers: map[string]string{
			"anthropic-ratelimit-requests-remaining": "0", "anthropic-ratelimit-requests-reset": "2025-06-01T12:00:30Z"}},
			"transient", "status.429", "anthropic-ratelimit-reset", "30"},
		{"Anthropic's unified limit allowed: its reset explains nothing", Answer{Provider: "anthropic", Status: 429, Headers: map[string]string{
			"anthropic-ratelimit-unified-status": "allowed", "anthropic-ratelimit-unified-reset": "1748779230"}},
			"transient", "status.429", "", "absent"},
		{"Anthropic's unified limit rejected", Answer{Provider: "anthropic", Status: 429, Headers: map[string]string{
			"anthropic-ratelimit-unified-status": "rejected", "anthropic-ratelimit-unified-reset": "1748779230"}},
			"transient", "status.429", "anthropic-ratelimit-unified-reset", "30"},
		{"response.failed with no error object", Answer{Provider: "openai", Status: 200, Headers: sse,
			Body: "event: response.failed\ndata: {\"type\":\"response.failed\",\"response\":{\"status\":\"failed\"}}\n\n"},
			"transient", "stream.error_event", "", "absent"},
		{"an error event whose data is a JSON string", Answer{Status: 200, Headers: sse, Body: "event: error\ndata: \"boom\"\n\n"},
			"transient", "stream.error_event", "", "absent"},
		{"an error event whose object holds no error", Answer{Status: 200, Headers: sse, Body: "event: error\ndata: {\"a\":1}\n\n"},
			"transient", "stream.error_event", "", "absent"},
		{"a stream with output and no error event", Answer{Status: 200, Headers: sse,
			Body: "data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\ndata: [DONE]\n\n"}, "", "", "", "absent"},
	}
	for _, c := range cases {
		a := c.a
		a.Now = clock
		r := Classify(a)
		if r.Class != c.class || r.Rule != c.rule || r.WaitSource != c.src || secs(r.RetryAfterSecs) != c.wait {
			t.Errorf("%s: class %q rule %q wait %s (%q), want %q %q %s (%q)", c.name,
				r.Class, r.Rule, secs(r.RetryAfterSecs), r.WaitSource, c.class, c.rule, c.wait, c.src)
		}
	}
}

// An error event whose data is no JSON object carries its message as text;
// when that text is a JSON string, the message is the string, not its
// quotes and escapes. Anything else stays as it came.
func TestEventTextMessages(t *testing.T) {
	sse := map[string]string{"content-type": "text/event-stream"}
	for data, want := range map[string]string{
		`"boom"`:               "boom",
		` "over\u0020loaded" `: "over loaded",
		`"a" "b"`:              `"a" "b"`,
		`"unterminated`:        `"unterminated`,
		`upstream closed`:      "upstream closed",
		`"`:                    `"`,
		`""`:                   "",
	} {
		r := Classify(Answer{Status: 200, Headers: sse, Body: "event: error\ndata: " + data + "\n\n", Now: clock})
		if r.Message != want || r.Rule != "stream.error_event" {
			t.Errorf("data %q: message %q rule %q, want %q from stream.error_event", data, r.Message, r.Rule, want)
		}
	}
}
