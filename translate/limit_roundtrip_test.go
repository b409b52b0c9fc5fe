package translate

import (
	"testing"

	"github.com/dunglas/httpsfv"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// eachLimitAnswer translates every error fixture of testdata/providers
// asking for targets, calls fn with each answer that has a limit facet,
// and returns how many had one.
func eachLimitAnswer(t *testing.T, targets []string, fn func(providerFixture, *errsvcv1.TranslateResponse)) int {
	t.Helper()
	n := 0
	for _, fx := range providerFixtures() {
		if fx.Want.Class == "" {
			continue
		}
		req := mustProviderRequest(t, fx)
		req.Targets = targets
		resp := mustTranslate(t, fx.Name, req)
		if resp.GetLimit() == nil {
			continue
		}
		n++
		fn(fx, resp)
	}
	return n
}

// Every fixture that is a limit, by property: what http_status and http_headers
// write reads back through http_error (no body, no received_at: only the
// headers) to the same kind, dimension, scope, reset, remaining and limit.
// Errsvc-Limit is an RFC 9651 Dictionary to an independent parser, and
// RateLimit-Policy's qu names the dimension.
func TestLimitRoundTripThroughHTTPHeaders(t *testing.T) {
	n := eachLimitAnswer(t, []string{TargetHTTPStatus, TargetHTTPHeaders, TargetLimit}, func(fx providerFixture, resp *errsvcv1.TranslateResponse) {
		a, h := resp.GetLimit(), resp.GetHttpHeaders()
		if v, ok := h["Errsvc-Limit"]; ok {
			d, err := httpsfv.UnmarshalDictionary([]string{v})
			if err != nil {
				t.Errorf("%s: Errsvc-Limit %q: %v", fx.Name, v, err)
			} else if m, _ := d.Get("kind"); m.(httpsfv.Item).Value != a.GetKind() {
				t.Errorf("%s: Errsvc-Limit %q: kind, want %q", fx.Name, v, a.GetKind())
			}
		}
		if v, ok := h["RateLimit-Policy"]; ok {
			_, p := sfOne(t, fx.Name, "RateLimit-Policy", v)
			qu, _ := p.Get("qu")
			if want := quotaUnit(a.GetDimension()); want != "" && `"`+qu.(string)+`"` != want {
				t.Errorf("%s: RateLimit-Policy %q: qu %v, want %s", fx.Name, v, qu, want)
			}
		}
		back := mustTranslate(t, fx.Name+" via http_headers", &errsvcv1.TranslateRequest{
			Source:  &errsvcv1.TranslateRequest_HttpError{HttpError: &errsvcv1.HttpError{Status: resp.GetHttpStatus(), Headers: h}},
			Targets: []string{TargetLimit}})
		b := back.GetLimit()
		if !sameLimitFacet(a, b) || (a.Remaining == nil) != (b.Remaining == nil) || a.GetRemaining() != b.GetRemaining() ||
			(a.Limit == nil) != (b.Limit == nil) || a.GetLimit() != b.GetLimit() {
			t.Errorf("%s: limit\n  %v\ncame back through http_headers %v as\n  %v", fx.Name, a, h, b)
		}
	})
	t.Logf("%d limit fixtures round-tripped", n)
	if n < 60 {
		t.Errorf("%d limit fixtures, want at least 60", n)
	}
}

// Errsvc's own facets, not only the providers': the Labby kinds that mean
// a limit, unknown terms (passed through), a term a String cannot hold
// (a Display String) and a reset with no time to count it from, which
// only Errsvc-Limit carries.
func TestLimitRoundTripOwnTermsThroughHTTPHeaders(t *testing.T) {
	mk := func(kind string, limit map[string]any) *errsvcv1.TranslateRequest {
		le := &errsvcv1.LabbyError{Kind: kind, Message: "m"}
		if limit != nil {
			d, err := structpb.NewStruct(map[string]any{"limit": limit})
			if err != nil {
				t.Fatal(err)
			}
			le.Detail = d
		}
		return &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_LabbyError{LabbyError: le},
			Targets: []string{TargetHTTPStatus, TargetHTTPHeaders, TargetLimit}}
	}
	cases := map[string]*errsvcv1.TranslateRequest{
		"rate_limited":    mk("rate_limited", nil),
		"quota_exceeded":  mk("quota_exceeded", nil),
		"queue_saturated": mk("queue_saturated", nil),
		"unknown terms":   mk("rate_limited", map[string]any{"kind": "burst", "scope": "tenant", "dimension": "gpu_seconds", "reset_at": "2025-06-01T12:06:00.5Z", "remaining": 0, "limit": 7}),
		"display string":  mk("quota_exceeded", map[string]any{"kind": "quota", "scope": "équipe \"a\"", "quota_id": "per-day %"}),
	}
	for name, req := range cases {
		resp := mustTranslate(t, name, req)
		a := resp.GetLimit()
		back := mustTranslate(t, name+" via http_headers", &errsvcv1.TranslateRequest{
			Source:  &errsvcv1.TranslateRequest_HttpError{HttpError: &errsvcv1.HttpError{Status: resp.GetHttpStatus(), Headers: resp.GetHttpHeaders()}},
			Targets: []string{TargetLimit}})
		b := back.GetLimit()
		if a.GetKind() == "" || a.GetKind() != b.GetKind() || a.GetDimension() != b.GetDimension() || a.GetScope() != b.GetScope() ||
			a.GetQuotaId() != b.GetQuotaId() || !a.GetResetAt().AsTime().Equal(b.GetResetAt().AsTime()) ||
			a.GetRemaining() != b.GetRemaining() || a.GetLimit() != b.GetLimit() {
			t.Errorf("%s: limit\n  %v\ncame back through http_headers %v as\n  %v", name, a, resp.GetHttpHeaders(), b)
		}
		if a.GetResetAt() != nil && !hasNote(resp, errsvcv1.NoteCode_NOTE_CODE_FIELD_DROPPED) {
			t.Errorf("%s: a reset with no reference, and no note saying why t is not written: %v", name, resp.GetNotes())
		}
	}
}

