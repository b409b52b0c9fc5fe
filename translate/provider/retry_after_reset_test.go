package provider

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/errsvc/errsvc/internal/secrets"
)

// RFC 9110, 10.2.3: Retry-After is an HTTP-date or delay-seconds, and both
// say how long to wait before the follow-up request. The limit facet's
// reset_at is that moment, so the two forms of one moment name one reset:
// the date as written, or the seconds counted from the answer's Date (or,
// without one, from when it was received). Drawn afresh on every run
// (ERRSVC_PROPERTY_SEED replays one), for each family that reads both
// forms.
func TestRetryAfterFormsNameOneReset(t *testing.T) {
	seed := secrets.Seed()
	rng := rand.New(rand.NewPCG(seed, 9110))
	bodies := map[string]string{
		"anthropic": `{"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed the rate limit for your organization of 50 requests per minute."}}`,
		"openai":    `{"error":{"message":"Rate limit reached for gpt-4o in organization org-1 on requests per min (RPM): Limit 500, Used 500, Requested 1.","type":"requests","param":null,"code":"rate_limit_exceeded"}}`,
		"custom":    `{"error":{"message":"Too many requests"}}`,
	}
	checked := 0
	for n := 0; n < 300; n++ {
		date := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(rng.IntN(365*86400)) * time.Second)
		secs := rng.IntN(200000)
		moment := date.Add(time.Duration(secs) * time.Second)
		for provider, body := range bodies {
			for _, viaDate := range []bool{true, false} {
				for _, form := range []string{strconv.Itoa(secs), moment.Format(http.TimeFormat)} {
					a := Answer{Provider: provider, Status: 429, Body: body, Headers: map[string]string{"retry-after": form}, Limits: true,
						Now: date.Add(3 * time.Second)}
					if viaDate {
						a.Headers["date"] = date.Format(http.TimeFormat)
					} else {
						a.ReceivedAt = date
					}
					what := fmt.Sprintf("%s, Retry-After %q, Date header %v (ERRSVC_PROPERTY_SEED=%d)", provider, form, viaDate, seed)
					r := Classify(a)
					if r.Limit == nil {
						t.Fatalf("%s: no limit facet", what)
					}
					if !r.Limit.ResetAt.Equal(moment) {
						t.Fatalf("%s: reset_at %s, want %s", what, r.Limit.ResetAt.Format(time.RFC3339), moment.Format(time.RFC3339))
					}
					if r.RetryAfterSecs == nil || int(*r.RetryAfterSecs) != secs {
						t.Fatalf("%s: wait %v, want %d s", what, r.RetryAfterSecs, secs)
					}
					checked++
				}
			}
		}
	}
	if checked < 3000 {
		t.Errorf("only %d answers checked", checked)
	}
}

// A wait longer than the wire carries is cut (WaitClamped): the cut wait is
// not the moment the provider named, so the facet names no reset rather
// than a wrong one.
func TestClampedWaitNamesNoReset(t *testing.T) {
	date := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	for _, v := range []string{"9999999999", strconv.FormatUint(MaxRetryAfterSecs+1, 10)} {
		r := Classify(Answer{Provider: "custom", Status: 429, Body: `{"error":{"message":"Too many requests"}}`, Limits: true, Now: date,
			Headers: map[string]string{"retry-after": v, "date": date.Format(http.TimeFormat)}})
		if !r.WaitClamped || r.Limit == nil {
			t.Fatalf("Retry-After %s: clamped %v, limit %v", v, r.WaitClamped, r.Limit)
		}
		if !r.Limit.ResetAt.IsZero() {
			t.Errorf("Retry-After %s: reset_at %s from a cut wait", v, r.Limit.ResetAt.Format(time.RFC3339))
		}
	}
	// At the bound itself nothing is cut, and the reset is the wait's.
	r := Classify(Answer{Provider: "custom", Status: 429, Body: `{"error":{"message":"Too many requests"}}`, Limits: true, Now: date,
		Headers: map[string]string{"retry-after": strconv.FormatUint(MaxRetryAfterSecs, 10), "date": date.Format(http.TimeFormat)}})
	if want := date.Add(MaxRetryAfterSecs * time.Second); r.WaitClamped || !r.Limit.ResetAt.Equal(want) {
		t.Errorf("Retry-After at the bound: clamped %v, reset_at %s, want %s", r.WaitClamped, r.Limit.ResetAt, want)
	}
}

// A reset stated as a Unix timestamp in milliseconds (OpenRouter's
// X-RateLimit-Reset, on the answer or in error.metadata.headers) is that
// moment, not a date in the year 33658 read as seconds.
func TestResetInUnixMilliseconds(t *testing.T) {
	date := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	reset := date.Add(90 * time.Second)
	ms := strconv.FormatInt(reset.UnixMilli(), 10)
	r := Classify(Answer{Provider: "custom", Status: 429, Body: `{"error":{"message":"Too many requests"}}`, Limits: true, Now: date,
		Headers: map[string]string{"date": date.Format(http.TimeFormat), "x-ratelimit-remaining": "0", "x-ratelimit-reset": ms}})
	if r.RetryAfterSecs == nil || *r.RetryAfterSecs != 90 || r.Limit == nil || !r.Limit.ResetAt.Equal(reset) {
		t.Errorf("on the answer: wait %v, limit %s; want 90 s and reset %s", r.RetryAfterSecs, limitText(r.Limit), reset)
	}
	body := `{"error":{"message":"Rate limit exceeded: free-models-per-min.","code":429,"metadata":{"headers":{"X-RateLimit-Limit":"20","X-RateLimit-Remaining":"0","X-RateLimit-Reset":"` + ms + `"}}}}`
	r = Classify(Answer{Provider: "openrouter", Status: 429, Body: body, Limits: true, Now: date,
		Headers: map[string]string{"date": date.Format(http.TimeFormat)}})
	if l := r.Limit; l == nil || !l.ResetAt.Equal(reset) || u64(l.Remaining) != "0" || u64(l.Max) != "20" {
		t.Errorf("in metadata.headers: limit %s; want reset %s, 0 of 20 left", limitText(l), reset)
	}
	// Headers on the answer come first: the body's are read only without.
	r = Classify(Answer{Provider: "openrouter", Status: 429, Body: body, Limits: true, Now: date,
		Headers: map[string]string{"date": date.Format(http.TimeFormat), "x-ratelimit-limit-requests": "5", "x-ratelimit-remaining-requests": "0"}})
	if l := r.Limit; l == nil || u64(l.Max) != "5" {
		t.Errorf("with headers on the answer: limit %s; want theirs (5)", limitText(l))
	}
}

func limitText(l *Limit) string {
	if l == nil {
		return "none"
	}
	return fmt.Sprintf("%s reset %s, %s of %s left", l.Kind, l.ResetAt.Format(time.RFC3339), u64(l.Remaining), u64(l.Max))
}
