package provider

import (
	"strings"
	"testing"
)

// Every verdict of every table stays inside the contract's class set and
// the allowed Labby kinds.
func TestTablesUseTheClosedSets(t *testing.T) {
	check := func(where string, v verdict) {
		if !contains(classes, v.class) {
			t.Errorf("%s: class %q outside the contract's set", where, v.class)
		}
		if !contains(kinds, v.kind) {
			t.Errorf("%s: kind %q not an allowed Labby kind", where, v.kind)
		}
	}
	for name, m := range map[string]map[string]verdict{
		"openai": openaiCodes, "anthropic": anthropicTypes, "gemini.quota_value": googleQuotaValues,
		"gemini.reason": googleReasons, "gemini.status": googleStatuses, "bedrock": bedrockErrorTypes,
	} {
		for k, v := range m {
			check(name+"."+k, v)
		}
	}
	for s, v := range statusDefaults {
		check("status", v)
		if s < 400 {
			t.Errorf("status default for non-error status %d", s)
		}
	}
	check("other4xx", other4xx)
	check("other5xx", other5xx)
	check("stream", inBandDefault)
}

// The contract's wire set, pinned as every producer pins it.
func TestClassWireSet(t *testing.T) {
	want := []string{"transient", "permanent", "auth_required", "context_overflow"}
	if len(classes) != len(want) {
		t.Fatalf("classes = %v", classes)
	}
	for i := range want {
		if classes[i] != want[i] {
			t.Errorf("classes[%d] = %q, want %q", i, classes[i], want[i])
		}
	}
}

// Codes match case-insensitively; two spellings of one code in a table
// would make the lookup ambiguous.
func TestTablesFoldUniquely(t *testing.T) {
	for _, tb := range []*codeTable{openaiTable, openrouterLimitTable, anthropicTable, googleQuotaTable, googleReasonTable, googleStatusTable, bedrockTable} {
		if len(tb.folded) != len(tb.entries) {
			t.Errorf("a table has codes that differ only in case")
		}
		// lookup answers a blank code without a search: no key may be one.
		for k := range tb.entries {
			if strings.TrimSpace(k) != k || k == "" {
				t.Errorf("table key %q is blank or blank-padded", k)
			}
		}
	}
	if v, k, ok := openaiTable.lookup(" Insufficient_Quota "); !ok || k != "insufficient_quota" || v.class != classPermanent {
		t.Errorf("case-insensitive lookup failed: %v %q %v", v, k, ok)
	}
}

func TestFamilies(t *testing.T) {
	for in, want := range map[string]family{
		"openai": familyOpenAI, "OpenAI": familyOpenAI, " groq ": familyOpenAI, "Azure": familyOpenAI,
		"together": familyOpenAI, "openrouter": familyOpenAI, "mistral": familyOpenAI, "deepseek": familyOpenAI,
		"xai": familyOpenAI, "vllm": familyOpenAI, "ollama": familyOpenAI,
		"anthropic": familyAnthropic, "ANTHROPIC": familyAnthropic,
		"gemini": familyGoogle, "vertex": familyGoogle, "bedrock": familyBedrock,
		"": familyGeneric, "litellm": familyGeneric, "cohere": familyGeneric,
	} {
		if got := familyOf(in); got != want {
			t.Errorf("familyOf(%q) = %s, want %s", in, got, want)
		}
	}
}

// Header names are case-insensitive, and a name given twice in different
// cases resolves the same way every time.
func TestHeadersFold(t *testing.T) {
	for i := 0; i < 50; i++ {
		h := newHeaders(map[string]string{"Retry-After": "5", "retry-after": "7", "RETRY-AFTER": "9"})
		if got := h.get("retry-after"); got != "9" {
			t.Fatalf("got %q, want the value of the name that sorts first (RETRY-AFTER)", got)
		}
	}
}