// Every limit fixture, by property: the gateway answers errsvc writes
// (openai_error, anthropic_error, google_error), read back as the
// provider_response a client of that provider would see, keep the facet's
// kind, dimension, scope and reset.
func TestLimitRoundTripThroughGatewayAnswers(t *testing.T) {
	type gateway struct {
		target, provider string
		answer           func(*errsvcv1.TranslateResponse) (int32, map[string]string, *structpb.Struct)
	}
	gateways := []gateway{
		{TargetOpenAIError, "openai", func(r *errsvcv1.TranslateResponse) (int32, map[string]string, *structpb.Struct) {
			a := r.GetOpenaiError()
			return a.GetStatus(), a.GetHeaders(), a.GetBody()
		}},
		{TargetAnthropicError, "anthropic", func(r *errsvcv1.TranslateResponse) (int32, map[string]string, *structpb.Struct) {
			a := r.GetAnthropicError()
			return a.GetStatus(), a.GetHeaders(), a.GetBody()
		}},
		{TargetGoogleError, "gemini", func(r *errsvcv1.TranslateResponse) (int32, map[string]string, *structpb.Struct) {
			a := r.GetGoogleError()
			return a.GetStatus(), a.GetHeaders(), a.GetBody()
		}},
	}
	n := 0
	for _, fx := range providerFixtures() {
		if fx.Want.Class == "" {
			continue
		}
		for _, g := range gateways {
			req := mustProviderRequest(t, fx)
			req.Targets = []string{g.target, TargetLimit}
			resp := mustTranslate(t, fx.Name, req)
			a := resp.GetLimit()
			if a == nil {
				continue
			}
			n++
			status, headers, body := g.answer(resp)
			raw, err := protojson.Marshal(body)
			if err != nil {
				t.Fatal(err)
			}
			back := mustTranslate(t, fx.Name+" via "+g.target, &errsvcv1.TranslateRequest{
				Source: &errsvcv1.TranslateRequest_ProviderResponse{ProviderResponse: &errsvcv1.ProviderResponse{
					Provider: g.provider, Status: status, Headers: headers, Body: string(raw)}},
				Targets: []string{TargetLimit}})
			b := back.GetLimit()
			if !sameLimitFacet(a, b) {
				t.Errorf("%s: limit\n  %v\ncame back through %s as\n  %v", fx.Name, a, g.target, b)
			}
		}
	}
	t.Logf("%d limit answers round-tripped through the gateway targets", n)
	if n < 180 {
		t.Errorf("%d limit answers, want at least 180 (60 fixtures, 3 targets)", n)
	}
}

