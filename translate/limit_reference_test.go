package translate

import (
	"strings"
	"testing"
	"time"

	"github.com/dunglas/httpsfv"
	"google.golang.org/genproto/googleapis/rpc/errdetails"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// Every fixture that states its limit (want.limit, written from the
// provider's own words, not from errsvc's answer): the answer states that
// limit in every target that carries it, as a client reads each: the
// limit target, Errsvc-Limit through an independent RFC 9651 parser, and
// the QuotaFailure's subject through protobuf-go. TestFixtures holds the
// classifier to the same wants; this holds what is served.
func TestServedLimitIsTheFixtures(t *testing.T) {
	n := 0
	for _, fx := range providerFixtures() {
		w := fx.Want.Limit
		if fx.Want.Class == "" || w == nil {
			continue
		}
		n++
		req := mustProviderRequest(t, fx)
		req.Targets = []string{TargetLimit, TargetHTTPHeaders, TargetGRPCStatus}
		resp := mustTranslate(t, fx.Name, req)
		l := resp.GetLimit()
		if w.Kind == "none" {
			if l != nil {
				t.Errorf("%s: limit %v, the fixture states none", fx.Name, l)
			}
			continue
		}
		scope := w.Scope
		if scope == "" {
			scope = "unknown"
		}
		// A dimension "none": the answer does not say, so none is served.
		dim := w.Dimension
		if dim == "none" && l.GetDimension() != "" {
			t.Errorf("%s: dimension %q, the fixture states none", fx.Name, l.GetDimension())
		}
		if l.GetKind() != w.Kind || l.GetScope() != scope || dim != "" && dim != "none" && l.GetDimension() != dim ||
			w.Decision != "" && l.GetDecision() != w.Decision {
			t.Errorf("%s: limit %s/%s/%s, %s; the fixture states %s/%s/%s, %s", fx.Name, l.GetKind(), l.GetDimension(), l.GetScope(), l.GetDecision(),
				w.Kind, w.Dimension, scope, w.Decision)
		}
		if w.ResetAt != "" {
			if r, _ := parseRFC3339(w.ResetAt); l.GetResetAt() == nil || !l.GetResetAt().AsTime().Equal(r) {
				t.Errorf("%s: reset_at %v, the fixture states %s", fx.Name, l.GetResetAt().AsTime(), w.ResetAt)
			}
		}
		if w.Remaining != nil && (l.Remaining == nil || l.GetRemaining() != *w.Remaining) {
			t.Errorf("%s: remaining %v, the fixture states %d", fx.Name, l.Remaining, *w.Remaining)
		}
		if w.Limit != nil && (l.Limit == nil || l.GetLimit() != *w.Limit) {
			t.Errorf("%s: limit %v, the fixture states %d", fx.Name, l.Limit, *w.Limit)
		}
		d, err := httpsfv.UnmarshalDictionary([]string{resp.GetHttpHeaders()["Errsvc-Limit"]})
		if err != nil {
			t.Fatalf("%s: Errsvc-Limit: %v", fx.Name, err)
		}
		if _, ok := d.Get("dimension"); ok && dim == "none" {
			t.Errorf("%s: Errsvc-Limit names a dimension, the fixture states none", fx.Name)
		}
		if dim == "none" {
			dim = ""
		}
		for key, want := range map[string]string{"kind": w.Kind, "scope": scope, "dimension": dim} {
			if m, ok := d.Get(key); want != "" && (!ok || m.(httpsfv.Item).Value != want) {
				t.Errorf("%s: Errsvc-Limit %s = %v, the fixture states %q", fx.Name, key, m, want)
			}
		}
		for _, a := range resp.GetGrpcStatus().GetDetails() {
			qf := new(errdetails.QuotaFailure)
			if strings.HasSuffix(a.GetTypeUrl(), "/google.rpc.QuotaFailure") && a.UnmarshalTo(qf) == nil && len(qf.GetViolations()) > 0 {
				if subject := qf.GetViolations()[0].GetSubject(); scope != "unknown" && subject != scope {
					t.Errorf("%s: QuotaFailure subject %q, the fixture states scope %q", fx.Name, subject, scope)
				}
			}
		}
	}
	if n < 60 {
		t.Errorf("%d fixtures state their limit, want at least 60", n)
	}
}

// Every limit fixture: the google.rpc.QuotaFailure grpc_status carries
// (written with protowire, by hand) reads with protobuf-go's own type, and
// its one violation states the facet in the fields the type defines for
// it: subject the scope (when known), description "<kind> limit on
// <dimension>", quota_metric the dimension, quota_id the limit's name and
// quota_value its size. A facet that says more than its kind carries it.
func TestQuotaFailureStatesTheFacet(t *testing.T) {
	n := 0
	eachLimitAnswer(t, []string{TargetGRPCStatus, TargetLimit}, func(fx providerFixture, resp *errsvcv1.TranslateResponse) {
		l := resp.GetLimit()
		var qf *errdetails.QuotaFailure
		for _, d := range resp.GetGrpcStatus().GetDetails() {
			if !strings.HasSuffix(d.GetTypeUrl(), "/google.rpc.QuotaFailure") {
				continue
			}
			qf = new(errdetails.QuotaFailure)
			if err := d.UnmarshalTo(qf); err != nil {
				t.Fatalf("%s: QuotaFailure does not decode: %v", fx.Name, err)
			}
		}
		if qf == nil {
			if l.GetDimension() != "" || l.GetScope() != "unknown" || l.Limit != nil || l.GetQuotaId() != "" {
				t.Errorf("%s: no QuotaFailure for a facet that says more than its kind: %v", fx.Name, l)
			}
			return
		}
		n++
		if len(qf.GetViolations()) != 1 {
			t.Fatalf("%s: %d violations, want the limit hit alone", fx.Name, len(qf.GetViolations()))
		}
		v := qf.GetViolations()[0]
		scope := l.GetScope()
		if scope == "unknown" {
			scope = ""
		}
		desc := l.GetKind() + " limit"
		if l.GetDimension() != "" {
			desc += " on " + l.GetDimension()
		}
		var size int64
		if l.GetLimit() > 0 {
			size = int64(l.GetLimit())
		}
		if v.GetSubject() != scope || v.GetDescription() != desc || v.GetQuotaMetric() != l.GetDimension() ||
			v.GetQuotaId() != l.GetQuotaId() || v.GetQuotaValue() != size {
			t.Errorf("%s: QuotaFailure violation %v, want subject %q, description %q, quota_metric %q, quota_id %q, quota_value %d",
				fx.Name, v, scope, desc, l.GetDimension(), l.GetQuotaId(), size)
		}
	})
	t.Logf("%d limit fixtures' QuotaFailure read", n)
	if n < 40 {
		t.Errorf("%d limit fixtures with a QuotaFailure, want at least 40", n)
	}
}

// RateLimit-Policy's qu is the draft's registered unit for the dimensions
// the registry names (testdata/reference/facts.json): a client that knows
// the registry reads a concurrency limit as one.
func TestRateLimitPolicyUnitsAreRegistered(t *testing.T) {
	f := loadContractFacts(t)
	if len(f.RatelimitQuotaUnits) == 0 {
		t.Fatal("no quota units in facts.json")
	}
	for dim, unit := range f.RatelimitQuotaUnits {
		if got := quotaUnit(dim); got != `"`+unit+`"` {
			t.Errorf("qu for %s is %s, the registry's unit is %q", dim, got, unit)
		}
	}
	// And on the wire: a concurrency limit with a size.
	req := &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_LabbyError{LabbyError: &errsvcv1.LabbyError{
		Kind: "rate_limited", Message: "too many in flight"}},
		Targets: []string{TargetHTTPHeaders}}
	req.GetLabbyError().Detail = mustStruct(map[string]any{"limit": map[string]any{"kind": "concurrency", "dimension": "concurrent_requests", "limit": 4, "remaining": 0}})
	resp := mustTranslate(t, "concurrency", req)
	v, ok := resp.GetHttpHeaders()["RateLimit-Policy"]
	if !ok {
		t.Fatalf("no RateLimit-Policy: %v", resp.GetHttpHeaders())
	}
	_, p := sfOne(t, "concurrency", "RateLimit-Policy", v)
	if qu, _ := p.Get("qu"); qu != f.RatelimitQuotaUnits["concurrent_requests"] {
		t.Errorf("RateLimit-Policy %q: qu %v, want %q", v, qu, f.RatelimitQuotaUnits["concurrent_requests"])
	}
}

