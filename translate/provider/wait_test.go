package provider

import (
	"strings"
	"testing"
	"time"
)

var clock = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

func waitOf(t *testing.T, a Answer) (string, string) {
	t.Helper()
	if a.Now.IsZero() {
		a.Now = clock
	}
	r := Classify(a)
	return secs(r.RetryAfterSecs), r.WaitSource
}

func TestRetryAfterForms(t *testing.T) {
	cases := []struct {
		provider, value string
		want, source    string
	}{
		{"", "20", "20", "retry-after"},
		{"", "1.2", "2", "retry-after"},
		{"", "0", "0", "retry-after"},
		{"", "Sun, 01 Jun 2025 12:01:00 GMT", "60", "retry-after-date"},
		{"", "Sunday, 01-Jun-25 12:00:10 GMT", "10", "retry-after-date"}, // RFC 850
		{"", "Sun Jun  1 12:00:05 2025", "5", "retry-after-date"},        // ANSI C
		{"", "Sun, 01 Jun 2025 11:00:00 GMT", "0", "retry-after-date"},
		{"", "-5", "absent", ""},
		{"", "1e3", "absent", ""},
		{"", "NaN", "absent", ""},
		{"", "soon", "absent", ""},
		{"", "99999999999999999999999", "4294967", "retry-after"},
		{"", "18000", "18000", "retry-after"},
		{"openai", "20", "20", "retry-after"},
		{"openai", "1.2", "absent", ""}, // Codex reads whole seconds only
		{"openai", "Sun, 01 Jun 2025 12:01:00 GMT", "60", "retry-after-date"},
	}
	for _, c := range cases {
		got, src := waitOf(t, Answer{Provider: c.provider, Status: 429, Headers: map[string]string{"Retry-After": c.value}})
		if got != c.want || src != c.source {
			t.Errorf("%s Retry-After %q: %s (%s), want %s (%s)", c.provider, c.value, got, src, c.want, c.source)
		}
	}
}

// The HTTP-date counts from Date, else ReceivedAt, else Now.
func TestReferenceTime(t *testing.T) {
	retry := map[string]string{"Retry-After": "Sun, 01 Jun 2025 12:01:00 GMT"}
	withDate := map[string]string{"Retry-After": "Sun, 01 Jun 2025 12:01:00 GMT", "Date": "Sun, 01 Jun 2025 12:00:50 GMT"}
	badDate := map[string]string{"Retry-After": "Sun, 01 Jun 2025 12:01:00 GMT", "Date": "yesterday"}
	received := clock.Add(-30 * time.Second)
	for _, c := range []struct {
		h        map[string]string
		received time.Time
		want     string
	}{
		{retry, time.Time{}, "60"},
		{retry, received, "90"},
		{withDate, received, "10"},
		{badDate, received, "90"},
	} {
		if got, _ := waitOf(t, Answer{Status: 429, Headers: c.h, ReceivedAt: c.received}); got != c.want {
			t.Errorf("%v received %v: %s, want %s", c.h, c.received, got, c.want)
		}
	}
}

