package translate

// Every answer held to the outside references, over a generated space of
// requests nobody wrote by hand (every source × every class, an unknown one
// and an alias × wait shapes × statuses), never over testdata/golden. Each
// rule is what the reference itself says or does:
//
//   - google.rpc.Code's HTTP mapping (code.proto), as grpc-gateway's
//     runtime.HTTPStatusFromCode implements it;
//   - AIP-193: ErrorInfo.reason matches [A-Z][A-Z0-9_]+[A-Z0-9], at most 63
//     characters; google_error's error.code is its status's HTTP mapping;
//   - AIP-194: a client retries UNAVAILABLE on its own, so only an answer
//     that means retry may say it;
//   - gRFC A6 (grpc-go): grpc-retry-pushback-ms >= 0 retries, < 0 never;
//   - the openai and anthropic SDKs' _should_retry: x-should-retry first,
//     then 408, 409, 429 and 5xx;
//   - RFC 9110 §10.2.3: Retry-After is delay-seconds or an HTTP-date.
//
// The seed is random per run and logged; ERRSVC_PROPERTY_SEED replays one.

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/genproto/googleapis/rpc/code"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/internal/golden"
)

// generated is one generated request with what its source asked for.
type generated struct {
	name string
	req  *errsvcv1.TranslateRequest
	// waitMs is the wait the source itself states, rounded up to whole
	// milliseconds; -1 when it states none.
	waitMs int64
}

func propertySeed(t *testing.T) uint64 {
	if s := os.Getenv("ERRSVC_PROPERTY_SEED"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("ERRSVC_PROPERTY_SEED: %v", err)
		}
		return n
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d (ERRSVC_PROPERTY_SEED=%d replays this run)", seed, seed)
	return seed
}

// classShapes are the class spellings a producer may send: the four, the
// alias, case and separator slips, a class no contract knows, none.
var classShapes = []string{"transient", "permanent", "auth_required", "context_overflow", "auth", "TRANSIENT", "Permanent", "auth-required", "throttled", "x", ""}

// waitShapes are seconds a producer may send (fractions, a nanosecond
// over, very long, zero); negative means none.
var waitShapes = []float64{-1, 0, 0.001, 1, 1.5, 2.000000001, 30, 59.9, 3600, 86400 * 3}