// A reset the provider states before the answer's own Date (its clock
// ahead of the provider's, or a reset just passed): the limit has reset,
// so RateLimit's t and x-ratelimit-reset say 0, never a negative wait that
// the draft's Integer and a duration parser would read as something else.
func TestLimitHeadersResetInThePast(t *testing.T) {
	req := &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_ProviderResponse{ProviderResponse: &errsvcv1.ProviderResponse{
		Provider: "anthropic", Status: 429, Headers: map[string]string{"date": "Sun, 01 Jun 2025 12:00:20 GMT",
			"anthropic-ratelimit-requests-limit": "50", "anthropic-ratelimit-requests-remaining": "0", "anthropic-ratelimit-requests-reset": "2025-06-01T12:00:00Z"},
		Body: `{"type":"error","error":{"type":"rate_limit_error","message":"Number of requests has exceeded your per-minute rate limit"}}`}},
		Targets: []string{TargetHTTPHeaders, TargetLimit}}
	resp := mustTranslate(t, "reset in the past", req)
	h := resp.GetHttpHeaders()
	if got := resp.GetLimit().GetResetAt().AsTime(); !got.Equal(time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)) {
		t.Errorf("reset_at %s, want the provider's", got)
	}
	_, p := sfOne(t, "reset in the past", "RateLimit", h["RateLimit"])
	if tv, ok := sfInt(t, "reset in the past", p, "t"); !ok || tv != 0 {
		t.Errorf("RateLimit %q: t=%d (present %v), want 0", h["RateLimit"], tv, ok)
	}
	if d, err := time.ParseDuration(h["x-ratelimit-reset-requests"]); err != nil || d != 0 {
		t.Errorf("x-ratelimit-reset-requests %q, want 0s", h["x-ratelimit-reset-requests"])
	}
}
