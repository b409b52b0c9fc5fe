package provider

import (
	"reflect"
	"testing"
	"time"
)

// TestFoldedHeadersReadAsTheirMap: an answer whose headers the caller
// folded already (Answer.Folded) classifies, and reads its limits, as the
// same answer without, whatever case and blanks its names carry.
func TestFoldedHeadersReadAsTheirMap(t *testing.T) {
	body := `{"error":{"message":"Rate limit reached for requests","type":"requests","code":"rate_limit_exceeded"}}`
	for _, h := range []map[string]string{
		{"retry-after": "20", "x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "20s", "x-ratelimit-limit-requests": "500"},
		{"Retry-After": "5", "retry-after": "7", "X-RateLimit-Limit-Tokens": "100", " x-ratelimit-remaining-tokens ": " 0 ", "X-RATELIMIT-RESET-TOKENS": "1m"},
		{},
	} {
		for _, status := range []int{429, 200} {
			a := Answer{Provider: "openai", Status: status, Headers: h, Body: body, Now: time.Unix(1_700_000_000, 0), Limits: true}
			if status == 200 {
				a.Body = `{"id":"ok"}`
			}
			want, wantLimit := Classify(a), SuccessLimit(a)
			a.Folded = FoldHeaders(h)
			if got := Classify(a); !reflect.DeepEqual(got, want) {
				t.Errorf("status %d, headers %v: folded by the caller %+v, by Classify %+v", status, h, got, want)
			}
			if got := SuccessLimit(a); !reflect.DeepEqual(got, wantLimit) {
				t.Errorf("status %d, headers %v: SuccessLimit folded by the caller %+v, by itself %+v", status, h, got, wantLimit)
			}
		}
	}
	for _, h := range []map[string]string{{"X-Served-By": " tgi "}, {"x-served-by": " tgi "}} {
		if v, ok := FoldHeaders(h).Lookup("x-served-by"); !ok || v != "tgi" {
			t.Errorf("%v: Lookup = %q, %v; want tgi, true", h, v, ok)
		}
	}
	if _, ok := FoldHeaders(map[string]string{"x-a": ""}).Lookup("x-b"); ok {
		t.Error("Lookup found a header the answer does not carry")
	}
}
