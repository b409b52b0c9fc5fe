package translate

import (
	"errors"
	"testing"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// A provider answer that is not an error but reports what remains of its
// rate limits answers the limit facet alone (kind rate, the tightest
// window's remaining, limit and reset, counted from Date), with a note; one
// that reports none is refused as before.
func TestLimitFromSuccessHeaders(t *testing.T) {
	date := "Sun, 01 Jun 2025 12:00:00 GMT"
	cases := []struct {
		name, provider string
		status         int32
		headers        map[string]string
		// want: dimension, remaining, limit, reset_at, decision; "" dimension
		// and -1 remaining: refused.
		dim             string
		remaining, max  int64
		reset, decision string
	}{
		{"openai", "openai", 200, map[string]string{"date": date,
			"x-ratelimit-limit-requests": "10000", "x-ratelimit-remaining-requests": "9000", "x-ratelimit-reset-requests": "6ms",
			"x-ratelimit-limit-tokens": "30000", "x-ratelimit-remaining-tokens": "600", "x-ratelimit-reset-tokens": "5m36s"},
			"tokens", 600, 30000, "2025-06-01T12:05:36Z", ""},
		{"anthropic spent", "anthropic", 200, map[string]string{"date": date,
			"anthropic-ratelimit-requests-limit": "50", "anthropic-ratelimit-requests-remaining": "0", "anthropic-ratelimit-requests-reset": "2025-06-01T12:00:20Z",
			"anthropic-ratelimit-tokens-limit": "80000", "anthropic-ratelimit-tokens-remaining": "79000", "anthropic-ratelimit-tokens-reset": "2025-06-01T12:00:01Z"},
			"requests", 0, 50, "2025-06-01T12:00:20Z", "wait_until_reset"},
		{"azure remaining only", "azure", 200, map[string]string{"date": date,
			"x-ratelimit-remaining-requests": "7", "x-ratelimit-remaining-tokens": "9000"},
			"requests", 7, -1, "", ""},
		{"IETF draft", "", 201, map[string]string{"date": date,
			"RateLimit-Policy": `"burst";q=100;qu="requests", "day";q=1000`, "RateLimit": `"burst";r=40;t=10, "day";r=900;t=3600`},
			"requests", 40, 100, "2025-06-01T12:00:10Z", ""},
		{"no limit headers", "openai", 200, map[string]string{"date": date}, "", -1, -1, "", ""},
	}
	for _, c := range cases {
		req := &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_ProviderResponse{ProviderResponse: &errsvcv1.ProviderResponse{
			Provider: c.provider, Status: c.status, Headers: c.headers, Body: `{"id":"chatcmpl-1","object":"chat.completion","choices":[]}`}}}
		resp, err := Translate(req)
		if c.remaining < 0 {
			var re *RequestError
			if !errors.As(err, &re) || re.Field != "provider_response" {
				t.Errorf("%s: %v, want the RequestError naming provider_response", c.name, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if resp.GetLabbyError() != nil || resp.GetAgentError() != nil || resp.GetClassification() != nil || resp.GetHttpStatus() != 0 || resp.GetGrpcStatus() != nil {
			t.Errorf("%s: an error target answered for a success: %v", c.name, resp)
		}
		l := resp.GetLimit()
		checkFacet(t, c.name, l, wantLimit{"rate", c.dim, "unknown", c.decision, c.reset, c.remaining, c.max})
		if l.GetDecision() != c.decision {
			t.Errorf("%s: decision %q, want %q", c.name, l.GetDecision(), c.decision)
		}
		if len(l.GetWindows()) < 2 && c.name != "azure remaining only" {
			t.Errorf("%s: windows %v, want every one reported", c.name, l.GetWindows())
		}
		if !hasNote(resp, errsvcv1.NoteCode_NOTE_CODE_FIELD_DROPPED) {
			t.Errorf("%s: no note says only the facet is answered: %v", c.name, resp.GetNotes())
		}
	}
}

// Every 2xx fixture: refused unless its headers report a limit, and then
// the facet the fixture states.
func TestLimitFromSuccessFixtures(t *testing.T) {
	n := 0
	for _, fx := range providerFixtures() {
		if fx.Want.Class != "" || fx.Answer.Status < 200 || fx.Answer.Status > 299 {
			continue
		}
		resp, err := Translate(mustProviderRequest(t, fx))
		reports := fx.Want.Limit != nil && fx.Want.Limit.Kind != "none"
		if !reports {
			if err == nil {
				t.Errorf("%s: answered %v, want refused (no error, no limit headers)", fx.Name, resp)
			}
			continue
		}
		n++
		if err != nil {
			t.Fatalf("%s: %v", fx.Name, err)
		}
		w := fx.Want.Limit
		checkFacet(t, fx.Name, resp.GetLimit(), wantLimit{w.Kind, w.Dimension, "unknown", "", w.ResetAt, int64(*w.Remaining), int64(*w.Limit)})
	}
	if n == 0 {
		t.Error("no 2xx fixture reports its limits")
	}
}
