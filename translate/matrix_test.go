package translate

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/code"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/internal/schemas"
)

// Every term a row names must be a known term of its vocabulary, or a
// typo in the contract would silently become an open-string passthrough.
func TestMatrixRowsNameKnownTerms(t *testing.T) {
	known := func(v *Vocabulary, term, where string) {
		t.Helper()
		if !v.Has(term) {
			t.Errorf("%s: %q is not a %s term", where, term, v.Name)
		}
	}
	grpc := func(name, where string) {
		t.Helper()
		if _, ok := code.Code_value[name]; name != "" && !ok {
			t.Errorf("%s: %q is not a google.rpc.Code", where, name)
		}
	}
	for _, term := range LabbyKinds.Terms {
		r := term.Row.(*errsvcv1.KindRow)
		w := "kind " + term.Wire
		known(Origins, r.GetOrigin(), w)
		known(RecoveryActions, r.GetAction(), w)
		known(SameArgs, r.GetSameArguments(), w)
		known(AgentCodes, r.GetAgentCode(), w)
		if r.GetSideEffects() != "" {
			known(SideEffects, r.GetSideEffects(), w)
		}
		if r.GetClass() != "" {
			known(Classes, r.GetClass(), w)
		}
		if r.GetLimitKind() != "" {
			known(LimitKinds, r.GetLimitKind(), w)
		}
		grpc(r.GetGrpcCode(), w)
		if s := r.GetHttpStatus(); s < 400 || s > 599 {
			t.Errorf("%s: http_status %d is not an error status", w, s)
		}
		if r.GetRelaxWithHints() && r.GetSameArguments() != "discouraged" {
			t.Errorf("%s: relax_with_hints only means something for discouraged", w)
		}
		if reason := r.GetAgentReason(); reason != "" && !slices.Contains(agentCodeRow(r.GetAgentCode()).GetDetails(), "reason") {
			t.Errorf("%s: agent code %s has no reason detail", w, r.GetAgentCode())
		}
		if term.Meaning == "" {
			t.Errorf("%s has no meaning", w)
		}
	}
	for _, term := range AgentCodes.Terms {
		r := term.Row.(*errsvcv1.AgentCodeRow)
		w := "agent code " + term.Wire
		known(LabbyKinds, r.GetLabbyKind(), w)
		for _, k := range r.GetLabbyKindByReason() {
			known(LabbyKinds, k, w)
		}
		for _, h := range append(slices.Clone(r.GetRetries()), r.GetRetry()) {
			known(AgentRetries, h, w)
		}
		if !slices.Contains(r.GetRetries(), r.GetRetry()) {
			t.Errorf("%s: default retry %q is not among its retries", w, r.GetRetry())
		}
		for _, h := range r.GetRetryByReason() {
			if !slices.Contains(r.GetRetries(), h) {
				t.Errorf("%s: per-reason retry %q is not among its retries", w, h)
			}
		}
		if r.GetClass() != "" {
			known(Classes, r.GetClass(), w)
		}
		grpc(r.GetGrpcCode(), w)
		if len([]rune(r.GetMessage())) > AgentMessageCap/2 {
			t.Errorf("%s: template too long to leave room for advice", w)
		}
	}
	for _, term := range Classes.Terms {
		r := term.Row.(*errsvcv1.ClassRow)
		w := "class " + term.Wire
		known(LabbyKinds, r.GetLabbyKind(), w)
		known(Origins, r.GetOrigin(), w)
		known(RecoveryActions, r.GetAction(), w)
		known(SameArgs, r.GetSameArguments(), w)
		known(AgentCodes, r.GetAgentCode(), w)
		grpc(r.GetGrpcCode(), w)
	}
	for _, v := range []*Vocabulary{ClassifiedCodes, RoutingCodes} {
		for _, term := range v.Terms {
			r := term.Row.(*errsvcv1.ClassifiedCodeRow)
			if r.GetClass() != "" {
				known(Classes, r.GetClass(), v.Name+" "+term.Wire)
			}
			if !slices.Contains([]string{classFixed, classFromDetail, classFromDetailOnly, classFromDetailOrRouting}, r.GetClassSource()) {
				t.Errorf("%s %s: unknown class_source %q", v.Name, term.Wire, r.GetClassSource())
			}
		}
	}
	for _, term := range RecoveryActions.Terms {
		known(AgentRetries, term.Row.(*errsvcv1.ActionRow).GetAgentRetry(), "action "+term.Wire)
	}
	for _, term := range AgentRetries.Terms {
		r := term.Row.(*errsvcv1.RetryRow)
		known(RecoveryActions, r.GetAction(), "retry "+term.Wire)
		known(SameArgs, r.GetSameArguments(), "retry "+term.Wire)
	}
	for _, term := range Origins.Terms {
		r := term.Row.(*errsvcv1.OriginRow)
		known(SideEffects, r.GetSideEffects(), "origin "+term.Wire)
		known(Origins, r.GetCodeModeOrigin(), "origin "+term.Wire)
	}
}

