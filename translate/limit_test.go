package translate

import (
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/structpb"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// Answers shaped as the providers document them (their rate-limit pages),
// checked against those documents: not against a golden file.
func limitSources() map[string]*errsvcv1.TranslateRequest {
	pr := func(provider string, status int32, h map[string]string, body string) *errsvcv1.TranslateRequest {
		return &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_ProviderResponse{ProviderResponse: &errsvcv1.ProviderResponse{
			Provider: provider, Status: status, Headers: h, Body: body}}}
	}
	date := "Sun, 01 Jun 2025 12:00:00 GMT"
	return map[string]*errsvcv1.TranslateRequest{
		// OpenAI: x-ratelimit-* with Go-like durations; the tokens window is empty.
		"openai tokens": pr("openai", 429, map[string]string{"date": date,
			"x-ratelimit-limit-requests": "10000", "x-ratelimit-remaining-requests": "9999", "x-ratelimit-reset-requests": "6ms",
			"x-ratelimit-limit-tokens": "30000", "x-ratelimit-remaining-tokens": "0", "x-ratelimit-reset-tokens": "6m0s"},
			`{"error":{"message":"Rate limit reached for gpt-4o in organization org-abc on tokens per min (TPM): Limit 30000, Used 30000, Requested 1200. Please try again in 2.4s.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}`),
		// Anthropic: RFC 3339 resets.
		"anthropic input tokens": pr("anthropic", 429, map[string]string{"date": date, "retry-after": "20",
			"anthropic-ratelimit-input-tokens-limit": "40000", "anthropic-ratelimit-input-tokens-remaining": "0", "anthropic-ratelimit-input-tokens-reset": "2025-06-01T12:00:20Z",
			"anthropic-ratelimit-requests-limit": "50", "anthropic-ratelimit-requests-remaining": "49", "anthropic-ratelimit-requests-reset": "2025-06-01T12:00:01Z"},
			`{"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed the rate limit for your organization of 40,000 input tokens per minute."}}`),
		"openai insufficient_quota": pr("openai", 429, nil,
			`{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`),
		"anthropic overloaded": pr("anthropic", 529, nil, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`),
	}
}

type wantLimit struct {
	kind, dimension, scope, decision string
	resetAt                          string
	remaining, limit                 int64 // -1: absent
}

func TestLimitFacetFromProviders(t *testing.T) {
	want := map[string]wantLimit{
		"openai tokens":             {"rate", "tokens", "organization", "wait_until_reset", "2025-06-01T12:06:00Z", 0, 30000},
		"anthropic input tokens":    {"rate", "input_tokens", "organization", "wait_until_reset", "2025-06-01T12:00:20Z", 0, 40000},
		"openai insufficient_quota": {"spend", "credits", "unknown", "stop_and_tell_a_person", "", -1, -1},
		"anthropic overloaded":      {"capacity", "", "unknown", "fail_over", "", -1, -1},
	}
	for name, req := range limitSources() {
		resp := mustTranslate(t, name, req)
		checkFacet(t, name, resp.GetLimit(), want[name])
		if got := resp.GetLimit().GetDecision(); got != want[name].decision {
			t.Errorf("%s: decision %q", name, got)
		}
		// Round trips: errsvc's own grpc_status and Labby envelope keep
		// kind, scope and reset time.
		st := resp.GetGrpcStatus()
		bin, err := proto.Marshal(st)
		if err != nil {
			t.Fatal(err)
		}
		back := mustTranslate(t, name+" via grpc_status", &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_GrpcStatus{GrpcStatus: &errsvcv1.GrpcStatusError{StatusBin: bin}}})
		checkRoundTrip(t, name+" via grpc_status", resp.GetLimit(), back.GetLimit())
		lab := mustTranslate(t, name+" via labby_error", &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_LabbyError{LabbyError: resp.GetLabbyError()}})
		checkRoundTrip(t, name+" via labby_error", resp.GetLimit(), lab.GetLimit())
	}
}

func checkFacet(t *testing.T, name string, l *errsvcv1.Limit, w wantLimit) {
	t.Helper()
	if l == nil {
		t.Fatalf("%s: no limit", name)
	}
	if l.GetKind() != w.kind || l.GetDimension() != w.dimension || l.GetScope() != w.scope {
		t.Errorf("%s: limit %s/%s/%s, want %s/%s/%s", name, l.GetKind(), l.GetDimension(), l.GetScope(), w.kind, w.dimension, w.scope)
	}
	got := ""
	if l.GetResetAt() != nil {
		got = l.GetResetAt().AsTime().Format(time.RFC3339Nano)
	}
	if got != w.resetAt {
		t.Errorf("%s: reset_at %q, want %q", name, got, w.resetAt)
	}
	if (w.remaining < 0) != (l.Remaining == nil) || w.remaining >= 0 && int64(l.GetRemaining()) != w.remaining {
		t.Errorf("%s: remaining %v, want %d", name, l.Remaining, w.remaining)
	}
	if (w.limit < 0) != (l.Limit == nil) || w.limit >= 0 && int64(l.GetLimit()) != w.limit {
		t.Errorf("%s: limit %v, want %d", name, l.Limit, w.limit)
	}
}

func checkRoundTrip(t *testing.T, name string, a, b *errsvcv1.Limit) {
	t.Helper()
	if a.GetKind() != b.GetKind() || a.GetScope() != b.GetScope() || a.GetDimension() != b.GetDimension() ||
		!a.GetResetAt().AsTime().Equal(b.GetResetAt().AsTime()) || a.GetDecision() != b.GetDecision() {
		t.Errorf("%s: limit %v came back as %v", name, a, b)
	}
}

// The Labby kinds that mean a limit carry one; a kind that does not, none.
func TestLimitFromLabbyKinds(t *testing.T) {
	for kind, want := range map[string]string{"rate_limited": "rate", "quota_exceeded": "quota", "queue_saturated": "concurrency", "not_found": ""} {
		resp := mustTranslate(t, kind, &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_LabbyError{LabbyError: &errsvcv1.LabbyError{Kind: kind, Message: "m"}}})
		if got := resp.GetLimit().GetKind(); got != want {
			t.Errorf("%s: limit kind %q, want %q", kind, got, want)
		}
		if want != "" && resp.GetLimit().GetScope() != "unknown" {
			t.Errorf("%s: scope %q, want unknown (never invented)", kind, resp.GetLimit().GetScope())
		}
	}
	// quota_exceeded's class is transient (the Error Class Contract's safe
	// default for a quota it cannot tell apart), but the Labby row's
	// recovery is reduce_work with same_arguments never: no target advises
	// sending the same call again, so a person must act.
	resp := mustTranslate(t, "quota", &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_LabbyError{LabbyError: &errsvcv1.LabbyError{Kind: "quota_exceeded", Message: "m"}}})
	if d := resp.GetLimit().GetDecision(); d != "stop_and_tell_a_person" {
		t.Errorf("quota_exceeded: decision %q", d)
	}
	resp = mustTranslate(t, "quota stop", &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_LabbyError{LabbyError: &errsvcv1.LabbyError{Kind: "quota_exceeded", Message: "m",
		Recovery: &errsvcv1.Recovery{Action: "do_not_retry"}}}})
	if d, h := resp.GetLimit().GetDecision(), resp.GetHandling(); d != "stop_and_tell_a_person" {
		t.Errorf("quota_exceeded do_not_retry: decision %q (%v)", d, h)
	}
}

// An unknown limit term in errsvc's detail passes through.
func TestLimitUnknownTermPassesThrough(t *testing.T) {
	d, _ := structpb.NewStruct(map[string]any{"limit": map[string]any{"kind": "burst", "scope": "tenant", "dimension": "gpu_seconds"}})
	resp := mustTranslate(t, "unknown", &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_LabbyError{LabbyError: &errsvcv1.LabbyError{Kind: "rate_limited", Message: "m", Detail: d}}})
	l := resp.GetLimit()
	if l.GetKind() != "burst" || l.GetScope() != "tenant" || l.GetDimension() != "gpu_seconds" || l.GetDecision() != "wait_until_reset" {
		t.Errorf("unknown terms: %v", l)
	}
}

// A Google service's RESOURCE_EXHAUSTED with a QuotaFailure (AIP-193's
// example shape) reads its quota id, dimension and scope.
func TestLimitFromForeignQuotaFailure(t *testing.T) {
	qf, _ := anypb.New(&errdetails.QuotaFailure{Violations: []*errdetails.QuotaFailure_Violation{{
		QuotaMetric: "generativelanguage.googleapis.com/generate_content_free_tier_requests",
		QuotaId:     "GenerateRequestsPerDayPerProjectPerModel-FreeTier", QuotaValue: 50,
		QuotaDimensions: map[string]string{"location": "global", "model": "gemini-2.0-flash"}}}})
	bin, _ := proto.Marshal(&status.Status{Code: 8, Message: "quota", Details: []*anypb.Any{qf}})
	resp := mustTranslate(t, "google", &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_GrpcStatus{GrpcStatus: &errsvcv1.GrpcStatusError{StatusBin: bin}}})
	l := resp.GetLimit()
	if l.GetKind() != "quota" || l.GetDimension() != "requests" || l.GetScope() != "model" || l.GetLimit() != 50 ||
		l.GetQuotaId() != "GenerateRequestsPerDayPerProjectPerModel-FreeTier" {
		t.Errorf("QuotaFailure: %v", l)
	}
}

// google_error, read back as a Gemini answer, keeps kind, scope, dimension
// and the limit (errsvc's own ErrorInfo and QuotaFailure).
func TestLimitRoundTripThroughGoogleError(t *testing.T) {
	for name, req := range limitSources() {
		req.Targets = []string{TargetGoogleError, TargetLimit}
		resp := mustTranslate(t, name, req)
		ge := resp.GetGoogleError()
		body, err := protojson.Marshal(ge.GetBody())
		if err != nil {
			t.Fatal(err)
		}
		back := mustTranslate(t, name+" via google_error", &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_ProviderResponse{ProviderResponse: &errsvcv1.ProviderResponse{
			Provider: "gemini", Status: ge.GetStatus(), Headers: ge.GetHeaders(), Body: string(body)}}})
		a, b := resp.GetLimit(), back.GetLimit()
		if a.GetKind() != b.GetKind() || a.GetScope() != b.GetScope() || a.GetDimension() != b.GetDimension() || a.GetLimit() != b.GetLimit() || a.GetDecision() != b.GetDecision() {
			t.Errorf("%s: limit %v came back through google_error as %v", name, a, b)
		}
	}
}
