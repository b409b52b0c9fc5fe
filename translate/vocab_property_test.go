package translate

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/code"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/structpb"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/internal/schemas"
	"github.com/errsvc/errsvc/translate/provider"
)

// The rules of the targets answered on request, over every golden vector
// (the earlier sources' vectors too), each answer translated with every
// target. A rule reads what another consumer's own logic would read: the
// provider classifier for the provider bodies, the OpenAI SDK's retry rule
// for the headers, grpc-go's pushback rule for the trailers.

type vocabAnswer struct {
	name string
	req  *errsvcv1.TranslateRequest
	resp *errsvcv1.TranslateResponse
}

func everyAnswer(t *testing.T) []vocabAnswer {
	t.Helper()
	var out []vocabAnswer
	for name, req := range wellFormed(t) {
		r := proto.Clone(req).(*errsvcv1.TranslateRequest)
		for _, tg := range targets {
			r.Targets = append(r.Targets, tg.name)
		}
		out = append(out, vocabAnswer{name, r, mustTranslate(t, name, r)})
	}
	if len(out) < 800 {
		t.Fatalf("only %d answers: the golden vectors went missing", len(out))
	}
	return out
}

// transient is errsvc's retry decision as the answer states it.
func transient(r *errsvcv1.TranslateResponse) bool {
	c := r.GetClassification()
	return c != nil && c.GetRecognized() && c.GetClass() == classTransient
}

// answerWaitMs is the wait an earlier target of the answer carries: the
// envelope's retry_after_ms, else the class's seconds.
func answerWaitMs(r *errsvcv1.TranslateResponse) (uint64, bool) {
	if rec := r.GetLabbyError().GetRecovery(); rec != nil && rec.RetryAfterMs != nil {
		return uint64(r.GetLabbyError().GetRecovery().GetRetryAfterMs()), true
	}
	if c := r.GetClassification(); c != nil && c.RetryAfterSecs != nil {
		s := c.RetryAfterSecs
		return uint64(*s) * 1000, true
	}
	return 0, false
}

func header(h map[string]string, name string) (string, bool) {
	for k, v := range h {
		if strings.EqualFold(k, name) {
			return v, true
		}
	}
	return "", false
}

// openAISDKRetries is openai-python's and openai-node's _should_retry:
// x-should-retry first, then 408, 409, 429 and every 5xx.
func openAISDKRetries(status int32, h map[string]string) bool {
	switch v, _ := header(h, "x-should-retry"); v {
	case "true":
		return true
	case "false":
		return false
	}
	return status == 408 || status == 409 || status == 429 || status >= 500
}

// transientGRPCCodes is the retryableStatusCodes a deployer configures from
// the matrix: every code a transient row answers with.
func transientGRPCCodes() map[string]bool {
	out := map[string]bool{}
	for _, t := range LabbyKinds.Terms {
		if r := t.Row.(*errsvcv1.KindRow); r.GetClass() == classTransient {
			out[grpcCodeOrDerived(r.GetGrpcCode(), r.GetHttpStatus())] = true
		}
	}
	for _, t := range AgentCodes.Terms {
		if r := t.Row.(*errsvcv1.AgentCodeRow); r.GetClass() == classTransient {
			out[grpcCodeOrDerived(r.GetGrpcCode(), r.GetHttpStatus())] = true
		}
	}
	out[classRow(classTransient).GetGrpcCode()] = true
	for _, t := range GrpcCodes.Terms {
		if t.Row.(*errsvcv1.GrpcCodeRow).GetClass() == classTransient {
			out[t.Wire] = true
		}
	}
	return out
}

// grpcGoRetries is gRFC A6 as grpc-go implements it: a pushback trailer
// decides (>= 0 retry after it, negative or malformed never); without one,
// the policy's retryable codes do.
func grpcGoRetries(st int32, md map[string]string, policy map[string]bool) bool {
	if v, ok := md["grpc-retry-pushback-ms"]; ok {
		n, err := strconv.Atoi(v)
		return err == nil && n >= 0
	}
	return policy[code.Code_name[st]]
}

