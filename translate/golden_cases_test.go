package translate

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/errsvc/errsvc/internal/golden"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// goldenCase is a request the golden vectors pin. The matrix-driven cases
// are generated from the rows, so a new row gets its vectors with
// `go test ./translate -run TestGolden -update`; the rule cases are written
// by hand, one per rule of the translation.
type goldenCase struct {
	name, rule string
	request    any
}

func obj(kv ...any) map[string]any {
	m := map[string]any{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

func goldenCases() []goldenCase {
	var cs []goldenCase
	add := func(name, rule string, req any) {
		cs = append(cs, goldenCase{name, rule, req})
	}

	for _, t := range LabbyKinds.Terms {
		row := t.Row.(*errsvcv1.KindRow)
		add("labby.legacy."+t.Wire, "a legacy {kind, message} is completed from the kind's row",
			obj("labby_error", obj("kind", t.Wire, "message", t.Meaning)))
		if row.GetRelaxWithHints() {
			add("labby.hints."+t.Wire, "read-only or idempotent hints turn discouraged into conditional",
				obj("labby_error", obj("kind", t.Wire, "message", t.Meaning, "safety", obj("read_only_hint", true))))
		}
		if row.GetPassesRetryAfter() {
			add("labby.retry_after."+t.Wire, "retry_after_ms passes through and converts to whole seconds, rounded up",
				obj("labby_error", obj("kind", t.Wire, "message", t.Meaning, "origin", row.GetOrigin(),
					"recovery", obj("action", row.GetAction(), "same_arguments", row.GetSameArguments(), "guidance", "Wait, then retry.", "retry_after_ms", 2500),
					"side_effects", sideEffectsFor(row, row.GetOrigin()))))
		}
		add("classified.kind."+t.Wire, "a Labby kind as a producer code classifies as its row says",
			obj("classified_error", obj("code", t.Wire, "message", "upstream said: "+t.Meaning)))
	}

	for _, t := range AgentCodes.Terms {
		row := t.Row.(*errsvcv1.AgentCodeRow)
		add("agent.code."+t.Wire, "each agent code maps through its row",
			obj("agent_error", obj("code", t.Wire, "message", "Agent-facing text.", "retry", row.GetRetry())))
		for _, reason := range sortedKeys(row.GetRetryByReason()) {
			add("agent.reason."+t.Wire+"."+reason, "the per-reason retry rule of the code",
				obj("agent_error", obj("code", t.Wire, "message", "m", "retry", row.GetRetryByReason()[reason], "details", obj("reason", reason))))
		}
		for _, reason := range sortedKeys(row.GetLabbyKindByReason()) {
			if _, dup := row.GetRetryByReason()[reason]; dup {
				continue
			}
			add("agent.reason."+t.Wire+"."+reason, "the reason refines the Labby kind",
				obj("agent_error", obj("code", t.Wire, "message", "m", "retry", row.GetRetry(), "details", obj("reason", reason))))
		}
		add("agent.noretry."+t.Wire, "an absent retry hint takes the code's default, with a note",
			obj("agent_error", obj("code", t.Wire, "message", "m")))
	}

	for _, t := range Classes.Terms {
		add("classified.class."+t.Wire, "a bare class takes its row's kind and recovery",
			obj("classified_error", obj("class", t.Wire, "message", "m")))
		add("classified.class_wait."+t.Wire, "a fractional retry_after_secs is rounded up",
			obj("classified_error", obj("class", t.Wire, "message", "m", "retry_after_secs", 1.2)))
	}
	for _, t := range ClassifiedCodes.Terms {
		add("classified.code."+t.Wire, "a producer code takes the class the contract fixes, or none",
			obj("classified_error", obj("code", t.Wire, "message", "m")))
		row := t.Row.(*errsvcv1.ClassifiedCodeRow)
		if row.GetClassSource() != classFixed {
			add("classified.detail_class."+t.Wire, "a class in detail.class counts",
				obj("classified_error", obj("code", t.Wire, "message", "m", "detail", obj("class", "transient", "retry_after_secs", 7))))
		}
	}
	for _, t := range RoutingCodes.Terms {
		add("classified.routing."+t.Wire, "account_selection_refused is classified by routing's code",
			obj("classified_error", obj("code", "account_selection_refused", "message", "m",
				"detail", obj("routing_code", t.Wire, "routing_detail", obj("note", "x")))))
	}

	rules := []goldenCase{
		{"rule.unknown_kind", "an unknown kind takes the Labby agent error contract's catch-all and passes through",
			obj("labby_error", obj("kind", "quantum_flux", "message", "m"))},
		{"rule.unknown_kind_hints", "the catch-all stays discouraged even for a read-only tool (the seed wins over the reference)",
			obj("labby_error", obj("kind", "quantum_flux", "message", "m", "safety", obj("read_only_hint", true)))},
		{"rule.caller_origin_wins", "a caller-supplied origin wins, and side effects follow it",
			obj("labby_error", obj("kind", "invalid_param", "message", "m", "origin", "tool_execution"))},
		{"rule.caller_recovery_wins", "a caller-supplied recovery wins",
			obj("labby_error", obj("kind", "rate_limited", "message", "m", "recovery", obj("action", "do_not_retry", "same_arguments", "never", "guidance", "Stop.")))},
		{"rule.caller_side_effects_wins", "caller-supplied side effects win",
			obj("labby_error", obj("kind", "timeout", "message", "m", "side_effects", "none_expected"))},
		{"rule.caller_unknown_origin", "an unknown origin term cannot be emitted (the schema pins it): the derived one stays, with a note",
			obj("labby_error", obj("kind", "timeout", "message", "m", "origin", "quantum"))},
		{"rule.contract_version_2", "another contract version is read as 1, with a note",
			obj("labby_error", obj("contract_version", 2, "kind", "timeout", "message", "m"))},
		{"rule.context_idempotent", "the request context's idempotent relaxes discouraged and fills the envelope's context",
			obj("labby_error", obj("kind", "tool_error", "message", "m"), "context", obj("service", "github", "action", "create_issue", "tool", "github::create_issue", "idempotent", true))},
		{"rule.timeout_idempotent_context", "a Labby timeout on an idempotent call becomes TIMEOUT yes",
			obj("labby_error", obj("kind", "timeout", "message", "m"), "context", obj("idempotent", true))},
		{"rule.timeout_not_idempotent", "a non-idempotent timeout never becomes a blind retry",
			obj("agent_error", obj("code", "TIMEOUT", "message", "m", "retry", "no", "details", obj("timeoutMs", 30000, "idempotent", false)))},
		{"rule.timeout_idempotent", "an idempotent timeout retries",
			obj("agent_error", obj("code", "TIMEOUT", "message", "m", "retry", "yes", "details", obj("timeoutMs", 30000, "idempotent", true)))},
		{"rule.denial_never_retry", "a denied confirmation never turns into a retry, whatever the hint says",
			obj("agent_error", obj("code", "CONFIRMATION_INVALID", "message", "m", "retry", "with-confirmation", "details", obj("reason", "denied")))},
		{"rule.execution_failed_transient", "EXECUTION_FAILED with transient: true is transient, after-delay, with its wait",
			obj("agent_error", obj("code", "EXECUTION_FAILED", "message", "m", "retry", "after-delay", "details", obj("reason", "transport", "transient", true, "retryAfterMs", 1500)))},
		{"rule.rate_limited_ms", "retryAfterMs converts to retry_after_ms and to whole seconds, rounded up",
			obj("agent_error", obj("code", "RATE_LIMITED", "message", "m", "retry", "after-delay", "details", obj("reason", "rate", "retryAfterMs", 1001)))},
		{"rule.rate_limited_fraction_ms", "a fractional retryAfterMs is rounded up",
			obj("agent_error", obj("code", "RATE_LIMITED", "message", "m", "retry", "after-delay", "details", obj("reason", "queue-full", "retryAfterMs", 20.5)))},
		{"rule.unknown_agent_code", "an unknown agent code passes through with EXECUTION_FAILED's meaning",
			obj("agent_error", obj("code", "QUANTUM_FAILURE", "message", "m", "retry", "no"))},
		{"rule.unknown_agent_retry", "an unknown retry hint passes through with a note",
			obj("agent_error", obj("code", "RATE_LIMITED", "message", "m", "retry", "after-coffee"))},
		{"rule.retry_outside_matrix", "a known hint outside the code's matrix is replaced by the code's own, with a note: a denial never becomes a retry",
			obj("agent_error", obj("code", "NOT_AUTHORIZED", "message", "m", "retry", "yes"))},
		{"rule.agent_message_not_passed", "agent_error.message is built from templates, never from upstream text",
			obj("labby_error", obj("kind", "internal_error", "message", "SELECT * FROM users; stack at /srv/app/main.go:42"))},
		{"rule.auth_alias", "`auth` reads as auth_required, with a note",
			obj("classified_error", obj("code", "needs_reauth", "class", "auth", "message", "m"))},
		{"rule.unknown_class", "a class outside the four passes through verbatim with recognized false",
			obj("classified_error", obj("code", "degraded_mode", "class", "degraded", "message", "m"))},
		{"rule.unknown_class_only", "an unknown class with no code keeps the catch-all envelope",
			obj("classified_error", obj("class", "degraded", "message", "m"))},
		{"rule.open_failed_detail_class", "open_failed with detail.class is classified by it",
			obj("classified_error", obj("code", "open_failed", "message", "m", "detail", obj("class", "transient")))},
		{"rule.unknown_routing_code", "an unknown routing code stays verbatim and transient",
			obj("classified_error", obj("code", "account_selection_refused", "message", "m", "detail", obj("routing_code", "disabled")))},
		{"rule.routing_detail_class_wins", "detail.class beats the routing code's row",
			obj("classified_error", obj("code", "account_selection_refused", "message", "m", "detail", obj("routing_code", "account_hold", "class", "auth_required")))},
		{"rule.legacy_retry_after_s", "a legacy detail.retry_after_s is read as the wait",
			obj("classified_error", obj("code", "account_limit_exhausted", "message", "m", "detail", obj("class", "transient", "retry_after_s", 30, "provider_code", "account_limit_exhausted")))},
		{"rule.class_wins_over_code", "the produced class wins over the code's row",
			obj("classified_error", obj("code", "rate_limited", "class", "permanent", "message", "m"))},
		{"rule.unknown_code_no_class", "an unknown code with no class stays unclassified",
			obj("classified_error", obj("code", "mystery", "message", "m"))},
		{"rule.empty_classified", "an empty classified error is completed as internal_error, unclassified",
			obj("classified_error", obj())},
		{"rule.retry_after_clamped", "a huge wait is clamped so its milliseconds fit",
			obj("classified_error", obj("class", "transient", "retry_after_secs", 1e12))},
		{"rule.labby_additive_agent", "an envelope carrying an agent projection translates back to exactly that payload",
			obj("labby_error", obj("kind", "unknown_instance", "message", "m", "agent_error", obj("code", "COMPONENT_UNMOUNTED", "message", "x", "retry", "after-refresh", "details", obj("phase", "mid-flight"))))},
		{"rule.labby_additive_class", "an envelope carrying a classification keeps it",
			obj("labby_error", obj("kind", "variant_unsupported", "message", "m", "classification", obj("class", "permanent")))},
		{"rule.targets_subset", "targets limits the response to the named fields",
			obj("labby_error", obj("kind", "rate_limited", "message", "m"), "targets", []any{"classification", "http_status"})},
		{"rule.targets_unknown", "an unknown target is ignored with a note",
			obj("labby_error", obj("kind", "rate_limited", "message", "m"), "targets", []any{"agent_error", "smoke_signal"})},
		{"rule.grpc_reason_sanitised", "an odd kind still makes a valid AIP-193 reason",
			obj("labby_error", obj("kind", "9-lives.of a/cat", "message", "m"))},
	}
	cs = append(cs, rules...)
	cs = append(cs, openObjectCases()...)
	cs = append(cs, vocabularyCases()...)

	for _, t := range LabbyKinds.Terms {
		add("mcp.kind."+t.Wire, "inside a completed MCP result only the listed kinds survive; the rest become tool_error",
			obj("mcp_tool_result", obj("tool", "github::create_issue", "is_error", true,
				"content", []any{obj("type", "text", "text", fmt.Sprintf(`{"kind":%q,"message":"upstream says no"}`, t.Wire))})))
	}
	mcp := []goldenCase{
		{"mcp.structured_content", "the structured error is read from structured_content",
			obj("mcp_tool_result", obj("tool", "linear::create_issue", "is_error", true,
				"content", []any{obj("type", "text", "text", "Rate limited by Linear")},
				"structured_content", obj("kind", "rate_limited", "message", "Too many requests", "retry_after_ms", 1200)))},
		{"mcp.structured_content_error_member", "the structured error is read from structured_content.error",
			obj("mcp_tool_result", obj("tool", "fs::read_file", "is_error", true,
				"structured_content", obj("error", obj("kind", "path_traversal", "message", "../../etc/passwd escapes the root"))))},
		{"mcp.read_only", "a read-only tool's failure expects no side effects and relaxes same_arguments",
			obj("mcp_tool_result", obj("tool", "fs::read_file", "is_error", true,
				"content", []any{obj("type", "text", "text", `{"kind":"upstream_error","message":"backend 502"}`)},
				"annotations", obj("read_only_hint", true)))},
		{"mcp.idempotent", "an idempotent tool's failure may still have side effects (only read-only expects none); same_arguments relaxes",
			obj("mcp_tool_result", obj("tool", "fs::write_file", "is_error", true,
				"content", []any{obj("type", "text", "text", `{"kind":"upstream_error","message":"backend 502"}`)},
				"annotations", obj("idempotent_hint", true)))},
		{"mcp.no_structure", "a plain-text error result is tool_error with its text as the message",
			obj("mcp_tool_result", obj("tool", "shell::run", "is_error", true,
				"content", []any{obj("type", "text", "text", "command exited with status 2")}))},
		{"mcp.binary_evidence", "image and audio become descriptors; unknown blocks are omitted",
			obj("mcp_tool_result", obj("tool", "browser::screenshot", "is_error", true,
				"content", []any{
					obj("type", "text", "text", "render failed"),
					obj("type", "image", "data", "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk", "mimeType", "image/png"),
					obj("type", "audio", "data", "UklGRiQAAABXQVZFZm10IBAAAAABAAEAESsAACJWAAACABAAZGF0YQAAAAA=", "mimeType", "audio/wav"),
					obj("type", "hologram", "payload", "zzz"),
					obj("type", "resource", "resource", obj("uri", "file:///tmp/log.txt", "mimeType", "text/plain", "text", "line 1")),
				}))},
		{"mcp.bare_tool_name", "a tool without a namespace is left out of the Code Mode error",
			obj("mcp_tool_result", obj("tool", "create_issue", "is_error", true,
				"content", []any{obj("type", "text", "text", `{"kind":"not_found","message":"no such repo"}`)}))},
	}
	var many []any
	for i := 0; i < 20; i++ {
		many = append(many, obj("type", "text", "text", fmt.Sprintf("line %d", i)))
	}
	mcp = append(mcp, goldenCase{"mcp.many_blocks", "at most 16 content blocks are kept; the rest are counted",
		obj("mcp_tool_result", obj("tool", "shell::run", "is_error", true, "content", many))})
	long := strings.Repeat("build log line with details; ", 400) // ~11.6 KiB of text
	var bigItems []any
	for i := 0; i < 100; i++ {
		bigItems = append(bigItems, obj("line", i, "text", strings.Repeat("x", 120)))
	}
	mcp = append(mcp,
		goldenCase{"mcp.evidence_text_capped", "evidence text is sanitised and capped at 8192 characters with the truncation marker",
			obj("mcp_tool_result", obj("tool", "ci::build", "is_error", true, "content", []any{obj("type", "text", "text", long)}))},
		goldenCase{"mcp.structured_content_capped", "structured content is redacted by key and capped (items, size)",
			obj("mcp_tool_result", obj("tool", "ci::build", "is_error", true,
				"structured_content", obj("kind", "validation_failed", "message", "bad input", "api_key", "not-a-real-key-but-redacted", "items", bigItems)))},
		goldenCase{"mcp.secret_in_evidence", "secrets in evidence and in the parsed error are redacted",
			obj("mcp_tool_result", obj("tool", "http::fetch", "is_error", true,
				"content", []any{obj("type", "text", "text", `{"kind":"auth_failed","message":"upstream rejected Bearer abcdefghijklmnop1234 for https://bob:hunter22@api.example.com/v1"}`)}))},
	)
	cs = append(cs, mcp...)

	cs = append(cs, providerCases()...)

	errs := []struct {
		name, field string
		request     any
	}{
		{"error.empty_request", "source", obj()},
		{"error.labby_without_kind", "labby_error.kind", obj("labby_error", obj("message", "m"))},
		{"error.agent_without_code", "agent_error.code", obj("agent_error", obj("message", "m"))},
		{"error.negative_wait", "classified_error.retry_after_secs", obj("classified_error", obj("class", "transient", "retry_after_secs", -1))},
		{"error.mcp_not_error", "mcp_tool_result.is_error", obj("mcp_tool_result", obj("tool", "a::b", "is_error", false))},
		{"error.negative_retry_after_ms", "agent_error.details.retryAfterMs", obj("agent_error", obj("code", "RATE_LIMITED", "details", obj("retryAfterMs", -5)))},
	}
	for _, e := range errs {
		cs = append(cs, goldenCase{e.name, "malformed: " + e.field, errorCase{e.field, e.request}})
	}
	slices.SortFunc(cs, func(a, b goldenCase) int {
		switch {
		case a.name < b.name:
			return -1
		case a.name > b.name:
			return 1
		}
		return 0
	})
	return cs
}

// errorCase is a malformed request and the field its error must name.
type errorCase struct {
	field   string
	request any
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprint(err))
	}
	return b
}

