package provider

import (
	"strings"
	"testing"
)

// Every overflow phrase refines a bare 400 to context_overflow, with its
// own rule id; each is embedded in a provider-like sentence.
func TestEveryOverflowPhrase(t *testing.T) {
	for _, p := range overflowPhrases {
		msg := "Error: request rejected, " + strings.ToUpper(p.text[:1]) + p.text[1:] + " (see docs)."
		r := Classify(Answer{Status: 400, Body: `{"error":{"message":` + quote(msg) + `}}`})
		if r.Class != classContextOverflow || r.Rule != "phrase."+p.id {
			t.Errorf("%q: %s by %s, want context_overflow by phrase.%s", p.text, r.Class, r.Rule, p.id)
		}
	}
}

// Phrases seen in the wild, one per provider or gateway whose users
// reported them (LiteLLM maps all of these by substring).
func TestOverflowMessagesInTheWild(t *testing.T) {
	for _, msg := range []string{
		"This model's maximum context length is 4097 tokens. However, your messages resulted in 5000 tokens.",
		"prompt is too long: 201234 tokens > 200000 maximum",
		"Input is too long for requested model.",
		"Please reduce the length of the messages or completion.",
		"the request exceeds the available context size, try increasing it",
		"Your input exceeds the context window of this model. Please adjust your input and try again.",
		"The input token count (1250000) exceeds the maximum number of tokens allowed (1048576).",
		"model_context_window_exceeded",
		"input length and `max_tokens` exceed context limit: 195000 + 8192 > 200000",
		"too many tokens: total number of tokens in the prompt cannot exceed 4081 - received 4500",
		"Requested tokens (9000) exceed context window of 8192",
		"Input tokens exceed the configured limit of 272000 tokens.",
		"This model's maximum prompt length is 131072 but the request contains 145236 tokens.",
		"litellm.ContextWindowExceededError: litellm.BadRequestError: AnthropicException",
		"Prompt exceeds the token limit for this model",
		"Input length 9000 exceeds the maximum input length 8192",
	} {
		if r := Classify(Answer{Status: 400, Body: msg}); r.Class != classContextOverflow {
			t.Errorf("%q: %s (%s), want context_overflow", msg, r.Class, r.Rule)
		}
	}
}

// Every billing phrase turns an unexplained 429 into permanent.
func TestEveryBillingPhrase(t *testing.T) {
	for _, p := range billingPhrases {
		msg := "Request refused: " + p.text + "."
		r := Classify(Answer{Status: 429, Body: `{"error":{"message":` + quote(msg) + `}}`})
		if r.Class != classPermanent || r.Kind != kindQuotaExceeded || !strings.HasPrefix(r.Rule, "phrase.") {
			t.Errorf("%q: %s/%s by %s, want permanent/quota_exceeded by a phrase", p.text, r.Class, r.Kind, r.Rule)
		}
	}
}

// Weak phrases yield to window wording on a transient answer, never on a
// permanent one; strong phrases never yield.
func TestWeakPhrasesYieldToWindows(t *testing.T) {
	cases := []struct {
		status int
		msg    string
		want   string
	}{
		{429, "You exceeded your current quota, please check your plan and billing details.", classPermanent},
		{429, "You exceeded your current quota, please check your plan and billing details. https://ai.google.dev/gemini-api/docs/rate-limits", classTransient},
		{429, "Too many tokens, please wait before trying again.", classTransient},
		{400, "Too many tokens, please wait before trying again.", classContextOverflow},
		{429, "insufficient_quota; rate limit reached", classPermanent},
		{429, "prompt is too long, rate limit", classContextOverflow},
		{429, "Rate limit reached. You can add a payment method at https://platform.openai.com/account/billing.", classTransient},
		{503, "maximum context length exceeded", classContextOverflow},
		{503, "token limit per minute reached", classTransient},
	}
	for _, c := range cases {
		if r := Classify(Answer{Status: c.status, Body: c.msg}); r.Class != c.want {
			t.Errorf("%d %q: %s (%s), want %s", c.status, c.msg, r.Class, r.Rule, c.want)
		}
	}
}

// A phrase never overrides a specific code: codes decide first.
func TestPhrasesNeverOverrideCodes(t *testing.T) {
	cases := []struct {
		provider string
		status   int
		body     string
		want     string
	}{
		// Rate-limit wording around an overflow code.
		{"openai", 429, `{"error":{"message":"Rate limit exceeded (429), too many requests","code":"context_length_exceeded"}}`, classContextOverflow},
		// An overflow phrase around a rate-limit code (not an oversize one).
		{"openai", 429, `{"error":{"message":"Rate limit on context length tokens reached. Please try again in 2s.","code":"rate_limit_exceeded"}}`, classTransient},
		// Gemini's window message says "billing": RESOURCE_EXHAUSTED holds.
		{"gemini", 429, `{"error":{"code":429,"status":"RESOURCE_EXHAUSTED","message":"You exceeded your current quota, please check your plan and billing details."}}`, classTransient},
		// A billing phrase on an auth code.
		{"anthropic", 401, `{"type":"error","error":{"type":"authentication_error","message":"credit balance is too low"}}`, classAuthRequired},
	}
	for _, c := range cases {
		if r := Classify(Answer{Provider: c.provider, Status: c.status, Body: c.body}); r.Class != c.want {
			t.Errorf("%s %d %s: %s (%s), want %s", c.provider, c.status, c.body, r.Class, r.Rule, c.want)
		}
	}
}

func TestPhraseIDsAreStable(t *testing.T) {
	for _, tb := range [][]phrase{overflowPhrases, oversizePhrases, billingPhrases, windowPhrases, notOverflowPhrases} {
		for _, p := range tb {
			if p.id == "" || p.text == "" || p.text != strings.ToLower(p.text) || strings.ContainsAny(p.id, " .") {
				t.Errorf("phrase %+v: id must be a token, text lower case", p)
			}
		}
	}
}

func quote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}