// The vocabularies the seeds close must match them exactly.
func TestClosedSetsMatchTheSeeds(t *testing.T) {
	wires := func(v *Vocabulary) []string {
		var w []string
		for _, t := range v.Terms {
			w = append(w, t.Wire)
		}
		slices.Sort(w)
		return w
	}
	sorted := func(s ...string) []string { slices.Sort(s); return s }
	cases := map[*Vocabulary][]string{
		Classes:         sorted("transient", "permanent", "auth_required", "context_overflow"),
		AgentRetries:    sorted("no", "yes", "after-refresh", "after-delay", "with-confirmation", "with-changes"),
		Origins:         sorted("validation", "policy", "budget", "discovery", "tool_execution", "upstream_transport", "bridge", "code_mode", "runtime"),
		RecoveryActions: sorted("revise_and_retry", "retry_later", "reauthenticate", "confirm", "rediscover", "reduce_work", "start_dependency", "inspect_and_escalate", "do_not_retry"),
		SameArgs:        sorted("safe", "conditional", "discouraged", "never"),
		SideEffects:     sorted("none_expected", "possible", "unknown"),
	}
	for v, want := range cases {
		if got := wires(v); !slices.Equal(got, want) {
			t.Errorf("%s = %v, want %v", v.Name, got, want)
		}
	}
}

// The agent code rows must agree with the Agent Surface's own machine-
// readable matrix: codes, allowed retries, details keys and cacheability.
func TestAgentCodesMatchPublishedMatrix(t *testing.T) {
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
			Retry     []string `json:"retry"`
			Cacheable bool     `json:"cacheable"`
			Details   []string `json:"details"`
		} `json:"codes"`
	}
	if err := json.Unmarshal(b, &matrix); err != nil {
		t.Fatal(err)
	}
	if len(matrix.Codes) != len(AgentCodes.Terms) || len(matrix.Codes) != 16 {
		t.Errorf("published matrix has %d codes, the contract %d", len(matrix.Codes), len(AgentCodes.Terms))
	}
	for codeName, want := range matrix.Codes {
		row := agentCodeRow(codeName)
		if row == nil {
			t.Errorf("%s missing from the contract", codeName)
			continue
		}
		if !sameSet(row.GetRetries(), want.Retry) {
			t.Errorf("%s retries %v, published %v", codeName, row.GetRetries(), want.Retry)
		}
		if !sameSet(row.GetDetails(), want.Details) {
			t.Errorf("%s details %v, published %v", codeName, row.GetDetails(), want.Details)
		}
		if row.GetCacheable() != want.Cacheable {
			t.Errorf("%s cacheable %v, published %v", codeName, row.GetCacheable(), want.Cacheable)
		}
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// The reference table's facts the seed does not override: spot checks on
// rows a careless edit would break.
func TestReferenceFacts(t *testing.T) {
	cases := []struct {
		kind, origin, action, same string
		http                       int32
	}{
		{"rate_limited", "budget", "retry_later", "conditional", 429},
		{"auth_required", "policy", "reauthenticate", "never", 401},
		{"permission_denied", "policy", "do_not_retry", "never", 403},
		{"content_too_large", "validation", "reduce_work", "never", 413},
		{"bridge_transport_error", "bridge", "start_dependency", "conditional", 503},
		{"cancelled", "runtime", "do_not_retry", "never", 502},
		{"route_not_found", "discovery", "revise_and_retry", "never", 404},
		{"timeout", "upstream_transport", "retry_later", "conditional", 504},
	}
	for _, c := range cases {
		r := kindRow(c.kind)
		if r.GetOrigin() != c.origin || r.GetAction() != c.action || r.GetSameArguments() != c.same || r.GetHttpStatus() != c.http {
			t.Errorf("%s row = %v", c.kind, r)
		}
	}
	overrides := []string{"result_too_large", "response_too_large", "budget_exceeded", "call_budget_exceeded", "authority_changed"}
	for _, k := range overrides {
		if kindRow(k).GetSideEffects() != "possible" {
			t.Errorf("%s side_effects override is not possible", k)
		}
	}
	if got := Wire(errsvcv1.AgentRetry_AGENT_RETRY_AFTER_REFRESH); got != "after-refresh" {
		t.Errorf("Wire(after-refresh) = %q", got)
	}
}