func TestDurations(t *testing.T) {
	for in, want := range map[string]float64{
		"1s": 1, "6m0s": 360, "20ms": 0.02, "1h2m3.5s": 3723.5, "1.5s": 1.5, "2 minutes": 120,
		"20 seconds": 20, "500ms": 0.5, "1 hour": 3600, "3 secs": 3, "250 milliseconds": 0.25,
	} {
		got, ok := parseWholeDuration(in)
		if !ok || got != want {
			t.Errorf("parseWholeDuration(%q) = %v, %v; want %v", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "s", "5", "5 attempts", "1.2.3s", "-5s", "5s later"} {
		if _, ok := parseWholeDuration(in); ok {
			t.Errorf("parseWholeDuration(%q) accepted", in)
		}
	}
}

func TestNormalise(t *testing.T) {
	for in, want := range map[float64]uint32{
		0: 0, -3: 0, 0.001: 1, 0.5: 1, 1: 1, 1.0000000001: 1, 1.2: 2, 0.1 + 0.2: 1, 3599.5: 3600, 3600: 3600,
		// No policy cap: a longer producer value wins (the Error Class
		// Contract); only the wire's bound applies.
		18000: 18000, 86400.2: 86401, MaxRetryAfterSecs: MaxRetryAfterSecs, 1e12: MaxRetryAfterSecs,
	} {
		got, clamped := normaliseSecs(in)
		if got != want {
			t.Errorf("normaliseSecs(%v) = %d, want %d", in, got, want)
		}
		if clamped != (in > MaxRetryAfterSecs) {
			t.Errorf("normaliseSecs(%v) clamped = %v", in, clamped)
		}
	}
}

func TestBodyTextHints(t *testing.T) {
	cases := []struct {
		provider, msg string
		want          string
	}{
		{"", "Please try again in 1.234s.", "2"},
		{"", "retry after 20 seconds", "20"},
		{"", "try again in 2 minutes", "120"},
		{"", "Please try again in 6m0s.", "360"},
		{"", "retry in 500ms", "1"},
		{"", "Limit resets in 45s", "45"},
		{"", "please wait 3 seconds", "3"},
		{"", "Please retry after 5 attempts", "absent"},
		{"", "try again later", "absent"},
		{"openai", "Please try again in 1.234s.", "2"},
		{"openai", "Please try again in 20ms.", "1"},
		{"openai", "Please try again in 7 seconds.", "7"},
		{"openai", "retry after 20 seconds", "absent"}, // not Codex's pattern
		{"openai", "Please try again in 6m0s.", "absent"},
	}
	for _, c := range cases {
		if got, _ := waitOf(t, Answer{Provider: c.provider, Status: 429, Body: c.msg}); got != c.want {
			t.Errorf("%s %q: %s, want %s", c.provider, c.msg, got, c.want)
		}
	}
}

func TestRateLimitResets(t *testing.T) {
	cases := []struct {
		h    map[string]string
		want string
	}{
		// Only the exhausted limit counts; the latest of several exhausted.
		{map[string]string{"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "2s", "x-ratelimit-remaining-tokens": "0", "x-ratelimit-reset-tokens": "1m"}, "60"},
		{map[string]string{"x-ratelimit-remaining-requests": "4", "x-ratelimit-reset-requests": "2s", "x-ratelimit-remaining-tokens": "0", "x-ratelimit-reset-tokens": "7s"}, "7"},
		// No limit exhausted: the resets do not explain the refusal.
		{map[string]string{"x-ratelimit-remaining-requests": "4", "x-ratelimit-reset-requests": "2s"}, "absent"},
		// No remaining headers at all: the earliest reset, a floor.
		{map[string]string{"x-ratelimit-reset-requests": "2s", "x-ratelimit-reset-tokens": "9s"}, "2"},
		{map[string]string{"x-ratelimit-reset": "30"}, "30"},
		{map[string]string{"x-ratelimit-remaining": "0", "x-ratelimit-reset": "1748779230"}, "30"},
	}
	for _, c := range cases {
		if got, _ := waitOf(t, Answer{Status: 429, Headers: c.h}); got != c.want {
			t.Errorf("%v: %s, want %s", c.h, got, c.want)
		}
	}
	// The OpenAI family never reads them (Error Class Contract v1).
	h := map[string]string{"x-ratelimit-remaining-tokens": "0", "x-ratelimit-reset-tokens": "7s", "retry-after-ms": "3000"}
	if got, _ := waitOf(t, Answer{Provider: "openai", Status: 429, Headers: h}); got != "absent" {
		t.Errorf("openai read %s from x-ratelimit-reset/retry-after-ms", got)
	}
}

// A wait attaches only to transient results.
func TestWaitOnlyOnTransient(t *testing.T) {
	for _, a := range []Answer{
		{Provider: "openai", Status: 429, Headers: map[string]string{"Retry-After": "5"}, Body: `{"error":{"code":"insufficient_quota"}}`},
		{Status: 401, Headers: map[string]string{"Retry-After": "5"}},
		{Status: 413, Headers: map[string]string{"Retry-After": "5"}},
		{Status: 400, Body: "prompt is too long; try again in 5s"},
	} {
		if r := Classify(a); r.RetryAfterSecs != nil || r.WaitSource != "" {
			t.Errorf("%d %s: wait %s on %s", a.Status, a.Body, secs(r.RetryAfterSecs), r.Class)
		}
	}
}

func TestHugeNumbers(t *testing.T) {
	huge := "1" + strings.Repeat("0", 400) // beyond float64
	for _, h := range []map[string]string{
		{"Retry-After": huge},
		{"retry-after-ms": huge},
		{"x-ratelimit-reset": huge},
	} {
		a := Answer{Status: 429, Headers: h, Now: clock}
		if r := Classify(a); secs(r.RetryAfterSecs) != "4294967" || !r.WaitClamped {
			t.Errorf("%v: %s (clamped %v), want the wire's bound, clamped", h, secs(r.RetryAfterSecs), r.WaitClamped)
		}
	}
}
