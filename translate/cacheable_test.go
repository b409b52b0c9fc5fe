package translate

import (
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// TestCacheableOnlyWithoutTheClock: an answer whose wait was counted from
// the clock changes with time, so it is the one answer a cache must not
// keep; a Date header or received_at pins it, and so does having no wait.
func TestCacheableOnlyWithoutTheClock(t *testing.T) {
	date := time.Now().Add(90 * time.Second).UTC().Format(http1123)
	provider := func(h map[string]string, at *timestamppb.Timestamp) *errsvcv1.TranslateRequest {
		return providerFrom("openai", h, at)
	}
	cases := []struct {
		name string
		req  *errsvcv1.TranslateRequest
		want bool
	}{
		{"HTTP-date Retry-After, no Date, no received_at", provider(map[string]string{"retry-after": date}, nil), false},
		{"reset time, no Date, no received_at", providerFrom("anthropic", map[string]string{"anthropic-ratelimit-unified-reset": "9999999999"}, nil), false},
		{"generic reset time, no Date, no received_at", providerFrom("", map[string]string{"x-ratelimit-reset": "9999999999", "x-ratelimit-remaining": "0"}, nil), false},
		{"HTTP-date Retry-After with received_at", provider(map[string]string{"retry-after": date}, timestamppb.Now()), true},
		{"HTTP-date Retry-After with Date", provider(map[string]string{"retry-after": date, "date": time.Now().UTC().Format(http1123)}, nil), true},
		{"seconds Retry-After", provider(map[string]string{"retry-after": "20"}, nil), true},
		{"no wait", provider(nil, nil), true},
		{"Labby error", &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_LabbyError{LabbyError: &errsvcv1.LabbyError{Kind: "rate_limited", Message: "slow down"}}}, true},
	}
	for _, c := range cases {
		_, got, err := TranslateCacheable(c.req)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got != c.want {
			t.Errorf("%s: cacheable = %v, want %v", c.name, got, c.want)
		}
	}
}

func providerFrom(name string, h map[string]string, at *timestamppb.Timestamp) *errsvcv1.TranslateRequest {
	return &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_ProviderResponse{ProviderResponse: &errsvcv1.ProviderResponse{
		Provider: name, Status: 429, Headers: h, ReceivedAt: at,
		Body: `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`,
	}}}
}

const http1123 = "Mon, 02 Jan 2006 15:04:05 GMT"
