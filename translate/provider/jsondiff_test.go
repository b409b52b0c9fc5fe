package provider

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// refFindError is findError on the reference reading (jsonref_test.go).
func refFindError(h headers, body string, isError bool) found {
	if looksLikeSSE(h, body) {
		f := found{stream: true}
		if o, out, ok := refStreamError(body); ok {
			f.obj, f.afterOutput = o, out
		} else if isError {
			f.obj = refBodyError(body)
		}
		f.obj = withHeaderType(h, f.obj)
		return f
	}
	if !isError {
		o, _ := refInBandError(body)
		return found{obj: withHeaderType(h, o)}
	}
	return found{obj: withHeaderType(h, refBodyError(body))}
}

// diffReading holds the jsonread-based readers to the encoding/json ones:
// the same error object found, and the same Result.
func diffReading(t *testing.T, a Answer) {
	t.Helper()
	h := newHeaders(a.Headers)
	for _, isError := range []bool{true, false} {
		got, want := findError(h, a.Body, isError), refFindError(h, a.Body, isError)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("body %.300q (error status %v):\n got %+v\nwant %+v", a.Body, isError, got, want)
		}
	}
	if got, want := classify(a, findError), classify(a, refFindError); !reflect.DeepEqual(got, want) {
		t.Fatalf("body %.300q:\n got %+v\nwant %+v", a.Body, got, want)
	}
}

// diffBodies are bodies where encoding/json and a hand-rolled reader could
// part: duplicate keys, escapes, invalid UTF-8, numbers, trailing data,
// nesting, and the shapes' edge cases.
var diffBodies = []string{
	`{"error":{"message":"a","code":"rate_limit_exceeded","code":"insufficient_quota"}}`,
	`{"error":{"message":"a"},"error":null,"message":"b"}`,
	`{"error":{"message":"x\u0000y\ud800z\ud83d\ude00","type":"\u0072equests"}}`,
	"{\"error\":{\"message\":\"bad \xff\xfe utf8\",\"code\":\"rate_limit_e\xffxceeded\"}}",
	"{\"err\xffor\":{\"message\":\"m\"}}",
	`{"error":{"code":429000000000000000000000000000000,"message":"m"}}`,
	`{"error":{"code":4.29e2,"message":"m"}}`,
	`{"error":{"code":-0,"message":"m"}} and then some text`,
	`{"error":{"code":429,"message":"m"}}}}}`,
	`[{"error":{"code":429,"status":"RESOURCE_EXHAUSTED"}}] [`,
	`{"error":{"code":01}}`,
	`{"error":{"message":"tab	inside"}}`,
	`{"error":{"message":"m","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":{"seconds":"12","nanos":500000000}},{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"3s"}]}}`,
	`{"error":{"message":"m","metadata":{"raw":"{\"error\":{\"type\":\"rate_limit_error\"},\"type\":\"error\"}","provider_name":"Anthropic"}}}`,
	`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"type":"x"}`,
	`{"message":"m","__type":"com.amazon#ThrottlingException:http://x"}`,
	`{"error":"  ","message":"m","code":7}`,
	`{"error":{},"type":"error"}`,
	`{"type":"error"}`,
	"data: {\"error\":{\"message\":\"m\",\"code\":\"rate_limit_exceeded\"},\"error\":null}\n\n",
	"data: {\"choices\":[{\"delta\":{\"content\":\"\\u0000\"}}]}\r\n\r\ndata: {\"error\":{\"message\":\"m\"}}\r\r",
	"data: {\"type\":\"response.output_text.delta\",\"delta\":\"\",\"delta\":\"x\"}\n\nevent: error\ndata: [1,{\"error\":{\"code\":\"server_error\"}}]\n\n",
	"event: error\ndata: {\"a\":1}\ndata: {\"b\":2}\n\n",
	"event: error\ndata: not json\n\n",
	"data: {\"throttlingException\":{\"message\":\"slow\"},\"validationException\":{}}\n\n",
	strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	strings.Repeat("[", 10000) + `{"error":{"message":"deep"}}` + strings.Repeat("]", 10000),
	`[{"error":{"message":"m"}},` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `]`,
	"[" + strings.Repeat(`{"a":1},`, 1000) + `{"error":{"message":"late"}}]`,
}

func diffAnswers(t testing.TB) []Answer {
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	var as []Answer
	for _, f := range loadFixtures(t) {
		a := f.answer(t)
		as = append(as, a)
		// The same body as a plain error and as a 2xx, and without headers
		// (so an SSE body is found by its first line only).
		as = append(as, Answer{Provider: a.Provider, Status: 200, Body: a.Body, Now: now})
	}
	for _, b := range diffBodies {
		for _, p := range []string{"openai", "anthropic", "gemini", "bedrock", "openrouter", ""} {
			as = append(as,
				Answer{Provider: p, Status: 429, Body: b, Now: now},
				Answer{Provider: p, Status: 200, Body: b, Now: now},
				Answer{Provider: p, Status: 200, Headers: map[string]string{"Content-Type": "text/event-stream"}, Body: b, Now: now})
		}
	}
	return as
}

func TestReadingMatchesEncodingJSON(t *testing.T) {
	for _, a := range diffAnswers(t) {
		diffReading(t, a)
	}
}

// FuzzReadingMatchesEncodingJSON is the differential fuzz target: on any
// body, the jsonread readers find what the encoding/json ones found.
func FuzzReadingMatchesEncodingJSON(f *testing.F) {
	for _, a := range diffAnswers(f) {
		f.Add(a.Provider, a.Status, headerLines(a.Headers), a.Body)
	}
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, provider string, status int, hdrs, body string) {
		diffReading(t, Answer{Provider: provider, Status: status, Headers: parseHeaderLines(hdrs), Body: body, Now: now})
	})
}