func TestRetryLoopsRetryExactlyTheTransientAnswers(t *testing.T) {
	policy := transientGRPCCodes()
	for _, a := range everyAnswer(t) {
		r := a.resp
		want := transient(r)
		if got := openAISDKRetries(r.GetHttpStatus(), r.GetHttpHeaders()); got != want {
			t.Errorf("%s: the OpenAI SDK rule on http_status %d + http_headers %v retries=%v, errsvc transient=%v", a.name, r.GetHttpStatus(), r.GetHttpHeaders(), got, want)
		}
		for field, ans := range map[string]*errsvcv1.HttpAnswer{"openai_error": r.GetOpenaiError(), "anthropic_error": r.GetAnthropicError(), "google_error": r.GetGoogleError()} {
			if got := openAISDKRetries(ans.GetStatus(), ans.GetHeaders()); got != want {
				t.Errorf("%s: the SDK rule on %s (%d, %v) retries=%v, errsvc transient=%v", a.name, field, ans.GetStatus(), ans.GetHeaders(), got, want)
			}
		}
		if got := grpcGoRetries(r.GetGrpcStatus().GetCode(), r.GetGrpcMetadata(), policy); got != want {
			t.Errorf("%s: grpc-go's pushback rule on %s + %v retries=%v, errsvc transient=%v", a.name, code.Code_name[r.GetGrpcStatus().GetCode()], r.GetGrpcMetadata(), got, want)
		}
	}
}

// No target invents what the source did not carry: a retry hint carries
// exactly the answer's wait, only for a transient answer; a route only for
// a class of the four.
func TestNoTargetInventsAWaitOrARoute(t *testing.T) {
	for _, a := range everyAnswer(t) {
		r := a.resp
		ms, hasWait := answerWaitMs(r)
		hasWait = hasWait && transient(r)
		for where, h := range map[string]map[string]string{"http_headers": r.GetHttpHeaders(), "openai_error": r.GetOpenaiError().GetHeaders(), "anthropic_error": r.GetAnthropicError().GetHeaders(), "google_error": r.GetGoogleError().GetHeaders()} {
			ra, okRA := header(h, "retry-after")
			ram, okMs := header(h, "retry-after-ms")
			if okRA != hasWait || okMs != hasWait {
				t.Errorf("%s: %s wait headers %v, the answer's wait present=%v", a.name, where, h, hasWait)
				continue
			}
			if hasWait && (ra != strconv.FormatUint((ms+999)/1000, 10) || ram != strconv.FormatUint(ms, 10)) {
				t.Errorf("%s: %s says Retry-After %s / retry-after-ms %s, the answer's wait is %d ms", a.name, where, ra, ram, ms)
			}
			if v, _ := header(h, "x-should-retry"); v != strconv.FormatBool(transient(r)) {
				t.Errorf("%s: %s x-should-retry %q, transient=%v", a.name, where, v, transient(r))
			}
		}
		pushback, ok := r.GetGrpcMetadata()["grpc-retry-pushback-ms"]
		switch {
		case !transient(r) && pushback != "-1":
			t.Errorf("%s: a non-transient answer has pushback %q, want -1", a.name, pushback)
		case transient(r) && ok != hasWait, hasWait && pushback != strconv.FormatUint(ms, 10):
			t.Errorf("%s: pushback %q (present %v), the answer's wait %d ms (present %v)", a.name, pushback, ok, ms, hasWait)
		}
		h := r.GetHandling()
		if (h.BackoffFloorSecs != nil) != hasWait || hasWait && uint64(h.GetBackoffFloorSecs()) != (ms+999)/1000 {
			t.Errorf("%s: backoff_floor_secs %v, the answer's wait %d ms (present %v)", a.name, h.BackoffFloorSecs, ms, hasWait)
		}
		c := r.GetClassification()
		if recognized := c != nil && c.GetRecognized(); (h.GetRoute() != "") != recognized {
			t.Errorf("%s: route %q for class %q (recognized %v)", a.name, h.GetRoute(), c.GetClass(), recognized)
		}
		if h.GetRoute() != "" && h.GetRoute() != classRow(c.GetClass()).GetRoute() {
			t.Errorf("%s: route %q, class %s's row says %q", a.name, h.GetRoute(), c.GetClass(), classRow(c.GetClass()).GetRoute())
		}
	}
}