// A status below 400 without an event stream is not an error, whatever
// the body; an error status is always classified.
func TestNonErrors(t *testing.T) {
	for _, a := range []Answer{
		{Status: 200, Body: `{"id":"chatcmpl-1","error":null,"choices":[{"message":{"content":"ok"}}]}`},
		{Status: 200, Body: `{"message":"created","code":"ok"}`},
		{Status: 200, Body: `{"error":{}}`},
		{Status: 204},
		{Status: 304, Body: "Not Modified"},
		{Status: 0, Body: "whatever"},
		{Status: 200, Headers: map[string]string{"Content-Type": "text/event-stream"}, Body: "data: {\"choices\":[]}\n\ndata: [DONE]\n\n"},
		{Status: 200, Body: "event: ping\ndata: {\"type\":\"ping\"}\n\n"},
	} {
		if r := Classify(a); r != (Result{}) {
			t.Errorf("%d %q: %+v, want not an error", a.Status, a.Body, r)
		}
	}
	for _, s := range []int{400, 418, 451, 499, 500, 599, 600, 999} {
		if r := Classify(Answer{Status: s}); r.Class == "" {
			t.Errorf("status %d unclassified", s)
		}
	}
}

// A 2xx JSON body that carries an explicit error object is classified:
// by its code, else by a numeric code as the status, else transient.
func TestInBandErrors(t *testing.T) {
	for _, c := range []struct {
		body, class, rule string
	}{
		{`{"error":{"code":"insufficient_quota","message":"You exceeded your current quota"}}`, classPermanent, "openai.code.insufficient_quota"},
		{`{"error":{"code":429,"message":"Rate limit exceeded"}}`, classTransient, "body.status.429"},
		{`{"error":{"code":401,"message":"No auth credentials found"}}`, classAuthRequired, "body.status.401"},
		{`{"error":"upstream failed"}`, classTransient, "body.error_object"},
		{`{"error":{"message":"This model's maximum context length is 8192 tokens"}}`, classContextOverflow, "phrase.maximum_context"},
		{`[{"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}]`, classTransient, "gemini.status.UNAVAILABLE"},
	} {
		r := Classify(Answer{Provider: "openrouter", Status: 200, Body: c.body})
		if r.Class != c.class || r.Rule != c.rule || !r.InBody || r.Stream {
			t.Errorf("%s: %s (%s) in body %v stream %v, want %s (%s) in body", c.body, r.Class, r.Rule, r.InBody, r.Stream, c.class, c.rule)
		}
	}
}

// x-should-retry ranks below codes and above status defaults.
func TestShouldRetryPrecedence(t *testing.T) {
	cases := []struct {
		status int
		header string
		body   string
		want   string
	}{
		{429, "false", "", classPermanent},
		{429, "true", "", classTransient},
		{400, "true", "", classTransient},
		{401, "false", "", classAuthRequired},                                    // already "do not retry"
		{413, "false", "", classContextOverflow},                                 // already "do not retry"
		{401, "true", "", classAuthRequired},                                     // only a code refines 401
		{403, "true", "", classPermanent},                                        // only a code refines 403
		{413, "true", "", classContextOverflow},                                  // about the input, not retrying
		{500, "false", "", classPermanent},                                       // the one rule, both ways
		{409, "true", "", classTransient},                                        // already transient
		{429, "true", `{"error":{"code":"insufficient_quota"}}`, classPermanent}, // the code wins
		{500, "false", `{"error":{"type":"server_error"}}`, classTransient},      // the code wins
		{429, "maybe", "", classTransient},                                       // not a boolean: ignored
	}
	for _, c := range cases {
		r := Classify(Answer{Provider: "openai", Status: c.status, Headers: map[string]string{"X-Should-Retry": c.header}, Body: c.body})
		if r.Class != c.want {
			t.Errorf("%d x-should-retry %s %s: %s (%s), want %s", c.status, c.header, c.body, r.Class, r.Rule, c.want)
		}
	}
}
