package translate

import (
	"encoding/base64"
	"encoding/json"
	"fmt"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// allTargetNames asks for every target, the ones answered on request too.
func allTargetNames() []any {
	var out []any
	for _, t := range targets {
		out = append(out, t.name)
	}
	return out
}

// withTargets adds the full target list to a request.
func withTargets(req map[string]any) map[string]any {
	req["targets"] = allTargetNames()
	return req
}

// engineField translates req with every target and returns one response
// field in its JSON form: what errsvc writes, to be read back.
func engineField(req map[string]any, field string) any {
	r := &errsvcv1.TranslateRequest{}
	if err := protojson.Unmarshal(mustJSON(withTargets(req)), r); err != nil {
		panic(err)
	}
	resp, err := Translate(r)
	if err != nil {
		panic(err)
	}
	b, err := protojson.MarshalOptions{UseProtoNames: true}.Marshal(resp)
	if err != nil {
		panic(err)
	}
	var all map[string]any
	if err := json.Unmarshal(b, &all); err != nil {
		panic(err)
	}
	return all[field]
}

// engineStatusBin is errsvc's grpc_status for req, serialized and base64'd
// as protobuf JSON spells bytes.
func engineStatusBin(req map[string]any) string {
	r := &errsvcv1.TranslateRequest{}
	if err := protojson.Unmarshal(mustJSON(req), r); err != nil {
		panic(err)
	}
	resp, err := Translate(r)
	if err != nil {
		panic(err)
	}
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(resp.GetGrpcStatus())
	if err != nil {
		panic(err)
	}
	return base64.StdEncoding.EncodeToString(b)
}

const (
	typeErrorInfo    = "type.googleapis.com/google.rpc.ErrorInfo"
	typeRetryInfo    = "type.googleapis.com/google.rpc.RetryInfo"
	typeQuotaFailure = "type.googleapis.com/google.rpc.QuotaFailure"
	typeBadRequest   = "type.googleapis.com/google.rpc.BadRequest"
	typePrecondition = "type.googleapis.com/google.rpc.PreconditionFailure"
	typeHelp         = "type.googleapis.com/google.rpc.Help"
)

// vocabularyCases are the vectors of the sources grpc_status, jsonrpc_error
// and http_error and of the targets answered on request: every row of the
// new vocabularies, real-shaped details from public docs, and what errsvc
// itself writes read back.
func vocabularyCases() []goldenCase {
	var cs []goldenCase
	add := func(name, rule string, req map[string]any) {
		cs = append(cs, goldenCase{name, rule, withTargets(req)})
	}

	// Every gRPC code from a foreign service, bare.
	for _, t := range GrpcCodes.Terms {
		r := t.Row.(*errsvcv1.GrpcCodeRow)
		add("grpc.code."+t.Wire, "a foreign status is classed by its code's row",
			obj("grpc_status", obj("code", r.GetCode(), "message", "upstream said: "+t.Meaning)))
	}
	// Real-shaped details (AIP-193 examples, Google Cloud answers).
	add("grpc.details.resource_exhausted_retry_info", "RESOURCE_EXHAUSTED with RetryInfo is a window: transient with the wait to the millisecond",
		obj("grpc_status", obj("code", 8, "message", "Quota exceeded for quota metric 'Requests' and limit 'Requests per minute'.",
			"details", []any{
				obj("@type", typeErrorInfo, "reason", "RATE_LIMIT_EXCEEDED", "domain", "googleapis.com", "metadata", obj("service", "pubsub.googleapis.com", "quota_limit", "RequestsPerMinutePerProject")),
				obj("@type", typeQuotaFailure, "violations", []any{obj("subject", "project:123", "description", "Requests per minute exceeded")}),
				obj("@type", typeRetryInfo, "retry_delay", "7.500s"),
			})))
	add("grpc.details.resource_exhausted_billing", "RESOURCE_EXHAUSTED whose ErrorInfo says billing is off is a quota a human must raise: permanent",
		obj("grpc_status", obj("code", 8, "message", "Billing is disabled for this project.",
			"details", []any{obj("@type", typeErrorInfo, "reason", "BILLING_DISABLED", "domain", "googleapis.com", "metadata", obj("consumer", "projects/123"))})))
	add("grpc.details.resource_exhausted_no_details", "RESOURCE_EXHAUSTED that says nothing more takes the safe default, transient, without a wait",
		obj("grpc_status", obj("code", 8, "message", "Resource has been exhausted (e.g. check quota).")))
	add("grpc.details.unavailable_retry_info", "UNAVAILABLE with RetryInfo: transient with the wait; the pushback trailer carries it",
		obj("grpc_status", obj("code", 14, "message", "The service is currently unavailable.", "details", []any{obj("@type", typeRetryInfo, "retry_delay", "2s")})))
	add("grpc.details.permission_denied_retry_info", "a RetryInfo on a permanent status is no backoff floor: dropped with a note",
		obj("grpc_status", obj("code", 7, "message", "Permission 'storage.objects.get' denied.",
			"details", []any{obj("@type", typeErrorInfo, "reason", "IAM_PERMISSION_DENIED", "domain", "iam.googleapis.com", "metadata", obj("permission", "storage.objects.get")), obj("@type", typeRetryInfo, "retry_delay", "30s")})))
	add("grpc.details.invalid_argument_bad_request", "BadRequest field violations are kept as producer detail; the class is the code's",
		obj("grpc_status", obj("code", 3, "message", "Request contains an invalid argument.",
			"details", []any{obj("@type", typeBadRequest, "field_violations", []any{obj("field", "instance.name", "description", "must match [a-z]+")})})))
	add("grpc.details.failed_precondition", "PreconditionFailure is kept as producer detail",
		obj("grpc_status", obj("code", 9, "message", "Terms of service not accepted.",
			"details", []any{obj("@type", typePrecondition, "violations", []any{obj("type", "TOS", "subject", "google.com/cloud", "description", "Terms of service not accepted")})})))
	add("grpc.details.help_links", "Help links are kept (sanitised) as producer detail",
		obj("grpc_status", obj("code", 16, "message", "Request had invalid authentication credentials.",
			"details", []any{obj("@type", typeHelp, "links", []any{obj("description", "Authentication", "url", "https://cloud.google.com/docs/authentication")})})))
	add("grpc.details.unknown_type", "a detail type errsvc does not know (a service's own) is kept with a note, never a decode error",
		obj("grpc_status", obj("code", 14, "message", "Backend unavailable.",
			"details", []any{obj("@type", "type.googleapis.com/acme.storage.v1.ShardInfo", "shard", "eu-7", "token", "sk-live-abcdefghijklmnopqrstuvwx1234"), obj("@type", typeRetryInfo, "retry_delay", "3s")})))
	add("grpc.details.secret_in_message", "a secret in a foreign status message never reaches an output",
		obj("grpc_status", obj("code", 16, "message", "token sk-live-abcdefghijklmnopqrstuvwx1234 rejected for https://bob:hunter22@api.example.com")))
	add("grpc.code.unknown_number", "a code outside google.rpc.Code reads as UNKNOWN, with a note",
		obj("grpc_status", obj("code", 42, "message", "m")))
	for _, kind := range []string{"rate_limited", "auth_required", "content_too_large", "tool_error"} {
		add("grpc.bin.roundtrip."+kind, "the binary google.rpc.Status (grpc-status-details-bin) reads back like the JSON one",
			obj("grpc_status", obj("status_bin", engineStatusBin(obj("labby_error", obj("kind", kind, "message", "m", "recovery", obj("action", "retry_later", "retry_after_ms", 2500)))))))
	}
	add("grpc.own.forged_domain_unknown_kind", "errsvc's domain with a kind outside the matrix: the catch-all, and the class as given",
		obj("grpc_status", obj("code", 14, "message", "m", "details", []any{obj("@type", typeErrorInfo, "reason", "NEW_KIND", "domain", ErrorInfoDomain, "metadata", obj("kind", "new_kind", "class", "transient"))})))

	// What errsvc writes, read back: every kind and agent code.
	for _, t := range LabbyKinds.Terms {
		src := obj("labby_error", obj("kind", t.Wire, "message", t.Meaning))
		add("targets.kind."+t.Wire, "every target of a kind, the ones answered on request included", src)
		add("grpc.roundtrip.kind."+t.Wire, "errsvc's own grpc_status reads back to the same kind, class, wait and code",
			obj("grpc_status", engineField(obj("labby_error", obj("kind", t.Wire, "message", t.Meaning)), "grpc_status")))
	}
	for _, t := range AgentCodes.Terms {
		add("grpc.roundtrip.agent."+t.Wire, "errsvc's own grpc_status reads back to the same agent code and retry",
			obj("grpc_status", engineField(obj("agent_error", obj("code", t.Wire, "message", "m")), "grpc_status")))
	}
	for _, t := range Classes.Terms {
		src := obj("classified_error", obj("class", t.Wire, "message", "m", "retry_after_secs", 2.5))
		add("targets.class_wait."+t.Wire, "the handling, headers and answers of a class with a wait", src)
		add("grpc.roundtrip.class_wait."+t.Wire, "the wait reads back from RetryInfo",
			obj("grpc_status", engineField(obj("classified_error", obj("class", t.Wire, "message", "m", "retry_after_secs", 2.5)), "grpc_status")))
		add("jsonrpc.roundtrip.class_wait."+t.Wire, "errsvc's own jsonrpc_error reads back through the envelope in data",
			obj("jsonrpc_error", engineField(obj("classified_error", obj("class", t.Wire, "message", "m", "retry_after_secs", 2.5)), "jsonrpc_error")))
	}
	add("targets.rate_limited_ms", "a millisecond wait: Retry-After rounds up, retry-after-ms and the pushback keep the milliseconds",
		obj("labby_error", obj("kind", "rate_limited", "message", "Slow down.", "recovery", obj("action", "retry_later", "retry_after_ms", 1500))))
	add("targets.billing_quota", "billing exhaustion: insufficient_quota, billing_error, x-should-retry false, fail_over",
		obj("classified_error", obj("code", "quota_exceeded", "class", "permanent", "message", "You exceeded your current quota.")))
	add("targets.mcp_is_error_transport_kind", "a completed isError result never counts toward health, whatever kind it names",
		obj("mcp_tool_result", obj("tool", "github::create_issue", "is_error", true,
			"content", []any{obj("type", "text", "text", `{"kind":"network_error","message":"upstream reset"}`)})))
	add("targets.unknown_class", "a class outside the four: no route, x-should-retry false, pushback -1",
		obj("classified_error", obj("class", "quota_window", "message", "m", "retry_after_secs", 5)))
	add("targets.agent_timeout_idempotent", "TIMEOUT is cacheable; idempotent makes the agent retry yes",
		obj("agent_error", obj("code", "TIMEOUT", "message", "m", "details", obj("idempotent", true)), "context", obj("idempotent", true)))
	add("targets.agent_confirmation_required", "CONFIRMATION_REQUIRED is never cacheable and carries no class",
		obj("agent_error", obj("code", "CONFIRMATION_REQUIRED", "message", "m", "retry", "with-confirmation")))
	add("targets.agent_invocation_conflict", "INVOCATION_CONFLICT is never cacheable",
		obj("agent_error", obj("code", "INVOCATION_CONFLICT", "message", "m", "retry", "with-changes")))

	// JSON-RPC: every row, ranges at their edges, and envelopes in data.
	for _, t := range JSONRPCCodes.Terms {
		r := t.Row.(*errsvcv1.JsonRpcCodeRow)
		add(fmt.Sprintf("jsonrpc.code.%d", r.GetCode()), "an MCP protocol error is classed by its code's row",
			obj("jsonrpc_error", obj("code", r.GetCode(), "message", r.GetName())))
		if r.GetLastCode() != 0 {
			add(fmt.Sprintf("jsonrpc.code.%d", r.GetLastCode()), "the last code of the range",
				obj("jsonrpc_error", obj("code", r.GetLastCode(), "message", r.GetName())))
		}
	}
	for _, c := range []int{-32010, -32050, -32099, -32001, 1, 42, -1} {
		add(fmt.Sprintf("jsonrpc.code.%d", c), "a code inside a range, or application-defined",
			obj("jsonrpc_error", obj("code", c, "message", "Something went wrong.", "data", obj("detail", "x"))))
	}
	add("jsonrpc.data.labby_rate_limited", "a Labby envelope in error.data is read as the envelope, the JSON-RPC code kept",
		obj("jsonrpc_error", obj("code", -32603, "message", "Rate limited.", "data", obj("contract_version", 1, "kind", "rate_limited", "message", "GitHub says slow down.",
			"origin", "budget", "recovery", obj("action", "retry_later", "same_arguments", "conditional", "guidance", "Wait.", "retry_after_ms", 4000), "side_effects", "none_expected"))))
	add("jsonrpc.data.labby_unknown_tool", "MCP answers an unknown tool with -32602; the envelope says unknown_tool",
		obj("jsonrpc_error", obj("code", -32602, "message", "Unknown tool: creat_issue", "data", obj("kind", "unknown_tool", "message", "No tool named creat_issue.", "tool", "creat_issue"))))
	add("jsonrpc.data.labby_legacy", "a legacy {kind, message} in data is an envelope too",
		obj("jsonrpc_error", obj("code", -32000, "message", "auth", "data", obj("kind", "auth_required", "message", "Sign in to GitHub first."))))
	add("jsonrpc.data.not_an_envelope", "data without a kind is plain data, kept sanitised in the detail",
		obj("jsonrpc_error", obj("code", -32602, "message", "Invalid params", "data", obj("field", "arguments.repo", "api_key", "sk-live-abcdefghijklmnopqrstuvwx1234"))))
	add("jsonrpc.no_message", "an error object without a message: the envelope takes the kind's meaning, noted once",
		obj("jsonrpc_error", obj("code", -32601)))
	add("jsonrpc.header_mismatch_http", "HEADER_MISMATCH answers HTTP 400, as the MCP revision requires",
		obj("jsonrpc_error", obj("code", -32020, "message", "Mcp-Method header does not match the body.")))
	for _, kind := range []string{"rate_limited", "unknown_tool", "auth_required", "content_too_large", "network_error", "internal_error", "tool_error", "confirmation_required"} {
		add("jsonrpc.roundtrip.kind."+kind, "errsvc's own jsonrpc_error reads back to the same decision",
			obj("jsonrpc_error", engineField(obj("labby_error", obj("kind", kind, "message", "m")), "jsonrpc_error")))
	}

	// http_error: the generic family on real-shaped answers.
	httpCases := []struct {
		name    string
		status  int
		headers map[string]any
		body    string
	}{
		{"bad_request_json", 400, nil, `{"error":{"message":"name is required","code":"invalid_argument"}}`},
		{"unauthorized", 401, obj("www-authenticate", `Bearer realm="api"`), ""},
		{"forbidden_text", 403, nil, "Forbidden"},
		{"not_found_html", 404, obj("content-type", "text/html"), "<html><body><h1>404 Not Found</h1></body></html>"},
		{"request_timeout", 408, nil, ""},
		{"conflict", 409, nil, `{"message":"version conflict"}`},
		{"payload_too_large", 413, nil, "Request Entity Too Large"},
		{"unprocessable", 422, nil, `{"errors":[{"field":"email","message":"is invalid"}]}`},
		{"too_many_requests_retry_after", 429, obj("retry-after", "17"), `{"message":"rate limit exceeded"}`},
		{"too_many_requests_should_not_retry", 429, obj("x-should-retry", "false"), `{"message":"monthly limit reached"}`},
		{"too_many_requests_ms", 429, obj("retry-after-ms", "1250"), ""},
		{"too_many_requests_reset", 429, obj("x-ratelimit-remaining-requests", "0", "x-ratelimit-reset-requests", "6m0s"), ""},
		{"internal", 500, nil, "Internal Server Error"},
		{"not_implemented", 501, nil, ""},
		{"bad_gateway_html", 502, obj("content-type", "text/html"), "<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>"},
		{"unavailable_date", 503, obj("retry-after", "Tue, 01 Dec 2026 12:00:30 GMT", "date", "Tue, 01 Dec 2026 12:00:00 GMT"), "Service Unavailable"},
		{"gateway_timeout", 504, nil, ""},
		{"should_retry_true", 400, obj("x-should-retry", "true"), `{"message":"try again"}`},
		{"secret_in_body", 500, nil, `{"error":"upstream rejected Bearer abcdefghijklmnop1234 for https://bob:hunter22@api.example.com"}`},
	}
	for _, c := range httpCases {
		req := obj("status", c.status, "body", c.body, "received_at", "2026-12-01T12:00:00Z")
		if c.headers != nil {
			req["headers"] = c.headers
		}
		add("http_error."+c.name, "a bare HTTP error reads by the generic family", obj("http_error", req))
	}
	// Provider-shaped answers read back as provider answers.
	for _, t := range Classes.Terms {
		add("targets.class."+t.Wire, "a bare class's handling and answers", obj("classified_error", obj("class", t.Wire, "message", "m")))
	}

	errs := []struct {
		name, field string
		request     any
	}{
		{"error.grpc_status_ok", "grpc_status.code", obj("grpc_status", obj("code", 0, "message", "fine"))},
		{"error.grpc_status_bin_garbage", "grpc_status.status_bin", obj("grpc_status", obj("status_bin", "////"))},
		{"error.jsonrpc_without_code", "jsonrpc_error.code", obj("jsonrpc_error", obj("message", "m"))},
		{"error.jsonrpc_envelope_without_kind_text", "jsonrpc_error.data.kind", obj("jsonrpc_error", obj("code", -32603, "data", obj("kind", "\u0007", "message", "m")))},
		{"error.http_error_success", "http_error.status", obj("http_error", obj("status", 200))},
		{"error.http_error_no_status", "http_error.status", obj("http_error", obj("body", "x"))},
	}
	for _, e := range errs {
		cs = append(cs, goldenCase{e.name, "malformed: " + e.field, errorCase{e.field, e.request}})
	}
	return cs
}