// generateSpace builds at least n requests over every source.
func generateSpace(t *testing.T, rng *rand.Rand, n int) []generated {
	t.Helper()
	pick := func(list []string) string { return list[rng.IntN(len(list))] }
	wires := func(v *Vocabulary) []string {
		var out []string
		for _, t := range v.Terms {
			out = append(out, t.Wire)
		}
		return out
	}
	kinds := append(wires(LabbyKinds), "io", "x9", "made_up_kind", "a", "Rate-Limited", strings.Repeat("very_long_kind_", 8))
	agentCodes := append(wires(AgentCodes), "IO", "MADE_UP", "x")
	agentRetries := append(wires(AgentRetries), "", "maybe")
	classifiedCodes := append(wires(ClassifiedCodes), "io", "MADE_UP_CODE", "")
	// Every reason an agent code's rules name (retry_by_reason), and one
	// no rule names.
	agentReasons := []string{"other"}
	for _, t := range AgentCodes.Terms {
		for r := range t.Row.(*errsvcv1.AgentCodeRow).GetRetryByReason() {
			agentReasons = append(agentReasons, r)
		}
	}
	slices.Sort(agentReasons)
	providers := []string{"openai", "anthropic", "gemini", "vertex", "bedrock", "azure", "groq", "mistral", "unknown_provider", ""}
	statuses := []int32{0, 99, 100, 200, 204, 301, 400, 401, 403, 404, 408, 409, 413, 422, 429, 451, 499, 500, 501, 502, 503, 504, 529, 599, 600, 999, 1000}
	actions := []string{"", "retry_later", "do_not_retry", "reauthenticate", "inspect_and_escalate", "made_up_action"}

	var out []generated
	add := func(kind string, req *errsvcv1.TranslateRequest, waitMs int64) {
		req.Targets = everyTarget()
		out = append(out, generated{fmt.Sprintf("%s#%d", kind, len(out)), req, waitMs})
	}
	secsToMs := func(s float64) int64 {
		if s < 0 {
			return -1
		}
		return int64(s*1000 + 0.999999)
	}
	for len(out) < n {
		class, wait := pick(classShapes), waitShapes[rng.IntN(len(waitShapes))]
		status := statuses[rng.IntN(len(statuses))]
		switch len(out) % 8 {
		case 0: // classified_error
			ce := &errsvcv1.ClassifiedError{Code: pick(classifiedCodes), Class: class, Message: "upstream said no"}
			if wait >= 0 {
				ce.RetryAfterSecs = proto.Float64(wait)
			}
			if rng.IntN(2) == 0 {
				ce.Status = proto.Int32(status)
			}
			add("classified", &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_ClassifiedError{ClassifiedError: ce}}, secsToMs(wait))
		case 1: // labby_error
			le := &errsvcv1.LabbyError{Kind: pick(kinds), Message: "tool failed"}
			ms := int64(-1)
			if wait >= 0 && wait < 4e6 {
				ms = secsToMs(wait)
				le.Recovery = &errsvcv1.Recovery{RetryAfterMs: proto.Uint32(uint32(ms))}
			}
			if a := pick(actions); a != "" {
				if le.Recovery == nil {
					le.Recovery = &errsvcv1.Recovery{}
				}
				le.Recovery.Action = a
				le.Recovery.SameArguments = pick([]string{"", "safe", "conditional", "discouraged", "never"})
			}
			if class != "" && rng.IntN(2) == 0 {
				le.Classification = &errsvcv1.Classification{Class: class}
			}
			add("labby", &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_LabbyError{LabbyError: le}}, ms)
		case 2: // agent_error
			ae := &errsvcv1.AgentError{Code: pick(agentCodes), Retry: pick(agentRetries), Message: "denied"}
			ms := int64(-1)
			details := map[string]any{}
			if wait >= 0 && wait < 4e6 {
				ms = secsToMs(wait)
				details["retryAfterMs"] = float64(ms)
			}
			if rng.IntN(2) == 0 {
				details["reason"] = pick(agentReasons)
			}
			if len(details) > 0 {
				ae.Details, _ = structpb.NewStruct(details)
			}
			add("agent", &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_AgentError{AgentError: ae}}, ms)
		case 3: // grpc_status
			gs := &errsvcv1.GrpcStatusError{Code: 1 + int32(rng.IntN(18)), Message: "rpc failed"}
			ms := int64(-1)
			if wait >= 0 {
				d := time.Duration(wait * float64(time.Second))
				if wait == 2.000000001 {
					d = 2*time.Second + 1
				}
				ms = int64((d + time.Millisecond - 1) / time.Millisecond)
				gs.Details = append(gs.Details, mustStruct(map[string]any{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": durationJSON(d)}))
			}
			switch rng.IntN(3) {
			case 0:
				gs.Details = append(gs.Details, mustStruct(map[string]any{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": strings.ToUpper(pick(kinds)), "domain": "example.com"}))
			case 1: // a status that claims errsvc's own domain, with any class
				md := map[string]any{"kind": pick(kinds)}
				if class != "" {
					md["class"] = class
				}
				gs.Details = append(gs.Details, mustStruct(map[string]any{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "X_Y", "domain": "errsvc.dev", "metadata": md}))
			}
			add("grpc", &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_GrpcStatus{GrpcStatus: gs}}, ms)
		case 4, 5: // http_error and provider_response
			h := map[string]string{}
			ms := int64(-1)
			received := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
			if wait >= 0 {
				switch rng.IntN(3) {
				case 0:
					h["Retry-After"] = strconv.FormatFloat(float64(int64(wait)), 'f', -1, 64)
					ms = int64(wait) * 1000
				case 1:
					h["retry-after-ms"] = strconv.FormatInt(secsToMs(wait), 10)
					ms = secsToMs(wait)
				case 2: // an HTTP-date, counted from received_at
					secs := int64(wait + 0.999999)
					h["Retry-After"] = received.Add(time.Duration(secs) * time.Second).Format(http.TimeFormat)
					ms = secs * 1000
				}
			}
			body := fmt.Sprintf(`{"error":{"message":"failed","type":%q,"code":%q}}`, pick([]string{"rate_limit_error", "overloaded_error", "invalid_request_error", "api_error", "insufficient_quota", ""}), pick([]string{"rate_limit_exceeded", "context_length_exceeded", "insufficient_quota", ""}))
			if len(out)%8 == 4 {
				if status == 0 || status >= 100 && status < 400 {
					status = 500 + status%100 // http_error refuses a status that is not an error (with a field error)
				}
				add("http", &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_HttpError{HttpError: &errsvcv1.HttpError{
					Status: status, Headers: h, Body: body, ReceivedAt: timestamppb.New(received)}}}, ms)
			} else {
				add("provider", &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_ProviderResponse{ProviderResponse: &errsvcv1.ProviderResponse{
					Provider: pick(providers), Status: status, Headers: h, Body: body, ReceivedAt: timestamppb.New(received)}}}, ms)
			}
		case 6: // jsonrpc_error
			codes := []int32{-32700, -32600, -32601, -32602, -32603, -32000, -32001, -32002, -32042, -32099, -31999, 1, 429}
			je := &errsvcv1.JsonRpcError{Code: codes[rng.IntN(len(codes))], Message: "rpc failed"}
			ms := int64(-1)
			if rng.IntN(2) == 0 {
				data := map[string]any{"kind": pick(kinds)}
				if wait >= 0 && wait < 4e6 {
					ms = secsToMs(wait)
					data["recovery"] = map[string]any{"retry_after_ms": float64(ms)}
				}
				je.Data = structpb.NewStructValue(mustStruct(data))
			}
			add("jsonrpc", &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_JsonrpcError{JsonrpcError: je}}, ms)
		case 7: // mcp_tool_result, and now and then the request's other parts
			if rng.IntN(4) == 0 {
				out = append(out, oddRequest(rng, len(out)))
				continue
			}
			text := fmt.Sprintf(`{"kind":%q,"message":"tool broke"}`, pick(kinds))
			if rng.IntN(3) == 0 {
				text = "plain failure text"
			}
			add("mcp", &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_McpToolResult{McpToolResult: &errsvcv1.McpToolResult{
				Tool: "t", IsError: true, Content: []*structpb.Struct{mustStruct(map[string]any{"type": "text", "text": text})}}}}, -1)
		}
	}
	return out
}