// handling agrees with every other target of the same answer.
func TestHandlingAgreesWithTheOtherTargets(t *testing.T) {
	dir, err := schemas.Dir()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "agent-surface-error-matrix.json"))
	if err != nil {
		t.Fatal(err)
	}
	var matrix struct {
		Codes map[string]struct {
			Cacheable bool `json:"cacheable"`
		} `json:"codes"`
	}
	if err := json.Unmarshal(b, &matrix); err != nil {
		t.Fatal(err)
	}
	var mcp, failOver int
	for _, a := range everyAnswer(t) {
		r, h := a.resp, a.resp.GetHandling()
		if h.GetRoute() == "fail_over" {
			failOver++
			if v, _ := header(r.GetHttpHeaders(), "x-should-retry"); v != "false" || r.GetGrpcMetadata()["grpc-retry-pushback-ms"] != "-1" {
				t.Errorf("%s: fail_over beside retry hints %v / %v", a.name, r.GetHttpHeaders(), r.GetGrpcMetadata())
			}
			if _, ok := header(r.GetHttpHeaders(), "retry-after"); ok || h.BackoffFloorSecs != nil {
				t.Errorf("%s: fail_over beside a wait", a.name)
			}
		}
		if a.req.GetMcpToolResult() != nil {
			mcp++
			if h.CountsTowardHealth == nil || h.GetCountsTowardHealth() {
				t.Errorf("%s: a completed isError result counts toward health (%v)", a.name, h.CountsTowardHealth)
			}
		}
		code := r.GetAgentError().GetCode()
		if want, ok := matrix.Codes[code]; ok {
			if h.Cacheable == nil || h.GetCacheable() != want.Cacheable {
				t.Errorf("%s: cacheable %v for %s, the Agent Surface matrix says %v", a.name, h.Cacheable, code, want.Cacheable)
			}
		} else if h.Cacheable != nil {
			t.Errorf("%s: cacheable set for agent code %q outside the matrix", a.name, code)
		}
		if lvl := h.GetLogLevel(); lvl != "" && !LogLevels.Has(lvl) {
			t.Errorf("%s: log_level %q", a.name, lvl)
		}
		if h.GetSameProviderAlternativesDead() != (h.GetRoute() == "pause_for_auth") {
			t.Errorf("%s: same_provider_alternatives_dead %v with route %q", a.name, h.GetSameProviderAlternativesDead(), h.GetRoute())
		}
	}
	if mcp < 10 || failOver < 100 {
		t.Fatalf("only %d MCP results and %d fail_over answers: the rules were barely exercised", mcp, failOver)
	}
}

// readBack translates a source built from an answer's target.
func readBack(t *testing.T, name string, req *errsvcv1.TranslateRequest) *errsvcv1.TranslateResponse {
	t.Helper()
	for _, tg := range targets {
		req.Targets = append(req.Targets, tg.name)
	}
	resp, err := Translate(req)
	if err != nil {
		t.Fatalf("%s: reading back: %v", name, err)
	}
	return resp
}

func sameDecision(t *testing.T, name, via string, want, got *errsvcv1.TranslateResponse, clamp bool) {
	t.Helper()
	wc, gc := want.GetClassification(), got.GetClassification()
	if wc.GetClass() != gc.GetClass() || wc.GetRecognized() != gc.GetRecognized() {
		t.Errorf("%s via %s: class %q (recognized %v) read back as %q (%v)", name, via, wc.GetClass(), wc.GetRecognized(), gc.GetClass(), gc.GetRecognized())
	}
	if !transient(want) {
		return
	}
	ws, gs := wc.RetryAfterSecs, gc.RetryAfterSecs
	if ws != nil && clamp && *ws > provider.MaxRetryAfterSecs {
		capped := uint32(provider.MaxRetryAfterSecs)
		ws = &capped // the provider classifier's documented clamp
	}
	if (ws == nil) != (gs == nil) || ws != nil && *ws != *gs {
		t.Errorf("%s via %s: wait %v read back as %v", name, via, ws, gs)
	}
}

