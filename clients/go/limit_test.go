package errsvcclient_test

import (
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	errsvcclient "github.com/errsvc/errsvc/clients/go"
	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// Every golden answer's limit agrees with the retry decision: stop and
// tell a person exactly when no retry helps.
func TestLimitOfAgreesWithIsRetryable(t *testing.T) {
	n := 0
	for _, c := range decisionCases(t) {
		l, ok := errsvcclient.LimitOf(c.resp)
		if !ok {
			continue
		}
		n++
		if stop := l.Decision == errsvcclient.LimitStopAndTell; stop == errsvcclient.IsRetryable(c.resp) {
			t.Errorf("%s: limit decision %q, retryable %v", c.name, l.Decision, errsvcclient.IsRetryable(c.resp))
		}
		if l.Scope == "" {
			t.Errorf("%s: empty scope", c.name)
		}
	}
	if n == 0 {
		t.Fatal("no golden answer carries a limit")
	}
}

func TestLimitOf(t *testing.T) {
	reset := time.Date(2025, 6, 1, 12, 6, 0, 0, time.UTC)
	zero, max := uint64(0), uint64(30000)
	transient := &errsvcv1.Classification{Class: "transient"}
	permanent := &errsvcv1.Classification{Class: "permanent"}
	detail, _ := structpb.NewStruct(map[string]any{"limit": map[string]any{"kind": "rate", "dimension": "tokens", "scope": "organization", "reset_at": "2025-06-01T12:06:00Z", "remaining": 0, "limit": 30000}})
	for _, c := range []struct {
		name string
		resp *errsvcv1.TranslateResponse
		want errsvcclient.Limit
		ok   bool
	}{
		{"limit target", &errsvcv1.TranslateResponse{Classification: transient, Limit: &errsvcv1.Limit{Kind: "rate", Dimension: "tokens", Scope: "organization",
			ResetAt: timestamppb.New(reset), Remaining: &zero, Limit: &max, Decision: "wait_until_reset"}},
			errsvcclient.Limit{Kind: "rate", Dimension: "tokens", Scope: "organization", ResetAt: reset, Remaining: &zero, Max: &max, Decision: "wait_until_reset"}, true},
		{"labby detail only", &errsvcv1.TranslateResponse{Classification: transient, LabbyError: &errsvcv1.LabbyError{Kind: "rate_limited", Detail: detail}},
			errsvcclient.Limit{Kind: "rate", Dimension: "tokens", Scope: "organization", ResetAt: reset, Remaining: &zero, Max: &max, Decision: "wait_until_reset"}, true},
		{"spend: never retried", &errsvcv1.TranslateResponse{Classification: permanent, Limit: &errsvcv1.Limit{Kind: "spend", Dimension: "credits"}},
			errsvcclient.Limit{Kind: "spend", Dimension: "credits", Scope: "unknown", Decision: "stop_and_tell_a_person"}, true},
		{"capacity fails over", &errsvcv1.TranslateResponse{Classification: transient, Limit: &errsvcv1.Limit{Kind: "capacity", Scope: "unknown"}},
			errsvcclient.Limit{Kind: "capacity", Scope: "unknown", Decision: "fail_over"}, true},
		{"concurrency: fewer in flight", &errsvcv1.TranslateResponse{Classification: transient, Limit: &errsvcv1.Limit{Kind: "concurrency", Scope: "key", Decision: "a-newer-decision"}},
			errsvcclient.Limit{Kind: "concurrency", Scope: "key", Decision: "reduce_concurrency"}, true},
		{"unknown kind passes through", &errsvcv1.TranslateResponse{Classification: transient, Limit: &errsvcv1.Limit{Kind: "burst", Scope: "tenant"}},
			errsvcclient.Limit{Kind: "burst", Scope: "tenant", Decision: "wait_until_reset"}, true},
		{"not a limit", &errsvcv1.TranslateResponse{Classification: permanent}, errsvcclient.Limit{}, false},
		{"nil", nil, errsvcclient.Limit{}, false},
	} {
		got, ok := errsvcclient.LimitOf(c.resp)
		if ok != c.ok || got.Kind != c.want.Kind || got.Dimension != c.want.Dimension || got.Scope != c.want.Scope ||
			!got.ResetAt.Equal(c.want.ResetAt) || got.Decision != c.want.Decision ||
			(got.Remaining == nil) != (c.want.Remaining == nil) || (got.Max == nil) != (c.want.Max == nil) ||
			got.Remaining != nil && *got.Remaining != *c.want.Remaining || got.Max != nil && *got.Max != *c.want.Max {
			t.Errorf("%s: LimitOf = %+v, %v; want %+v, %v", c.name, got, ok, c.want, c.ok)
		}
	}
}