func durationJSON(d time.Duration) string {
	secs, nanos := int64(d/time.Second), int64(d%time.Second)
	if nanos == 0 {
		return fmt.Sprintf("%ds", secs)
	}
	return fmt.Sprintf("%d.%09ds", secs, nanos)
}

// oddRequest is a request that provokes one of the notes the sources'
// rules rarely give: a hint relaxing a rule, an unknown target, a secret,
// another contract version, a member the contract does not model, a text
// over its cap, a stream error after output.
func oddRequest(rng *rand.Rand, i int) generated {
	name := fmt.Sprintf("odd#%d", i)
	reqs := []*errsvcv1.TranslateRequest{
		{Source: &errsvcv1.TranslateRequest_LabbyError{LabbyError: &errsvcv1.LabbyError{Kind: "tool_error", Message: "m", Safety: &errsvcv1.Safety{IdempotentHint: proto.Bool(true)}}}},
		{Source: &errsvcv1.TranslateRequest_LabbyError{LabbyError: &errsvcv1.LabbyError{Kind: "timeout", Message: "m"}}, Targets: []string{"labby_eror"}},
		{Source: &errsvcv1.TranslateRequest_LabbyError{LabbyError: &errsvcv1.LabbyError{Kind: "timeout", Message: "login with password=" + randomToken(rng)}}},
		{Source: &errsvcv1.TranslateRequest_LabbyError{LabbyError: &errsvcv1.LabbyError{ContractVersion: 2, Kind: "timeout", Message: "m"}}},
		{Source: &errsvcv1.TranslateRequest_LabbyError{LabbyError: &errsvcv1.LabbyError{Kind: "timeout", Message: "m", AdditionalFields: mustStruct(map[string]any{"trace_hint": "x"})}}},
		{Source: &errsvcv1.TranslateRequest_LabbyError{LabbyError: &errsvcv1.LabbyError{Kind: "timeout", Message: strings.Repeat("long text ", 2000)}}},
		{Source: &errsvcv1.TranslateRequest_ProviderResponse{ProviderResponse: &errsvcv1.ProviderResponse{Provider: "anthropic", Status: 200,
			Headers: map[string]string{"content-type": "text/event-stream"},
			Body:    "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi\"}}\n\nevent: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n"}}},
	}
	req := reqs[rng.IntN(len(reqs))]
	if req.Targets == nil {
		req.Targets = everyTarget()
	}
	return generated{name, req, -1}
}

// randomToken is a fresh credential-shaped token: no run reuses one.
func randomToken(rng *rand.Rand) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 24)
	for i := range b {
		b[i] = alphabet[rng.IntN(len(alphabet))]
	}
	return string(b)
}

// everyTarget names every target, the ones answered on request too.
func everyTarget() []string {
	var out []string
	for _, t := range targets {
		out = append(out, t.name)
	}
	return out
}

// verdict is one target's retry decision: retry, never, or open (the target
// leaves it to the consumer).
type verdict int

const (
	open verdict = iota
	retry
	never
)

func (v verdict) String() string { return [...]string{"open", "retry", "never"}[v] }

// sdkShouldRetry is openAISDKRetries (the openai and anthropic SDKs'
// _should_retry) as a verdict.
func sdkShouldRetry(status int32, h map[string]string) verdict {
	if openAISDKRetries(status, h) {
		return retry
	}
	return never
}