type providerFixture = golden.ProviderFixture

func providerFixtures() []providerFixture {
	fs, err := golden.LoadProviderFixtures()
	if err != nil {
		panic(err)
	}
	return fs
}

// providerCases turns every provider fixture into a golden vector, with
// received_at pinned to the fixture's clock so the answer never depends on
// when the vector runs.
func providerCases() []goldenCase {
	var cs []goldenCase
	for _, fx := range providerFixtures() {
		received := fx.Answer.ReceivedAt
		if received == "" {
			received = fx.Now
		}
		resp := obj("provider", fx.Answer.Provider, "status", fx.Answer.Status, "headers", fx.Answer.Headers, "body", fx.Answer.Body, "received_at", received)
		if fx.Want.Class == "" && fx.Want.Limit != nil && fx.Want.Limit.Kind != "none" {
			// Not an error, but a report of its rate limits: answered with
			// the limit facet alone, which the vectors' properties (every
			// answer an error) do not hold; limit_2xx_test.go checks it.
			continue
		}
		if fx.Want.Class == "" {
			cs = append(cs, goldenCase{"error.provider." + fx.Name, "malformed: not an error", errorCase{"provider_response", obj("provider_response", resp)}})
			continue
		}
		cs = append(cs, goldenCase{"provider." + fx.Name, fx.Why, obj("provider_response", resp)})
	}
	return cs
}

