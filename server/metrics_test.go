package server

import (
	"context"
	"strings"
	"testing"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// TestTranslationMetrics checks the source and class labels: bounded
// values only, whatever the request carries.
func TestTranslationMetrics(t *testing.T) {
	r := start(t, Options{})
	ctx := context.Background()
	const upstreamClass = "weird_upstream_class_x"
	for _, req := range []*errsvcv1.TranslateRequest{
		validRequest(),
		{Source: &errsvcv1.TranslateRequest_ClassifiedError{ClassifiedError: &errsvcv1.ClassifiedError{Class: upstreamClass}}},
		{},
	} {
		_, _ = r.client.Translate(ctx, req)
	}
	r.post(t, "/v1/translate:batch", `{"requests":[{"agent_error":{"code":"TIMEOUT"}},{"mcp_tool_result":{"tool":"a::b","is_error":true}}]}`)

	_, body := r.get(t, "/metrics")
	metrics := string(body)
	for _, want := range []string{
		`errsvc_translations_total{class="transient",code="OK",rpc="/errsvc.v1.TranslationService/Translate",source="labby_error",transport="grpc"} 1`,
		`errsvc_translations_total{class="other",code="OK",rpc="/errsvc.v1.TranslationService/Translate",source="classified_error",transport="grpc"} 1`,
		`errsvc_translations_total{class="none",code="InvalidArgument",rpc="/errsvc.v1.TranslationService/Translate",source="none",transport="grpc"} 1`,
		`source="agent_error",transport="http"`,
		`source="mcp_tool_result",transport="http"`,
		`errsvc_errors_total{code="InvalidArgument",rpc="/errsvc.v1.TranslationService/Translate",scope="call",transport="grpc"} 1`,
		`errsvc_translation_duration_seconds_bucket{source="labby_error"`,
		`errsvc_in_flight_requests 0`,
		`errsvc_active_streams 0`,
		`process_resident_memory_bytes`,
		`go_goroutines`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if strings.Contains(metrics, upstreamClass) {
		t.Error("an upstream class became a label value")
	}
	if t.Failed() {
		t.Log(grep(metrics, "errsvc_translations_total"))
	}
}