// verdicts reads every target's decision as its own consumer would.
func verdicts(r *errsvcv1.TranslateResponse) map[string]verdict {
	out := map[string]verdict{}
	if c := r.GetClassification(); c != nil && c.GetRecognized() {
		out["classification"] = never
		if c.GetClass() == classTransient {
			out["classification"] = retry
		}
	}
	switch r.GetAgentError().GetRetry() {
	case "yes", "after-delay":
		out["agent_error.retry"] = retry
	case "no":
		out["agent_error.retry"] = never
	}
	// The Labby envelope decides by its recovery action (same_arguments
	// says whether the same arguments may be sent again, a different
	// question: a quota is retried later with less work).
	// retry_later with same_arguments conditional is a retry only for an
	// idempotent call, which the envelope does not say: open.
	switch rec := r.GetLabbyError().GetRecovery(); {
	case rec.GetAction() == "retry_later" && rec.GetSameArguments() == "safe":
		out["labby_error.recovery"] = retry
	case rec.GetAction() == "do_not_retry":
		out["labby_error.recovery"] = never
	}
	if v, ok := header(r.GetHttpHeaders(), "x-should-retry"); ok {
		out["http_headers.x-should-retry"] = map[string]verdict{"true": retry, "false": never}[v]
	}
	if v, ok := r.GetGrpcMetadata()["grpc-retry-pushback-ms"]; ok {
		n, err := strconv.Atoi(v)
		out["grpc_metadata.pushback"] = never
		if err == nil && n >= 0 {
			out["grpc_metadata.pushback"] = retry
		}
	}
	if r.GetGrpcStatus().GetCode() == int32(code.Code_UNAVAILABLE) {
		out["grpc_status UNAVAILABLE (AIP-194)"] = retry
	}
	for name, a := range map[string]*errsvcv1.HttpAnswer{"openai_error (openai SDK)": r.GetOpenaiError(), "anthropic_error (anthropic SDK)": r.GetAnthropicError()} {
		if a != nil {
			out[name] = sdkShouldRetry(a.GetStatus(), a.GetHeaders())
		}
	}
	switch r.GetHandling().GetRoute() {
	case "backoff_retry":
		out["handling.route"] = retry
	case "":
	default:
		out["handling.route"] = never
	}
	return out
}

// waitsMs is every wait the answer states, in milliseconds, by where.
func waitsMs(r *errsvcv1.TranslateResponse) map[string]int64 {
	out := map[string]int64{}
	if c := r.GetClassification(); c != nil && c.RetryAfterSecs != nil {
		out["classification.retry_after_secs"] = int64(c.GetRetryAfterSecs()) * 1000
	}
	if rec := r.GetLabbyError().GetRecovery(); rec != nil && rec.RetryAfterMs != nil {
		out["labby_error.recovery.retry_after_ms"] = int64(rec.GetRetryAfterMs())
	}
	if v, ok := r.GetAgentError().GetDetails().GetFields()["retryAfterMs"]; ok {
		out["agent_error.details.retryAfterMs"] = int64(v.GetNumberValue())
	}
	for where, h := range map[string]map[string]string{"http_headers": r.GetHttpHeaders(), "openai_error": r.GetOpenaiError().GetHeaders(),
		"anthropic_error": r.GetAnthropicError().GetHeaders(), "google_error": r.GetGoogleError().GetHeaders()} {
		if v, ok := header(h, "retry-after"); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				n = -2 // not delay-seconds: the HTTP-date form is never written
			}
			out[where+".Retry-After"] = n * 1000
		}
		if v, ok := header(h, "retry-after-ms"); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			out[where+".retry-after-ms"] = n
		}
	}
	if v, ok := r.GetGrpcMetadata()["grpc-retry-pushback-ms"]; ok {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 {
			out["grpc_metadata.pushback"] = n
		}
	}
	for _, d := range r.GetGrpcStatus().GetDetails() {
		ri := &errdetails.RetryInfo{}
		if d.MessageIs(ri) && d.UnmarshalTo(ri) == nil {
			out["grpc_status RetryInfo"] = int64((ri.GetRetryDelay().AsDuration() + time.Millisecond - 1) / time.Millisecond)
		}
	}
	if b := r.GetHandling(); b != nil && b.BackoffFloorSecs != nil {
		out["handling.backoff_floor_secs"] = int64(b.GetBackoffFloorSecs()) * 1000
	}
	return out
}

// aip193Reason is AIP-193's ErrorInfo.reason grammar.
var aip193Reason = regexp.MustCompile(`^[A-Z][A-Z0-9_]+[A-Z0-9]$`)

