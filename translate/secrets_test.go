package translate

import (
	"testing"

	"google.golang.org/protobuf/types/known/structpb"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/internal/secrets"
)

// No secret of the corpus survives into any field of any response, over
// every source and every place a source carries text.
func TestSecretsNeverReachAResponse(t *testing.T) {
	corpus, err := secrets.Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(corpus) < 40 {
		t.Fatalf("corpus has %d entries, want at least 40", len(corpus))
	}
	for _, e := range corpus {
		for name, req := range requestsCarrying(e.Text) {
			resp, err := Translate(req)
			if err != nil {
				t.Fatalf("%s/%s: %v", e.Name, name, err)
			}
			out := jsonOut.Format(resp)
			if piece, leaked := secrets.Leaks(out, e.Secret); leaked {
				t.Errorf("%s via %s: %q leaked into the response", e.Name, name, piece)
			}
		}
	}
}

// requestsCarrying builds one request per place a source carries text.
func requestsCarrying(text string) map[string]*errsvcv1.TranslateRequest {
	str := structpb.NewStringValue(text)
	details, _ := structpb.NewStruct(map[string]any{"reason": text, "issues": []any{map[string]any{"path": "a", "message": text}}, "class": text})
	block, _ := structpb.NewStruct(map[string]any{"type": "text", "text": text})
	resource, _ := structpb.NewStruct(map[string]any{"type": "resource", "resource": map[string]any{"uri": text, "text": text}})
	jsonBlock, _ := structpb.NewStruct(map[string]any{"type": "text", "text": `{"kind":"tool_error","message":` + quote(text) + `}`})
	labby := func(e *errsvcv1.LabbyError) *errsvcv1.TranslateRequest {
		return &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_LabbyError{LabbyError: e}}
	}
	return map[string]*errsvcv1.TranslateRequest{
		"labby.message":  labby(&errsvcv1.LabbyError{Kind: "upstream_error", Message: text}),
		"labby.kind":     labby(&errsvcv1.LabbyError{Kind: text, Message: "m"}),
		"labby.cause":    labby(&errsvcv1.LabbyError{Kind: "upstream_error", Message: "m", Cause: text, Command: text, Prompt: text, Resource: text, Tool: text, Upstream: text}),
		"labby.guidance": labby(&errsvcv1.LabbyError{Kind: "timeout", Message: "m", Origin: text, Recovery: &errsvcv1.Recovery{Action: text, SameArguments: text, Guidance: text}}),
		"labby.detail":   labby(&errsvcv1.LabbyError{Kind: "timeout", Message: "m", Detail: details, Evidence: &errsvcv1.Evidence{Content: []*errsvcv1.EvidenceBlock{{Type: "text", Text: text}}, ParsedError: str}}),
		"labby.agent":    labby(&errsvcv1.LabbyError{Kind: "timeout", Message: "m", AgentError: &errsvcv1.AgentError{Code: text, Retry: text, Message: text, Details: details}}),
		"agent.message":  {Source: &errsvcv1.TranslateRequest_AgentError{AgentError: &errsvcv1.AgentError{Code: "EXECUTION_FAILED", Message: text, Details: details}}},
		"agent.code":     {Source: &errsvcv1.TranslateRequest_AgentError{AgentError: &errsvcv1.AgentError{Code: text, Retry: text}}},
		"classified":     {Source: &errsvcv1.TranslateRequest_ClassifiedError{ClassifiedError: &errsvcv1.ClassifiedError{Code: text, Class: text, Message: text, Detail: details, ProviderCode: text}}},
		"provider.body": {Source: &errsvcv1.TranslateRequest_ProviderResponse{ProviderResponse: &errsvcv1.ProviderResponse{
			Provider: "openai", Status: 401, Body: `{"error":{"message":` + quote(text) + `,"type":"invalid_request_error","code":"invalid_api_key"}}`,
			Headers: map[string]string{"www-authenticate": text, "x-request-id": text}}}},
		"provider.text": {Source: &errsvcv1.TranslateRequest_ProviderResponse{ProviderResponse: &errsvcv1.ProviderResponse{Provider: text, Status: 500, Body: text}}},
		"mcp.content": {Source: &errsvcv1.TranslateRequest_McpToolResult{McpToolResult: &errsvcv1.McpToolResult{
			Tool: "ns::" + text, IsError: true, Content: []*structpb.Struct{block, resource, jsonBlock}, StructuredContent: structpb.NewStructValue(details)}}},
		"context": {Source: &errsvcv1.TranslateRequest_LabbyError{LabbyError: &errsvcv1.LabbyError{Kind: "timeout", Message: "m"}},
			Targets: []string{text, "labby_error", "code_mode_error", "agent_error"},
			Context: &errsvcv1.TranslateContext{Service: text, Action: text, Tool: text, Upstream: text}},
	}
}

func quote(s string) string {
	return string(mustJSON(s))
}