// openObjectCases are real-shaped inputs with what their producers add:
// modelled additive fields, unknown members at every level, large details
// and waits of another JSON type. They translate (never a 400), with one
// field_ignored note, and decisions read from the whole input.
func openObjectCases() []goldenCase {
	var issues []any
	for i := 0; i < 100; i++ {
		issues = append(issues, obj("path", fmt.Sprintf("/items/%d/name", i), "message", "must be a non-empty string"))
	}
	bigTrace := strings.Repeat("frame at worker.step (queue.ts:42); ", 300) // ~11 KiB
	return []goldenCase{
		{"open.labby_forbidden_required_scopes", "a Labby forbidden carries required_scopes to the Labby output, never into NOT_AUTHORIZED's details",
			obj("labby_error", obj("contract_version", 1, "kind", "forbidden", "message", "Token lacks the scopes this action needs.",
				"origin", "policy", "recovery", obj("action", "do_not_retry", "same_arguments", "never", "guidance", "Ask an admin to grant the scopes."),
				"side_effects", "none_expected", "service", "github", "action", "create_issue", "required_scopes", []any{"repo", "issues:write"}))},
		{"open.labby_unknown_action_valid_hint", "unknown_action carries valid and hint",
			obj("labby_error", obj("contract_version", 1, "kind", "unknown_action", "message", "Action 'creat' is not registered.",
				"service", "github", "action", "creat", "valid", []any{"create", "list", "get"}, "hint", "Did you mean 'create'?"))},
		{"open.labby_additive_everywhere", "additive members of the envelope, recovery, safety and evidence are carried to the Labby output at their place, with one note",
			obj("labby_error", obj("contract_version", 1, "kind", "rate_limited", "message", "Slow down.", "origin", "budget",
				"recovery", obj("action", "retry_later", "same_arguments", "conditional", "guidance", "Wait.", "retry_after_ms", 3000, "jitter_ms", 250),
				"side_effects", "none_expected", "request_id", "req_8f2c1a", "docs_url", "https://docs.example.com/errors/rate_limited",
				"safety", obj("read_only_hint", true, "reviewed_by", "policy-engine"),
				"evidence", obj("content", []any{obj("type", "text", "text", "429 from upstream", "annotations", obj("audience", []any{"assistant"}))}, "collected_at", "2026-11-30T12:00:00Z")))},
		{"open.mcp_meta_and_annotation_title", "an MCP result's _meta and resultType and an annotation's title are carried into the Code Mode evidence and safety",
			obj("mcp_tool_result", obj("tool", "github::create_issue", "is_error", true, "resultType", "complete",
				"_meta", obj("io.modelcontextprotocol/related-task", obj("taskId", "t-42")),
				"content", []any{obj("type", "text", "text", `{"kind":"rate_limited","message":"GitHub secondary rate limit","retry_after_ms":60000}`)},
				"annotations", obj("title", "Create issue", "read_only_hint", false, "idempotent_hint", false)))},
		{"open.agent_extra_key", "an agent payload with an extra member translates and carries it to the agent output",
			obj("agent_error", obj("code", "RATE_LIMITED", "message", "Too many requests.", "retry", "after-delay",
				"details", obj("reason", "rate", "retryAfterMs", 2000), "traceId", "4bf92f3577b34da6a3ce929d0e0e4736"))},
		{"open.agent_invalid_input_100_issues", "INVALID_INPUT keeps every issue (given to the model verbatim); only each string is capped",
			obj("agent_error", obj("code", "INVALID_INPUT", "message", "Invalid input.", "retry", "with-changes", "details", obj("issues", issues)))},
		{"open.agent_rate_limited_large_details", "the wait is read from the whole details even when they exceed the copy's caps",
			obj("agent_error", obj("code", "RATE_LIMITED", "message", "Too many requests.", "retry", "after-delay",
				"details", obj("trace", bigTrace, "reason", "rate", "retryAfterMs", 4500)))},
		{"open.agent_denied_large_details", "a denial with large details is still a denial: retry no, never with-confirmation",
			obj("agent_error", obj("code", "CONFIRMATION_INVALID", "message", "Denied.", "retry", "with-confirmation",
				"details", obj("trace", bigTrace, "reason", "denied")))},
		{"open.classified_provider_code_status", "a classified error's provider_code and status travel in the Labby detail and ErrorInfo metadata",
			obj("classified_error", obj("code", "provider_unavailable", "message", "Upstream overloaded.", "class", "transient",
				"retry_after_secs", 12, "provider_code", "overloaded_error", "status", 529, "detail", obj("provider", "anthropic")))},
		{"open.broca_routing_unavailable", "routing_unavailable wrote nothing and the caller retries the same send: none_expected, same_arguments safe",
			obj("classified_error", obj("code", "routing_unavailable", "message", "No usable account decision from routing.", "class", "transient",
				"detail", obj("reason", "no_decision_within_budget", "budget_ms", 1500)))},
		{"open.broca_account_selection_refused", "account_selection_refused wrote nothing",
			obj("classified_error", obj("code", "account_selection_refused", "message", "Routing refused the account.", "class", "permanent",
				"detail", obj("routing_code", "account_not_authorized", "routing_detail", obj("policy", "ops-2"), "decision_id", "dec_91")))},
		{"open.broca_wal_newer_writer", "wal_newer_writer wrote nothing; retrying cannot help",
			obj("classified_error", obj("code", "wal_newer_writer", "message", "A newer broca wrote this session's WAL.", "class", "permanent",
				"detail", obj("missing", []any{"frame_v3"}), "session_ref", "s_77"))},
		{"open.routing_selection_disabled", "account_selection_disabled is a known routing term (the off-switch), not an unknown code",
			obj("classified_error", obj("code", "account_selection_refused", "message", "m", "detail", obj("routing_code", "account_selection_disabled")))},
		{"open.wait_numeric_string_detail", "a numeric string in detail.retry_after_secs is read, with a note",
			obj("classified_error", obj("code", "account_limit_exhausted", "message", "m", "class", "transient", "detail", obj("retry_after_secs", "30")))},
		{"open.wait_numeric_string_agent", "a numeric string in retryAfterMs is read, with a note",
			obj("agent_error", obj("code", "RATE_LIMITED", "message", "m", "retry", "after-delay", "details", obj("reason", "rate", "retryAfterMs", "2000")))},
		{"open.wait_not_a_number", "a wait that is no number is refused for that field alone, with a note",
			obj("agent_error", obj("code", "RATE_LIMITED", "message", "m", "retry", "after-delay", "details", obj("reason", "rate", "retryAfterMs", "soon")))},
		{"open.wait_fraction_labby_classification", "a fractional classification.retry_after_secs rounds up instead of failing",
			obj("labby_error", obj("kind", "variant_unsupported", "message", "m", "classification", obj("class", "transient", "retry_after_secs", 2.5)))},
		{"open.wait_string_labby_recovery", "a string recovery.retry_after_ms with a unit is refused for that field alone, with a note",
			obj("labby_error", obj("kind", "rate_limited", "message", "m", "recovery", obj("action", "retry_later", "retry_after_ms", "1500ms")))},
	}
}