// checkAnswer holds one answer to every outside rule; it returns the
// violations, each naming the rule.
func checkAnswer(g generated, r *errsvcv1.TranslateResponse) []string {
	var bad []string
	fail := func(format string, args ...any) { bad = append(bad, fmt.Sprintf(format, args...)) }

	// One answer carries one decision.
	vs := verdicts(r)
	var says [3][]string
	for where, v := range vs {
		says[v] = append(says[v], where)
	}
	if len(says[retry]) > 0 && len(says[never]) > 0 {
		fail("contradictory decisions: retry by %v, never by %v", sorted(says[retry]), sorted(says[never]))
	}

	// No wait shorter than the source asked (where the answer states one).
	if g.waitMs >= 0 && len(says[never]) == 0 {
		for where, ms := range waitsMs(r) {
			if ms < min(g.waitMs, int64(maxWaitSecs)*1000) && !(ms == 3600*1000 && g.req.GetProviderResponse() != nil) {
				fail("%s waits %d ms, shorter than the %d ms the source asked", where, ms, g.waitMs)
			}
		}
	}

	// A wait the source gave that a retry header does not carry is noted:
	// every step that loses information says so.
	if g.waitMs > 0 && r.HttpHeaders != nil {
		if _, ok := header(r.GetHttpHeaders(), "retry-after"); !ok && !slices.ContainsFunc(r.GetNotes(), func(n *errsvcv1.Note) bool {
			return strings.Contains(n.GetMessage(), "wait") || strings.Contains(n.GetMessage(), "RetryInfo")
		}) {
			fail("the source's wait of %d ms is in no retry header and no note says why", g.waitMs)
		}
	}

	// code.proto's HTTP mapping (grpc-gateway's HTTPStatusFromCode).
	st := r.GetGrpcStatus()
	if ge := r.GetGoogleError(); ge != nil {
		e := ge.GetBody().GetFields()["error"].GetStructValue().GetFields()
		name := e["status"].GetStringValue()
		n, ok := code.Code_value[name]
		if !ok {
			fail("google_error status %q is not a google.rpc.Code name", name)
		}
		want := int32(runtime.HTTPStatusFromCode(codes.Code(n)))
		if got := int32(e["code"].GetNumberValue()); got != want {
			fail("google_error error.code %d for status %s; code.proto maps it to %d", got, name, want)
		}
		if ge.GetStatus() != want {
			fail("google_error is answered with HTTP %d, its body's error.code is %d (AIP-193: the same)", ge.GetStatus(), want)
		}
		if n != st.GetCode() {
			fail("google_error status %s is not grpc_status's code %s", name, code.Code(st.GetCode()))
		}
	}
	// A grpc_status source's code survives, but for an UNAVAILABLE whose
	// answer is not a retry (AIP-194: the one decision wins).
	if gs := g.req.GetGrpcStatus(); gs != nil && gs.GetCode() >= 1 && gs.GetCode() <= 16 && st.GetCode() != gs.GetCode() &&
		!(gs.GetCode() == int32(code.Code_UNAVAILABLE) && len(says[retry]) == 0) {
		fail("a grpc_status source's code %s came out as %s", code.Code(gs.GetCode()), code.Code(st.GetCode()))
	}
	if st == nil {
		return bad // a request that named its targets (and none of these)
	}
	if st.GetCode() == 0 || st.GetCode() > 16 {
		fail("grpc_status code %d is not an error code of google.rpc.Code", st.GetCode())
	}

	// A RetryInfo the source gave is never dropped from grpc_status, whatever
	// its code's class (INTERNAL, UNKNOWN and CANCELLED have none).
	if g.req.GetGrpcStatus() != nil && g.waitMs > 0 {
		if _, ok := waitsMs(r)["grpc_status RetryInfo"]; !ok {
			fail("the source's RetryInfo of %d ms is not in grpc_status", g.waitMs)
		}
	}

	// AIP-193's ErrorInfo.
	infos := 0
	for _, d := range st.GetDetails() {
		info := &errdetails.ErrorInfo{}
		if !d.MessageIs(info) {
			continue
		}
		infos++
		if d.UnmarshalTo(info) != nil {
			fail("ErrorInfo does not decode")
			continue
		}
		if len(info.GetReason()) > 63 || !aip193Reason.MatchString(info.GetReason()) {
			fail("ErrorInfo.reason %q is outside AIP-193's [A-Z][A-Z0-9_]+[A-Z0-9] (at most 63)", info.GetReason())
		}
		if info.GetDomain() == "" {
			fail("ErrorInfo.domain is empty")
		}
	}
	if infos != 1 {
		fail("grpc_status carries %d ErrorInfo, want exactly one", infos)
	}

	// JSON-RPC 2.0 §5.1: -32768 to -32000 are reserved; only the five
	// defined codes and the implementation-defined server errors
	// (-32099 to -32000) may be used there.
	if j := r.GetJsonrpcError(); j != nil {
		if c := j.GetCode(); c >= -32768 && c <= -32000 && !(c >= -32099 || c == -32700 || c >= -32603 && c <= -32600) {
			fail("jsonrpc_error.code %d is reserved by JSON-RPC 2.0 and not one it defines", c)
		}
		if j.GetCode() == 0 {
			fail("jsonrpc_error.code is 0")
		}
	}

	// RFC 9110 §15: http_status is a status a client can act on.
	if s := r.GetHttpStatus(); s < 400 || s > 599 {
		fail("http_status %d is not an error status", s)
	}

	// Notes parse: a code of the vocabulary, a message with no empty quote.
	for _, n := range r.GetNotes() {
		if !NoteCodes.Has(n.GetCode()) {
			fail("note code %q is not in the vocabulary", n.GetCode())
		}
		if m := n.GetMessage(); m == "" || strings.Contains(m, `""`) || strings.Contains(m, "``") || strings.Contains(m, "%!") {
			fail("note %s has an empty or garbled value: %q", n.GetCode(), m)
		}
	}
	return bad
}