// jsonDetails is a status's details as google.rpc.Status prints them in JSON.
func jsonDetails(t *testing.T, in []*anypb.Any) []*structpb.Struct {
	t.Helper()
	var out []*structpb.Struct
	for _, a := range in {
		b, err := protojson.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		s := &structpb.Struct{}
		if err := protojson.Unmarshal(b, s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

func bodyJSON(t *testing.T, s *structpb.Struct) string {
	t.Helper()
	b, err := json.Marshal(s.AsMap())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Reading back what errsvc writes gives the same decision.
func TestReadingBackGivesTheSameDecision(t *testing.T) {
	for _, a := range everyAnswer(t) {
		r := a.resp
		if c := r.GetClassification(); c != nil && c.GetRecognized() {
			for family, ans := range map[string]*errsvcv1.HttpAnswer{"openai": r.GetOpenaiError(), "anthropic": r.GetAnthropicError()} {
				back := readBack(t, a.name, &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_ProviderResponse{ProviderResponse: &errsvcv1.ProviderResponse{
					Provider: family, Status: ans.GetStatus(), Headers: ans.GetHeaders(), Body: bodyJSON(t, ans.GetBody())}}})
				sameDecision(t, a.name, family+"_error", r, back, true)
			}
		}
		st := r.GetGrpcStatus()
		back := readBack(t, a.name, &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_GrpcStatus{GrpcStatus: &errsvcv1.GrpcStatusError{
			Code: st.GetCode(), Message: st.GetMessage(), Details: jsonDetails(t, st.GetDetails())}}})
		sameDecision(t, a.name, "grpc_status", r, back, false)
		if back.GetGrpcStatus().GetCode() != st.GetCode() {
			t.Errorf("%s via grpc_status: code %d read back as %d", a.name, st.GetCode(), back.GetGrpcStatus().GetCode())
		}
		if a.req.GetMcpToolResult() == nil && back.GetAgentError().GetCode() != r.GetAgentError().GetCode() {
			t.Errorf("%s via grpc_status: agent code %s read back as %s", a.name, r.GetAgentError().GetCode(), back.GetAgentError().GetCode())
		}
		bin, err := proto.Marshal(st)
		if err != nil {
			t.Fatal(err)
		}
		backBin := readBack(t, a.name, &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_GrpcStatus{GrpcStatus: &errsvcv1.GrpcStatusError{StatusBin: bin}}})
		sameDecision(t, a.name, "grpc_status binary", r, backBin, false)

		j := r.GetJsonrpcError()
		backJ := readBack(t, a.name, &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_JsonrpcError{JsonrpcError: j}, Context: a.req.GetContext()})
		sameDecision(t, a.name, "jsonrpc_error", r, backJ, false)
		if backJ.GetJsonrpcError().GetCode() != j.GetCode() {
			t.Errorf("%s via jsonrpc_error: code %d read back as %d", a.name, j.GetCode(), backJ.GetJsonrpcError().GetCode())
		}
	}
}

// Every emitted body has its provider's shape, and its message is the
// agent-safe message, never upstream text.
func TestProviderBodiesHaveTheirShape(t *testing.T) {
	keys := func(v map[string]any) string {
		var ks []string
		for k := range v {
			ks = append(ks, k)
		}
		return strings.Join(sortedKeys(v), ",")
	}
	for _, a := range everyAnswer(t) {
		r := a.resp
		msg := r.GetAgentError().GetMessage()
		oa := r.GetOpenaiError().GetBody().AsMap()
		oe, _ := oa["error"].(map[string]any)
		if keys(oa) != "error" || keys(oe) != "code,message,param,type" || oe["message"] != msg || oe["param"] != nil {
			t.Errorf("%s: openai_error body %v", a.name, oa)
		}
		if c, ok := oe["code"]; ok && c != nil {
			if _, isString := c.(string); !isString {
				t.Errorf("%s: openai_error code %v is neither a string nor null", a.name, c)
			}
		}
		an := r.GetAnthropicError().GetBody().AsMap()
		ae, _ := an["error"].(map[string]any)
		if keys(an) != "error,type" || an["type"] != "error" || keys(ae) != "message,type" || ae["message"] != msg {
			t.Errorf("%s: anthropic_error body %v", a.name, an)
		}
		g := r.GetGoogleError()
		ge, _ := g.GetBody().AsMap()["error"].(map[string]any)
		if keys(ge) != "code,details,message,status" || ge["code"] != float64(g.GetStatus()) || ge["status"] != code.Code_name[r.GetGrpcStatus().GetCode()] || ge["message"] != msg {
			t.Errorf("%s: google_error body %v", a.name, ge)
		}
		for _, ans := range []*errsvcv1.HttpAnswer{r.GetOpenaiError(), r.GetAnthropicError(), g} {
			if s := ans.GetStatus(); s < 400 || s > 599 {
				t.Errorf("%s: answer status %d", a.name, s)
			}
		}
		if r.GetJsonrpcError().GetMessage() != msg || r.GetJsonrpcError().GetData().GetStructValue().GetFields()["kind"].GetStringValue() != r.GetLabbyError().GetKind() {
			t.Errorf("%s: jsonrpc_error %v", a.name, r.GetJsonrpcError())
		}
	}
}
