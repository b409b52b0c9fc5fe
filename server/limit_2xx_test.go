package server

import (
	"encoding/json"
	"net/http"
	"testing"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// Over REST, a provider's 2xx that reports its rate limits answers 200
// with the limit facet alone, so a client can slow down before the 429;
// a 2xx that reports none stays a 400 naming provider_response.
func TestRESTLimitFromSuccessHeaders(t *testing.T) {
	r := start(t, Options{})
	body := func(headers map[string]string) string {
		b, err := json.Marshal(map[string]any{"provider_response": map[string]any{
			"provider": "openai", "status": 200, "headers": headers,
			"body": `{"id":"chatcmpl-1","object":"chat.completion","choices":[]}`}})
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	code, out := r.post(t, "/v1/translate", body(map[string]string{"date": "Sun, 01 Jun 2025 12:00:00 GMT",
		"x-ratelimit-limit-requests": "10000", "x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "20s",
		"x-ratelimit-limit-tokens": "30000", "x-ratelimit-remaining-tokens": "29000", "x-ratelimit-reset-tokens": "2s"}))
	if code != http.StatusOK {
		t.Fatalf("status %d: %s", code, out)
	}
	var resp errsvcv1.TranslateResponse
	decodeJSON(t, out, &resp)
	l := resp.GetLimit()
	if l.GetKind() != "rate" || l.GetDimension() != "requests" || l.GetRemaining() != 0 || l.GetLimit() != 10000 ||
		l.GetResetAt().AsTime().Format("15:04:05") != "12:00:20" || l.GetDecision() != "wait_until_reset" || len(l.GetWindows()) != 2 {
		t.Errorf("limit %v", l)
	}
	if resp.GetLabbyError() != nil || resp.GetAgentError() != nil || resp.GetClassification() != nil || len(resp.GetNotes()) == 0 {
		t.Errorf("a success answered %s", out)
	}

	code, out = r.post(t, "/v1/translate", body(map[string]string{"date": "Sun, 01 Jun 2025 12:00:00 GMT"}))
	if v := restViolation(t, code, out, http.StatusBadRequest, 3); v.GetField() != "provider_response" {
		t.Errorf("violation %v, want provider_response", v)
	}
}