// invalidStatusIsA500 compares the answer to a request whose HTTP status
// is not a status with the answer to the same request with 500.
func invalidStatusIsA500(req *errsvcv1.TranslateRequest, r *errsvcv1.TranslateResponse) string {
	same := proto.Clone(req).(*errsvcv1.TranslateRequest)
	switch {
	case req.GetHttpError() != nil && (req.GetHttpError().GetStatus() < 100 || req.GetHttpError().GetStatus() > 599):
		same.GetHttpError().Status = 500
	case req.GetProviderResponse() != nil && req.GetProviderResponse().GetStatus() != 0 &&
		(req.GetProviderResponse().GetStatus() < 100 || req.GetProviderResponse().GetStatus() > 599):
		same.GetProviderResponse().Status = 500
	default:
		return ""
	}
	want, err := Translate(same)
	if err != nil {
		return fmt.Sprintf("the same request with status 500 is refused: %v", err)
	}
	if !proto.Equal(want.GetClassification(), r.GetClassification()) || want.GetHttpStatus() != r.GetHttpStatus() || want.GetGrpcStatus().GetCode() != r.GetGrpcStatus().GetCode() {
		return fmt.Sprintf("an invalid status answers class %v, HTTP %d; status 500 answers %v, HTTP %d (RFC 9110: a 5xx)",
			r.GetClassification(), r.GetHttpStatus(), want.GetClassification(), want.GetHttpStatus())
	}
	return ""
}