// Every limit fixture, by property, through the targets that are also
// sources: grpc_status (QuotaFailure and ErrorInfo), the Labby envelope
// (its detail) and jsonrpc_error (its data) keep kind, dimension, scope
// and reset.
func TestLimitRoundTripThroughEveryTarget(t *testing.T) {
	n := 0
	for _, fx := range providerFixtures() {
		if fx.Want.Class == "" {
			continue
		}
		req := mustProviderRequest(t, fx)
		req.Targets = []string{TargetGRPCStatus, TargetLabbyError, TargetJSONRPCError, TargetLimit}
		resp := mustTranslate(t, fx.Name, req)
		a := resp.GetLimit()
		if a == nil {
			continue
		}
		n++
		bin, err := proto.Marshal(resp.GetGrpcStatus())
		if err != nil {
			t.Fatal(err)
		}
		for via, src := range map[string]*errsvcv1.TranslateRequest{
			"grpc_status":   {Source: &errsvcv1.TranslateRequest_GrpcStatus{GrpcStatus: &errsvcv1.GrpcStatusError{StatusBin: bin}}},
			"labby_error":   {Source: &errsvcv1.TranslateRequest_LabbyError{LabbyError: resp.GetLabbyError()}},
			"jsonrpc_error": {Source: &errsvcv1.TranslateRequest_JsonrpcError{JsonrpcError: resp.GetJsonrpcError()}},
		} {
			src.Targets = []string{TargetLimit}
			b := mustTranslate(t, fx.Name+" via "+via, src).GetLimit()
			if !sameLimitFacet(a, b) {
				t.Errorf("%s: limit\n  %v\ncame back through %s as\n  %v", fx.Name, a, via, b)
			}
		}
	}
	t.Logf("%d limit fixtures round-tripped through grpc_status, labby_error and jsonrpc_error", n)
	if n < 60 {
		t.Errorf("%d limit fixtures, want at least 60: the facet is not read", n)
	}
}

// OpenAI's 429 body names the limit hit in error.type ("requests" or
// "tokens"); openai_error says the one the limit facet holds, for every
// limit fixture whose dimension is a request or token count.
func TestOpenAIErrorTypeNamesTheLimit(t *testing.T) {
	n := 0
	for _, fx := range providerFixtures() {
		if fx.Want.Class == "" {
			continue
		}
		req := mustProviderRequest(t, fx)
		req.Targets = []string{TargetOpenAIError, TargetLimit}
		resp := mustTranslate(t, fx.Name, req)
		typ := resp.GetOpenaiError().GetBody().GetFields()["error"].GetStructValue().GetFields()["type"].GetStringValue()
		if typ != "requests" && typ != "tokens" {
			continue
		}
		want := "requests"
		switch resp.GetLimit().GetDimension() {
		case "tokens", "input_tokens", "output_tokens":
			want = "tokens"
		}
		n++
		if typ != want {
			t.Errorf("%s: openai_error type %q, limit dimension %q", fx.Name, typ, resp.GetLimit().GetDimension())
		}
	}
	if n < 20 {
		t.Errorf("%d rate limit answers, want at least 20", n)
	}
}

// sameLimitFacet: a and b agree on the facet every target carries: kind,
// dimension, scope and the reset (present in both, at the same instant).
func sameLimitFacet(a, b *errsvcv1.Limit) bool {
	return a.GetKind() == b.GetKind() && a.GetDimension() == b.GetDimension() && a.GetScope() == b.GetScope() &&
		(a.GetResetAt() == nil) == (b.GetResetAt() == nil) && a.GetResetAt().AsTime().Equal(b.GetResetAt().AsTime())
}
