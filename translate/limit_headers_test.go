package translate

import (
	"math"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dunglas/httpsfv"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// limitReference is the time a fixture's resets are counted from, as the
// provider's own clients count them: its Date header, else received_at
// (the fixture's, else its clock, as mustProviderRequest pins it).
func limitReference(t *testing.T, fx providerFixture) time.Time {
	t.Helper()
	for k, v := range fx.Answer.Headers {
		if http.CanonicalHeaderKey(k) == "Date" {
			if d, err := http.ParseTime(v); err == nil {
				return d
			}
		}
	}
	received := fx.Answer.ReceivedAt
	if received == "" {
		received = fx.Now
	}
	r, err := parseRFC3339(received)
	if err != nil {
		t.Fatalf("%s: %v", fx.Name, err)
	}
	return r
}

// sfOne parses a header as a Structured Field List (RFC 9651) with an
// independent parser and returns its one member: errsvc writes one policy,
// the limit that was hit.
func sfOne(t *testing.T, name, header, v string) (string, *httpsfv.Params) {
	t.Helper()
	l, err := httpsfv.UnmarshalList([]string{v})
	if err != nil {
		t.Fatalf("%s: %s %q is not a Structured Field List: %v", name, header, v, err)
	}
	if len(l) != 1 {
		t.Fatalf("%s: %s %q has %d members, want 1", name, header, v, len(l))
	}
	it, ok := l[0].(httpsfv.Item)
	if !ok {
		t.Fatalf("%s: %s %q: member is not an Item", name, header, v)
	}
	s, ok := it.Value.(string)
	if !ok {
		t.Fatalf("%s: %s %q: the policy name is not a String", name, header, v)
	}
	return s, it.Params
}

func sfInt(t *testing.T, name string, p *httpsfv.Params, key string) (int64, bool) {
	t.Helper()
	v, ok := p.Get(key)
	if !ok {
		return 0, false
	}
	n, ok := v.(int64)
	if !ok {
		t.Errorf("%s: parameter %s=%v is not an Integer", name, key, v)
	}
	return n, ok
}

// Every limit fixture with a reset: http_headers states that reset, not
// the retry wait, counted from the answer's Date (else received_at). The
// IETF draft's RateLimit and RateLimit-Policy are read with a Structured
// Field parser; the x-ratelimit-* headers as OpenAI's clients read them.
func TestLimitHeadersStateTheReset(t *testing.T) {
	checked := 0
	for _, fx := range providerFixtures() {
		if fx.Want.Class == "" || fx.Want.Limit == nil {
			continue
		}
		req := mustProviderRequest(t, fx)
		req.Targets = []string{TargetHTTPHeaders, TargetLimit}
		resp := mustTranslate(t, fx.Name, req)
		l := resp.GetLimit()
		if l.GetResetAt() == nil {
			continue
		}
		checked++
		if fx.Want.Limit.ResetAt != "" {
			if w, _ := parseRFC3339(fx.Want.Limit.ResetAt); !w.Equal(l.GetResetAt().AsTime()) {
				t.Errorf("%s: facet reset_at %s, fixture %s", fx.Name, l.GetResetAt().AsTime(), w)
			}
		}
		h := resp.GetHttpHeaders()
		until := l.GetResetAt().AsTime().Sub(limitReference(t, fx))
		wantT := int64(math.Ceil(max(until, 0).Seconds() - 1e-9))

		if v, ok := h["RateLimit"]; ok {
			_, p := sfOne(t, fx.Name, "RateLimit", v)
			if r, ok := sfInt(t, fx.Name, p, "r"); !ok || l.Remaining == nil || uint64(r) != l.GetRemaining() {
				t.Errorf("%s: RateLimit %q: r, want remaining %v", fx.Name, v, l.Remaining)
			}
			if got, ok := sfInt(t, fx.Name, p, "t"); !ok || got != wantT {
				t.Errorf("%s: RateLimit %q: t=%d (present %v), want %d (reset %s less the reference)", fx.Name, v, got, ok, wantT, until)
			}
		} else if l.Remaining != nil {
			t.Errorf("%s: no RateLimit, the facet says remaining %d", fx.Name, l.GetRemaining())
		}
		if v, ok := h["RateLimit-Policy"]; ok {
			_, p := sfOne(t, fx.Name, "RateLimit-Policy", v)
			if q, ok := sfInt(t, fx.Name, p, "q"); !ok || l.Limit == nil || uint64(q) != l.GetLimit() {
				t.Errorf("%s: RateLimit-Policy %q: q, want limit %v", fx.Name, v, l.Limit)
			}
		} else if l.Limit != nil {
			t.Errorf("%s: no RateLimit-Policy, the facet says limit %d", fx.Name, l.GetLimit())
		}

		suffix := ""
		if d := l.GetDimension(); d == "requests" || d == "tokens" {
			suffix = "-" + d
		}
		checkCount(t, fx.Name, h, "x-ratelimit-remaining"+suffix, l.Remaining)
		checkCount(t, fx.Name, h, "x-ratelimit-limit"+suffix, l.Limit)
		v, ok := h["x-ratelimit-reset"+suffix]
		d, err := time.ParseDuration(v)
		if !ok || err != nil || d != max(until, 0) {
			t.Errorf("%s: x-ratelimit-reset%s %q, want %s (the reset less the reference)", fx.Name, suffix, v, max(until, 0))
		}
	}
	t.Logf("%d limit fixtures with a reset checked", checked)
	if checked < 10 {
		t.Errorf("%d limit fixtures with a reset checked, want at least 10", checked)
	}
}

func checkCount(t *testing.T, name string, h map[string]string, key string, want *uint64) {
	t.Helper()
	v, ok := h[key]
	if want == nil {
		if ok {
			t.Errorf("%s: %s %q, the facet states none", name, key, v)
		}
		return
	}
	if n, err := strconv.ParseUint(v, 10, 64); err != nil || n != *want {
		t.Errorf("%s: %s %q, want %d", name, key, v, *want)
	}
}

// A reset the answer states as a time (Anthropic's RFC 3339) with neither
// a Date header nor received_at: the facet keeps the reset, but no header
// counts it from errsvc's clock; a note says why, and Errsvc-Limit carries
// it whole. (The retry wait is another matter: the classifier counts it from
// the clock, and marks the answer so, not cacheable.)
func TestLimitHeadersWithoutAReference(t *testing.T) {
	req := &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_ProviderResponse{ProviderResponse: &errsvcv1.ProviderResponse{
		Provider: "anthropic", Status: 429, Headers: map[string]string{
			"anthropic-ratelimit-requests-limit": "50", "anthropic-ratelimit-requests-remaining": "0", "anthropic-ratelimit-requests-reset": "2025-06-01T12:00:20Z"},
		Body: `{"type":"error","error":{"type":"rate_limit_error","message":"Number of requests has exceeded your per-minute rate limit"}}`}},
		Targets: []string{TargetHTTPHeaders, TargetLimit}}
	resp, err := Translate(req)
	if err != nil {
		t.Fatal(err)
	}
	h := resp.GetHttpHeaders()
	if got := resp.GetLimit().GetResetAt().AsTime().Format(time.RFC3339); got != "2025-06-01T12:00:20Z" {
		t.Errorf("reset_at %s", got)
	}
	_, p := sfOne(t, "no reference", "RateLimit", h["RateLimit"])
	if _, ok := p.Get("t"); ok {
		t.Errorf("RateLimit %q has a t with nothing to count it from", h["RateLimit"])
	}
	if v, ok := h["x-ratelimit-reset-requests"]; ok {
		t.Errorf("x-ratelimit-reset-requests %q with nothing to count it from", v)
	}
	if !hasNote(resp, errsvcv1.NoteCode_NOTE_CODE_FIELD_DROPPED) {
		t.Errorf("no note says why the reset is not written: %v", resp.GetNotes())
	}
	if d, ok := sfDictionary(h["Errsvc-Limit"]); !ok || d["reset_at"] != "2025-06-01T12:00:20Z" {
		t.Errorf("Errsvc-Limit %q", h["Errsvc-Limit"])
	}
}

// An Errsvc-Limit header on a provider answer the classifier read as a
// limit replaces the classifier's terms with the header's, which are the
// caller's text: they are sanitised like any other (the classifier's own
// constants are not).
func TestErrsvcLimitTermsAreSanitised(t *testing.T) {
	const secret = "ghp_0123456789abcdefghijABCDEFGHIJ012345"
	req := benchRequest(t, `{"provider_response":{"provider":"openai","status":429,"headers":{"errsvc-limit":"kind=\"`+secret+`\", dimension=\"`+secret+`\", scope=\"`+secret+`\""},"body":"{\"error\":{\"message\":\"Rate limit reached on requests per min (RPM)\",\"type\":\"requests\",\"code\":\"rate_limit_exceeded\"}}"}}`)
	resp, err := Translate(req)
	if err != nil {
		t.Fatal(err)
	}
	l := resp.GetLimit()
	if l == nil {
		t.Fatal("no limit facet")
	}
	for name, v := range map[string]string{"kind": l.GetKind(), "dimension": l.GetDimension(), "scope": l.GetScope()} {
		if v == "" || strings.Contains(v, secret) {
			t.Errorf("limit.%s = %q, want the header's term sanitised", name, v)
		}
	}
}