// requestJSON is the request as a reader would send it, to replay a failure.
func requestJSON(req *errsvcv1.TranslateRequest) string {
	r := proto.Clone(req).(*errsvcv1.TranslateRequest)
	r.Targets = nil
	b, _ := protojson.Marshal(r)
	return string(b)
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

// readBacks are the sources that read each target back, as a consumer of
// that target would hand it to errsvc.
func readBacks(t *testing.T, r *errsvcv1.TranslateResponse) map[string]*errsvcv1.TranslateRequest {
	out := map[string]*errsvcv1.TranslateRequest{}
	src := func(name string, s any) {
		req := &errsvcv1.TranslateRequest{}
		switch v := s.(type) {
		case *errsvcv1.LabbyError:
			req.Source = &errsvcv1.TranslateRequest_LabbyError{LabbyError: v}
		case *errsvcv1.AgentError:
			req.Source = &errsvcv1.TranslateRequest_AgentError{AgentError: v}
		case *errsvcv1.GrpcStatusError:
			req.Source = &errsvcv1.TranslateRequest_GrpcStatus{GrpcStatus: v}
		case *errsvcv1.HttpError:
			req.Source = &errsvcv1.TranslateRequest_HttpError{HttpError: v}
		case *errsvcv1.ProviderResponse:
			req.Source = &errsvcv1.TranslateRequest_ProviderResponse{ProviderResponse: v}
		case *errsvcv1.JsonRpcError:
			req.Source = &errsvcv1.TranslateRequest_JsonrpcError{JsonrpcError: v}
		case *errsvcv1.ClassifiedError:
			req.Source = &errsvcv1.TranslateRequest_ClassifiedError{ClassifiedError: v}
		}
		req.Targets = everyTarget()
		// A transient answer said a retry is safe; a consumer reading it
		// back knows that much (without it, a bare timeout status is not
		// retried: the Agent Surface matrix's TIMEOUT rule).
		if transient(r) {
			req.Context = &errsvcv1.TranslateContext{Idempotent: proto.Bool(true)}
		}
		out[name] = req
	}
	src("labby_error", r.GetLabbyError())
	src("agent_error", r.GetAgentError())
	if c := r.GetClassification(); c != nil {
		ce := &errsvcv1.ClassifiedError{Class: c.GetClass()}
		if c.RetryAfterSecs != nil {
			ce.RetryAfterSecs = proto.Float64(float64(c.GetRetryAfterSecs()))
		}
		src("classification", ce)
	}
	st := r.GetGrpcStatus()
	src("grpc_status", &errsvcv1.GrpcStatusError{Code: st.GetCode(), Message: st.GetMessage(), Details: jsonDetails(t, st.GetDetails())})
	src("http_status + http_headers", &errsvcv1.HttpError{Status: r.GetHttpStatus(), Headers: r.GetHttpHeaders()})
	for name, a := range map[string]*errsvcv1.HttpAnswer{"openai": r.GetOpenaiError(), "anthropic": r.GetAnthropicError(), "google": r.GetGoogleError()} {
		body := bodyJSON(t, a.GetBody())
		src(name+"_error as provider_response", &errsvcv1.ProviderResponse{Provider: name, Status: a.GetStatus(), Headers: a.GetHeaders(), Body: body})
		src(name+"_error as http_error", &errsvcv1.HttpError{Status: a.GetStatus(), Headers: a.GetHeaders(), Body: body})
	}
	src("jsonrpc_error", r.GetJsonrpcError())
	return out
}

// lossyReadBack are the targets that cannot carry every class (a bare
// status and its headers; an Agent Surface code, whose notes say which
// class it drops): read back, they keep the decision (transient or not),
// not the class.
var lossyReadBack = map[string]bool{"http_status + http_headers": true, "agent_error": true}

// classOf is the answer's class as its classification target states it.
func classOf(r *errsvcv1.TranslateResponse) (string, bool) {
	c := r.GetClassification()
	return c.GetClass(), c != nil && c.GetRecognized()
}

func TestOutsideReferencesOverAGeneratedSpace(t *testing.T) {
	rng := rand.New(rand.NewPCG(propertySeed(t), 34))
	space := generateSpace(t, rng, 10_000)
	failures := map[string]int{}
	report := func(name, msg string) {
		// One example of each kind of violation, and a count.
		key := regexp.MustCompile(`-?\d+`).ReplaceAllString(msg, "N")
		if failures[key]++; failures[key] <= 2 {
			t.Errorf("%s: %s", name, msg)
		}
	}
	emitted := map[string]bool{}
	for _, g := range space {
		r, err := Translate(g.req)
		if err != nil {
			// Only a malformed source may be refused; the generator makes
			// none, except statuses RFC 9110 calls invalid, which must be
			// answered as a server error, not refused.
			report(g.name, fmt.Sprintf("refused: %v", err))
			continue
		}
		for _, n := range r.GetNotes() {
			emitted[n.GetCode()] = true
		}
		for _, msg := range checkAnswer(g, r) {
			report(g.name+" "+requestJSON(g.req), msg)
		}
		// RFC 9110 §15: a status outside 100 to 599 is read as a 5xx: the
		// answer is the one for 500.
		if msg := invalidStatusIsA500(g.req, r); msg != "" {
			report(g.name+" "+requestJSON(g.req), msg)
		}
		// Every target reads back to the same class and no shorter wait.
		class, recognized := classOf(r)
		if !recognized {
			continue
		}
		wait := waitsMs(r)["classification.retry_after_secs"]
		for via, back := range readBacks(t, r) {
			br, err := Translate(back)
			if err != nil {
				report(g.name, fmt.Sprintf("%s does not read back: %v", via, err))
				continue
			}
			bc, brec := classOf(br)
			if via == "agent_error" && !retryHint(r.GetAgentError().GetRetry()) && r.GetAgentError().GetRetry() != "no" {
				continue // a conditional hint (after-refresh, ...) carries no decision to read back
			}
			if via == "http_status + http_headers" && (r.GetHttpStatus() == 401 || r.GetHttpStatus() == 403 || r.GetHttpStatus() == 413) {
				// A status that names its cause (sign in; too large) beats a
				// header's word when a bare status is read (provider.shouldRetry,
				// fixture generic-413-x-should-retry-true).
				continue
			}
			if lossy := lossyReadBack[via]; lossy && (bc == classTransient) != (class == classTransient) || !lossy && (bc != class || !brec) {
				report(g.name+" "+requestJSON(g.req), fmt.Sprintf("%s reads back as class %q (recognized %v), was %q", via, bc, brec, class))
			}
			if class == classTransient && via != "agent_error" {
				if bw, ok := waitsMs(br)["classification.retry_after_secs"]; wait > 0 && (!ok || bw < min(wait, 3600*1000)) {
					report(g.name+" "+requestJSON(g.req), fmt.Sprintf("%s reads back a wait of %d ms, was %d ms", via, bw, wait))
				}
			}
		}
	}
	for key, n := range failures {
		if n > 2 {
			t.Logf("%d more like: %s", n-2, key)
		}
	}
	t.Logf("%d generated requests", len(space))
	// Every documented note code is emitted by some input.
	for _, term := range NoteCodes.Terms {
		if !emitted[term.Wire] && !notEmittedBySpace[term.Wire] {
			t.Errorf("note code %s is documented and no generated request emits it", term.Wire)
		}
	}
}

// notEmittedBySpace are note codes the generated space cannot provoke,
// each with the input that does (and the test that proves it).
var notEmittedBySpace = map[string]bool{
	// Only an operator policy's rules write it, and the generated space
	// translates without one: TestPolicyRulesAreNamedInNotes proves it.
	"policy_rule": true,
}

// The status a gRPC code answers with (code.proto, grpc-gateway) reads back
// to a code that answers with the same status: errsvc's reverse table
// (grpcCodeByHTTP) agrees with the reference wherever the reference speaks.
func TestGRPCCodeByHTTPRoundTripsCodeProto(t *testing.T) {
	for c := codes.Canceled; c <= codes.Unauthenticated; c++ {
		status := int32(runtime.HTTPStatusFromCode(c))
		back := grpcCodeByHTTP(status)
		n, ok := code.Code_value[back]
		if !ok {
			t.Errorf("HTTP %d (of %s) reads as %q, not a google.rpc.Code", status, c, back)
			continue
		}
		if got := int32(runtime.HTTPStatusFromCode(codes.Code(n))); got != status {
			t.Errorf("HTTP %d (of %s) reads as %s, which answers HTTP %d", status, c, back, got)
		}
		if got := httpStatusForCode(code.Code_name[int32(c)]); got != status {
			t.Errorf("httpStatusOfCode[%s] = %d, code.proto (grpc-gateway) says %d", c, got, status)
		}
	}
}

// The ErrorInfo domain is public: clients in every language match on it
// (docs/API.md shows it), so the engine's constant is held to the
// documentation rather than to itself.
func TestErrorInfoDomainIsTheDocumentedOne(t *testing.T) {
	root, err := golden.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(root, "docs", "API.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), `"domain": "`+ErrorInfoDomain+`"`) {
		t.Errorf("ErrorInfoDomain %q is not the domain docs/API.md documents", ErrorInfoDomain)
	}
}

// contractFacts are testdata/reference/facts.json: facts of the contracts'
// text the engine's tables must agree with.
type contractFacts struct {
	ClassAliases      map[string]string `json:"class_aliases"`
	AgentDetailValues map[string]any    `json:"agent_detail_values"`
	// RatelimitQuotaUnits: RateLimit-Policy's registered qu, by the
	// dimension each counts.
	RatelimitQuotaUnits map[string]string `json:"ratelimit_quota_units"`
}

func loadContractFacts(t *testing.T) contractFacts {
	t.Helper()
	root, err := golden.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "testdata", "reference", "facts.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f contractFacts
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	delete(f.ClassAliases, "$source")
	delete(f.AgentDetailValues, "$source")
	delete(f.RatelimitQuotaUnits, "$source")
	return f
}

// Every alias the Error Class Contract accepts on read is read as its class,
// recognised, from every source that carries a class.
func TestClassAliasesAreRead(t *testing.T) {
	f := loadContractFacts(t)
	if len(f.ClassAliases) == 0 {
		t.Fatal("no class aliases in facts.json")
	}
	for alias, class := range f.ClassAliases {
		for name, req := range map[string]*errsvcv1.TranslateRequest{
			"classified_error": {Source: &errsvcv1.TranslateRequest_ClassifiedError{ClassifiedError: &errsvcv1.ClassifiedError{Code: "x", Class: alias}}},
			"labby_error":      {Source: &errsvcv1.TranslateRequest_LabbyError{LabbyError: &errsvcv1.LabbyError{Kind: "x", Classification: &errsvcv1.Classification{Class: alias}}}},
		} {
			r, err := Translate(req)
			if err != nil {
				t.Fatalf("%s %q: %v", name, alias, err)
			}
			if c := r.GetClassification(); c.GetClass() != class || !c.GetRecognized() {
				t.Errorf("%s class %q reads as %q (recognized %v), the contract says %q", name, alias, c.GetClass(), c.GetRecognized(), class)
			}
		}
	}
}

// Every agent detail whose values the Agent Surface error model closes
// takes one of them, in every answer of the generated space's sources.
func TestAgentDetailValuesAreTheContracts(t *testing.T) {
	f := loadContractFacts(t)
	rng := rand.New(rand.NewPCG(propertySeed(t), 35))
	for _, g := range generateSpace(t, rng, 2000) {
		r, err := Translate(g.req)
		if err != nil || g.req.GetAgentError() != nil {
			continue // a producer's own details pass through
		}
		for key, allowed := range f.AgentDetailValues {
			v, ok := r.GetAgentError().GetDetails().GetFields()[key]
			if !ok {
				continue
			}
			found := false
			for _, a := range allowed.([]any) {
				found = found || a == v.GetStringValue()
			}
			if !found {
				t.Errorf("%s: agent_error.details.%s is %q, the Agent Surface error model allows %v", g.name, key, v.GetStringValue(), allowed)
			}
		}
	}
}
