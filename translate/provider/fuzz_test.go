package provider

import (
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"
)

// FuzzClassify feeds arbitrary answers: Classify must not panic, must stay
// inside the contract's class set and the allowed kinds, must clamp the
// wait and attach it only to transient results, and must be deterministic.
// Headers come as "name: value" lines.
func FuzzClassify(f *testing.F) {
	for _, fx := range loadFixtures(f) {
		f.Add(fx.Answer.Provider, fx.Answer.Status, headerLines(fx.Answer.Headers), fx.Answer.Body)
	}
	f.Add("openai", 429, "retry-after: 99999999999999999999\n", `{"error":{"code":"rate_limit_exceeded"}}`)
	f.Add("anthropic", 429, "anthropic-ratelimit-unified-reset: 1e308\nanthropic-ratelimit-tokens-remaining: 0\nanthropic-ratelimit-tokens-reset: 9999-12-31T23:59:59Z\n", "")
	f.Add("", 200, "content-type: text/event-stream\n", "event: error\r\ndata: {\"error\":null}\r\r")
	f.Add("gemini", 429, "", `[1,{"error":{"details":[{"@type":"google.rpc.RetryInfo","retryDelay":{"seconds":-5,"nanos":"x"}}]}}]`)
	f.Add("", 429, "x-ratelimit-reset: 1.5.5\nx-ratelimit-reset-requests: 99999999999h\n", "retry in 9999999999999999999999999999s")

	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, provider string, status int, hdrs, body string) {
		a := Answer{Provider: provider, Status: status, Headers: parseHeaderLines(hdrs), Body: body, Now: now}
		r := Classify(a)
		checkInvariants(t, r)
		if again := Classify(a); !reflect.DeepEqual(r, again) {
			t.Fatalf("not deterministic: %+v then %+v", r, again)
		}
		if r.Stream && status >= 400 {
			t.Fatalf("stream flag on an error status %d", status)
		}
		if status >= 400 && r.Class == "" {
			t.Fatalf("error status %d left unclassified", status)
		}
	})
}

func headerLines(h map[string]string) string {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k + ": " + h[k] + "\n")
	}
	return b.String()
}

func parseHeaderLines(s string) map[string]string {
	h := map[string]string{}
	for _, line := range strings.Split(s, "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok {
			h[k] = v
		}
	}
	return h
}
