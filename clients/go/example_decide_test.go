package errsvcclient_test

import (
	"context"
	"fmt"
	"log"

	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"

	errsvcclient "github.com/errsvc/errsvc/clients/go"
	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// One error of each of the five source kinds, in the JSON form they arrive
// in, and what to do next. (In process here; Dial gives the same answers.)
func Example_fiveSources() {
	sources := []string{
		// A Labby envelope (here with its own wait).
		`{"labby_error": {"kind": "rate_limited", "message": "A rate limit was hit; wait before retrying.",
		  "origin": "budget", "side_effects": "none_expected",
		  "recovery": {"action": "retry_later", "same_arguments": "conditional", "guidance": "Wait, then retry.", "retry_after_ms": 2500}}}`,
		// An Agent Surface AgentCapabilityErrorPayload: a timeout of a call that is not idempotent.
		`{"agent_error": {"code": "TIMEOUT", "message": "The action timed out; verify state before repeating.",
		  "retry": "no", "details": {"timeoutMs": 30000, "idempotent": false}}}`,
		// An error in the class vocabulary: a vault read error.
		`{"classified_error": {"code": "needs_reauth", "message": "credential for github needs re-authentication", "class": "auth_required"}}`,
		// A raw provider answer: OpenAI's billing 429, which no wait fixes.
		`{"provider_response": {"provider": "openai", "status": 429,
		  "headers": {"content-type": "application/json", "x-request-id": "req_8d1f0c5e"},
		  "body": "{\"error\": {\"message\": \"You exceeded your current quota, please check your plan and billing details.\", \"type\": \"insufficient_quota\", \"param\": null, \"code\": \"insufficient_quota\"}}"}}`,
		// An MCP CallToolResult with isError and a structured error.
		`{"mcp_tool_result": {"tool": "linear::create_issue", "is_error": true,
		  "content": [{"type": "text", "text": "Rate limited by Linear"}],
		  "structured_content": {"kind": "rate_limited", "message": "Too many requests", "retry_after_ms": 1200}}}`,
	}
	c := errsvcclient.NewInProcess()
	defer c.Close()
	for _, src := range sources {
		req := &errsvcv1.TranslateRequest{}
		if err := protojson.Unmarshal([]byte(src), req); err != nil {
			log.Fatal(err)
		}
		resp, err := c.Translate(context.Background(), req)
		if err != nil {
			log.Fatal(err)
		}
		d := errsvcclient.Decide(resp, errsvcclient.DefaultMaxWait, false)
		fmt.Println(resp.GetLabbyError().GetKind(), resp.GetClassification().GetClass(),
			"retryable:", d.Retryable, "wait:", d.RetryAfter, d.RetryAfterOK,
			"reauth:", d.Reauthenticate, "same args:", d.SameArgumentsSafe)
	}
	// Output:
	// rate_limited transient retryable: true wait: 2.5s true reauth: false same args: true
	// timeout permanent retryable: false wait: 0s false reauth: false same args: false
	// needs_reauth auth_required retryable: false wait: 0s false reauth: true same args: false
	// quota_exceeded permanent retryable: false wait: 0s false reauth: false same args: false
	// rate_limited transient retryable: true wait: 1.2s true reauth: false same args: false
}

// StatusError turns the answer's grpc_status into an error a gRPC handler
// returns as is; status.FromError reads its code and details back.
func ExampleStatusError() {
	c := errsvcclient.NewInProcess()
	resp, err := c.Translate(context.Background(), &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_LabbyError{
		LabbyError: &errsvcv1.LabbyError{Kind: "oauth_needs_reauth", Message: "token expired"}}})
	if err != nil {
		log.Fatal(err)
	}
	err = errsvcclient.StatusError(resp)
	st, _ := status.FromError(err)
	fmt.Println(st.Code(), len(st.Details()), errsvcclient.ShouldReauthenticate(resp))
	// Output: Unauthenticated 1 true
}
