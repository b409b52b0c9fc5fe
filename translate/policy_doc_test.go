package translate

import (
	"strings"
	"testing"
)

// docPolicy has one rule for each sentence of docs/POLICY.md that
// TestPolicyDoesWhatItsDocSays holds it to.
func docPolicy(t testing.TB) *Policy {
	t.Helper()
	p, err := NewPolicy(PolicySpec{
		Version: "doc",
		Providers: []ProviderFamilySpec{
			{
				Name:      "fleet",
				Match:     ProviderMatchSpec{Providers: []string{"fleet-prod"}, BaseURLs: []string{"https://fleet.internal.example/v1/"}},
				ReadsLike: "openai",
				Rules: []ProviderRuleSpec{
					{Name: "busy", Status: []int32{503}, Phrases: []string{"busy"}, Class: "transient", WaitSecs: u32(5)},
					{Name: "refused", Status: []int32{403}, Class: "permanent", WaitSecs: u32(7)},
				},
			},
			{
				Name:      "gfleet",
				Match:     ProviderMatchSpec{Providers: []string{"gfleet"}},
				ReadsLike: "gemini",
				Rules: []ProviderRuleSpec{
					{Name: "exhausted", Codes: []string{"RESOURCE_EXHAUSTED"}, Class: "permanent"},
				},
			},
		},
		AgentCodes: []AgentCodeSpec{
			{Code: "SANDBOX_EXHAUSTED", Meaning: "The sandbox ran out of its allowance.", SameAs: "RATE_LIMITED"},
			{Code: "GPU_BUSY", Meaning: "A busy accelerator.", SameAs: "EXECUTION_FAILED", Class: "transient", HTTPStatus: 503},
			{Code: "QUEUE_FULL", Meaning: "The job queue is full.", SameAs: "RATE_LIMITED", HTTPStatus: 503},
		},
		Overrides: []OverrideSpec{
			{Name: "first_for_timeout", Term: "provider_timeout", Decide: Decide{WaitFloorSecs: u32(11)}},
			{Name: "second_for_timeout", Term: "provider_timeout", Decide: Decide{Retry: "never"}},
		},
		Decisions: []DecisionSpec{
			{Name: "payments_by_service", Service: "pay*", Decide: Decide{WaitFloorSecs: u32(13)}},
			{Name: "refund_by_tool", Tool: "refund", Decide: Decide{Retry: "never"}},
			{Name: "drop_table_never", Tool: "drop_table", Decide: Decide{Retry: "never"}},
			{Name: "search_floor", Tool: "search", Decide: Decide{WaitFloorSecs: u32(17)}},
		},
		DefaultWaits: &DefaultWaitsSpec{TransientSecs: u32(3)},
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// What docs/POLICY.md says a policy does, sentence by sentence, each with
// a request the sentence decides (quoted beside it). rule "" says no rule
// may decide; wait 0 says no wait; class "" that the answer carries none
// (a Code Mode answer: the rule's note is what is checked).
func TestPolicyDoesWhatItsDocSays(t *testing.T) {
	p := docPolicy(t)
	const busy = `"status":503,"body":"{\"error\":{\"message\":\"engine busy, try later\",\"type\":\"server_error\"}}"`
	cases := []struct {
		says, req string
		rule      string
		class     string
		wait      uint32
		http      int32
		grpc      int32 // 0: not checked
		agentCode string
	}{
		{says: "match.providers: the request's provider_response.provider, without case",
			req: `{"provider_response":{"provider":"Fleet-PROD",` + busy + `}}`, rule: "fleet.busy", class: "transient", wait: 5},
		{says: "match.base_urls: prefixes of provider_response.base_url (another path on the same host is not one)",
			req: `{"provider_response":{"provider":"openai","base_url":"https://fleet.internal.example/v2/chat",` + busy + `}}`, rule: "", class: "transient", wait: 3},
		{says: "codes: the body's code or type, exactly (a Google body's code is its status)",
			req: `{"provider_response":{"provider":"gfleet","status":429,"body":"{\"error\":{\"code\":429,\"message\":\"Quota exceeded.\",\"status\":\"RESOURCE_EXHAUSTED\"}}"}}`, rule: "gfleet.exhausted", class: "permanent"},
		{says: "wait_secs is the wait of a transient error whose answer gave none (a permanent one has none)",
			req: `{"provider_response":{"provider":"fleet-prod","status":403,"body":"{\"error\":{\"message\":\"forbidden\",\"type\":\"permission_error\"}}"}}`, rule: "fleet.refused", class: "permanent"},
		{says: "wait_secs is the wait of a transient error whose answer gave none (one it gave stands)",
			req: `{"provider_response":{"provider":"fleet-prod","headers":{"retry-after":"30"},` + busy + `}}`, rule: "fleet.busy", class: "transient", wait: 30},
		{says: "the first override for the source term (a second for the same term does not apply)",
			req: `{"labby_error":{"kind":"provider_timeout"},"context":{"idempotent":true}}`, rule: "first_for_timeout", class: "transient", wait: 11},
		{says: "the first decision whose service and tool match, in file order (a service glob before a tool's own rule)",
			req: `{"labby_error":{"kind":"provider_unavailable"},"context":{"service":"payments","tool":"refund"}}`, rule: "payments_by_service", class: "transient", wait: 13},
		{says: "a decision naming a tool alone matches any service",
			req: `{"labby_error":{"kind":"provider_unavailable"},"context":{"service":"warehouse","tool":"drop_table"}}`, rule: "drop_table_never", class: "permanent"},
		{says: "tool: the MCP tool result's when the context and envelope name none",
			req: `{"mcp_tool_result":{"tool":"drop_table","is_error":true,"content":[{"type":"text","text":"{\"kind\":\"provider_unavailable\",\"message\":\"upstream unavailable\"}"}]},"targets":["labby_error"]}`, rule: "drop_table_never"},
		{says: "tool: the request context's, else the envelope's",
			req: `{"labby_error":{"kind":"provider_unavailable","tool":"drop_table"},"context":{"tool":"list_tables"}}`, rule: "", class: "transient", wait: 3},
		{says: "wait_floor_secs gives a wait to one that had none",
			req: `{"labby_error":{"kind":"provider_unavailable"},"context":{"tool":"search"}}`, rule: "search_floor", class: "transient", wait: 17},
		{says: "default waits only for a transient error still without a wait, and the caller's recovery action stays",
			req: `{"labby_error":{"kind":"provider_unavailable","recovery":{"action":"inspect_and_escalate"}}}`, rule: "", class: "transient"},
		{says: "an agent code decides as same_as",
			req: `{"agent_error":{"code":"SANDBOX_EXHAUSTED","message":"sandbox allowance spent"}}`, rule: "agent_code.SANDBOX_EXHAUSTED", class: "transient", wait: 3, http: 429, agentCode: "SANDBOX_EXHAUSTED"},
		{says: "an agent code's own http_status, its gRPC code the status's (google/rpc/code.proto: 503 is UNAVAILABLE)",
			req: `{"agent_error":{"code":"GPU_BUSY","message":"accelerator busy","retry":"after-delay"}}`, rule: "agent_code.GPU_BUSY", class: "transient", wait: 3, http: 503, grpc: 14, agentCode: "GPU_BUSY"},
		{says: "an agent code's own http_status over same_as's, and the gRPC code follows it (RATE_LIMITED's is RESOURCE_EXHAUSTED; 503's UNAVAILABLE)",
			req: `{"agent_error":{"code":"QUEUE_FULL","message":"queue full"}}`, rule: "agent_code.QUEUE_FULL", class: "transient", wait: 3, http: 503, grpc: 14, agentCode: "QUEUE_FULL"},
	}
	for _, c := range cases {
		resp, err := p.Translate(policyRequest(t, c.req))
		if err != nil {
			t.Errorf("%s: %v", c.says, err)
			continue
		}
		notes := policyNotes(resp)
		for _, n := range notes {
			rule, _, _ := strings.Cut(strings.TrimPrefix(n, `policy rule "`), `"`)
			if c.rule == "" && rule != "default_waits" || c.rule != "" && rule != c.rule && !strings.HasPrefix(rule, "agent_code.") && rule != "default_waits" {
				t.Errorf("%s: rule %q decided: %q", c.says, rule, notes)
			}
		}
		if c.rule != "" && !strings.Contains(strings.Join(notes, "\n"), `"`+c.rule+`"`) {
			t.Errorf("%s: no note names %q: %q", c.says, c.rule, notes)
		}
		cl := resp.GetClassification()
		if c.class == "" {
			continue // a source whose answer carries no class: the note is the check
		}
		if cl == nil {
			t.Errorf("%s: no classification: %v", c.says, resp)
			continue
		}
		if got := cl.GetClass(); got != c.class {
			t.Errorf("%s: class %q, want %q", c.says, got, c.class)
		}
		if w := cl.RetryAfterSecs; (c.wait == 0) != (w == nil) || w != nil && uint32(*w) != c.wait {
			t.Errorf("%s: wait %v, want %d", c.says, w, c.wait)
		}
		if c.http != 0 && resp.GetHttpStatus() != c.http {
			t.Errorf("%s: HTTP %d, want %d", c.says, resp.GetHttpStatus(), c.http)
		}
		if c.grpc != 0 && resp.GetGrpcStatus().GetCode() != c.grpc {
			t.Errorf("%s: gRPC code %d, want %d", c.says, resp.GetGrpcStatus().GetCode(), c.grpc)
		}
		if c.agentCode != "" && resp.GetAgentError().GetCode() != c.agentCode {
			t.Errorf("%s: agent code %q, want %q", c.says, resp.GetAgentError().GetCode(), c.agentCode)
		}
	}
}

// "kind keeps the built-in reading's when absent": a family's rule with a
// class and no kind answers the kind the family's reads_like reading
// gives the same answer without the policy.
func TestPolicyRuleKeepsTheBuiltInKind(t *testing.T) {
	p := docPolicy(t)
	req := policyRequest(t, `{"provider_response":{"provider":"fleet-prod","status":503,"body":"{\"error\":{\"message\":\"engine busy, try later\",\"type\":\"server_error\"}}"}}`)
	resp, err := p.Translate(req)
	if err != nil {
		t.Fatal(err)
	}
	plain := policyRequest(t, `{"provider_response":{"provider":"openai","status":503,"body":"{\"error\":{\"message\":\"engine busy, try later\",\"type\":\"server_error\"}}"}}`)
	want, err := Translate(plain)
	if err != nil {
		t.Fatal(err)
	}
	if k := want.GetLabbyError().GetKind(); k == "" || resp.GetLabbyError().GetKind() != k {
		t.Errorf("kind %q, want the built-in reading's %q", resp.GetLabbyError().GetKind(), k)
	}
	if resp.GetAgentError().GetCode() != want.GetAgentError().GetCode() {
		t.Errorf("agent code %q, want the built-in reading's %q", resp.GetAgentError().GetCode(), want.GetAgentError().GetCode())
	}
}
