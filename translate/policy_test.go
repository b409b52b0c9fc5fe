package translate

import (
	"errors"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/internal/secrets"
	"github.com/errsvc/errsvc/translate/provider"
)

func u32(v uint32) *uint32 { return &v }

// fleetPolicy is a real-shaped policy: a self-hosted vLLM, Ollama and TGI
// fleet, an internal service with its own kinds, an override for a
// provider, decisions per tool, default waits and secret formats.
func fleetPolicy(t testing.TB) *Policy {
	t.Helper()
	p, err := NewPolicy(PolicySpec{
		Version: "2026-12-04",
		Providers: []ProviderFamilySpec{
			{
				Name:      "vllm",
				Match:     ProviderMatchSpec{Providers: []string{"vllm-prod"}, BaseURLs: []string{"https://vllm.internal.example/v1"}},
				ReadsLike: "openai",
				Rules: []ProviderRuleSpec{
					{Name: "kv_cache_full", Status: []int32{503}, Phrases: []string{"kv cache"}, Class: "transient", Kind: "provider_unavailable", WaitSecs: u32(5), Limit: &LimitSpec{Kind: "capacity", Scope: "model"}},
					{Name: "context", Status: []int32{400}, Phrases: []string{"maximum context length"}, Class: "context_overflow"},
				},
			},
			{
				Name:  "tgi",
				Match: ProviderMatchSpec{Headers: map[string]string{"x-served-by": "tgi"}},
				Rules: []ProviderRuleSpec{
					{Name: "overloaded", Codes: []string{"overloaded"}, Class: "transient", WaitSecs: u32(2), Limit: &LimitSpec{Kind: "capacity"}},
					{Name: "validation", Codes: []string{"validation"}, Class: "permanent", Kind: "invalid_param"},
				},
			},
		},
		Kinds: []KindSpec{
			{Kind: "gpu_out_of_memory", Meaning: "The model server ran out of GPU memory for this request.", Class: "transient", HTTPStatus: 503, AgentCode: "EXECUTION_FAILED"},
			{Kind: "ledger_locked", Meaning: "The ledger is locked for the period close.", Class: "permanent", HTTPStatus: 409, AgentCode: "INVOCATION_CONFLICT"},
		},
		AgentCodes: []AgentCodeSpec{
			{Code: "GPU_BUSY", Meaning: "A newer Agent Surface's code for a busy accelerator.", SameAs: "EXECUTION_FAILED", Class: "transient", HTTPStatus: 503},
		},
		Overrides: []OverrideSpec{
			{Name: "mistral_429_is_quota", Term: "rate_limit_exceeded", Provider: "mistral", Decide: Decide{Retry: "never"}},
			{Name: "rate_limited_wait_bounds", Term: "rate_limited", Decide: Decide{WaitFloorSecs: u32(10), WaitCeilingSecs: u32(60)}},
		},
		Decisions: []DecisionSpec{
			{Name: "never_retry_delete_repository", Tool: "delete_repository", Decide: Decide{Retry: "never"}},
			{Name: "billing_is_permanent", Service: "billing-*", Decide: Decide{Class: "permanent"}},
		},
		DefaultWaits: &DefaultWaitsSpec{TransientSecs: u32(3), ByKind: map[string]uint32{"gpu_out_of_memory": 20}},
		Secrets: &SecretsSpec{
			Redact: []PatternSpec{{Name: "internal_token", Regex: `itk_[A-Za-z0-9]{32}`}},
			Keep:   []PatternSpec{{Name: "job_id", Regex: `sk-job-[A-Za-z0-9]{24}`}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func policyRequest(t testing.TB, js string) *errsvcv1.TranslateRequest {
	t.Helper()
	req := &errsvcv1.TranslateRequest{}
	if err := protojson.Unmarshal([]byte(js), req); err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return req
}

// policyNotes are the answer's policy_rule notes.
func policyNotes(resp *errsvcv1.TranslateResponse) []string {
	var out []string
	for _, n := range resp.GetNotes() {
		if n.GetCode() == "policy_rule" {
			out = append(out, n.GetMessage())
		}
	}
	return out
}

// agrees checks the one retry decision in every target that carries it.
func agrees(t *testing.T, name string, resp *errsvcv1.TranslateResponse, retry bool) {
	t.Helper()
	class := resp.GetClassification().GetClass()
	if (class == "transient") != retry {
		t.Errorf("%s: class %q, want retry %v", name, class, retry)
	}
	if r := resp.GetAgentError().GetRetry(); retryHint(r) != retry {
		t.Errorf("%s: agent retry %q, want retry %v", name, r, retry)
	}
	if a := resp.GetLabbyError().GetRecovery().GetAction(); (a == "retry_later") != retry && a != "reduce_work" {
		t.Errorf("%s: recovery action %q, want retry %v", name, a, retry)
	}
	if !retry && resp.GetClassification() != nil && resp.GetClassification().RetryAfterSecs != nil {
		t.Errorf("%s: a wait on an answer that is not retried", name)
	}
}

func TestPolicyRulesAreNamedInNotes(t *testing.T) {
	p := fleetPolicy(t)
	cases := []struct {
		name, req  string
		rule       string
		retry      bool
		class      string
		wait       uint32 // 0: none
		limitKind  string
		http       int32
		agentCode  string
		labbyKind  string
		limitScope string
	}{
		{name: "vLLM by name", req: `{"provider_response":{"provider":"vllm-prod","status":503,"body":"{\"object\":\"error\",\"message\":\"KV cache is full, retry later\",\"type\":\"ServiceUnavailableError\",\"code\":503}"}}`,
			rule: "vllm.kv_cache_full", retry: true, class: "transient", wait: 5, limitKind: "capacity", limitScope: "model", labbyKind: "provider_unavailable"},
		{name: "vLLM by base URL", req: `{"provider_response":{"provider":"openai","base_url":"https://vllm.internal.example/v1/chat/completions","status":400,"body":"{\"object\":\"error\",\"message\":\"This model's maximum context length is 8192 tokens\",\"type\":\"BadRequestError\",\"code\":400}"}}`,
			rule: "vllm.context", class: "context_overflow"},
		{name: "TGI by header, overloaded", req: `{"provider_response":{"provider":"tgi","status":429,"headers":{"X-Served-By":"tgi"},"body":"{\"error\":\"Model is overloaded\",\"error_type\":\"overloaded\"}"}}`,
			rule: "tgi.overloaded", retry: true, class: "transient", wait: 2, limitKind: "capacity"},
		{name: "TGI by header, validation", req: `{"provider_response":{"provider":"tgi","status":422,"headers":{"x-served-by":"tgi"},"body":"{\"error\":\"Input validation error: inputs must have less than 1024 tokens\",\"error_type\":\"validation\"}"}}`,
			rule: "tgi.validation", class: "permanent", labbyKind: "invalid_param"},
		{name: "operator kind", req: `{"labby_error":{"kind":"gpu_out_of_memory","message":"CUDA out of memory"}}`,
			rule: "kind.gpu_out_of_memory", retry: true, class: "transient", wait: 20, http: 503, agentCode: "EXECUTION_FAILED"},
		{name: "operator kind, permanent", req: `{"classified_error":{"code":"ledger_locked","class":"permanent"}}`,
			rule: "kind.ledger_locked", class: "permanent", http: 409, agentCode: "INVOCATION_CONFLICT"},
		{name: "operator agent code", req: `{"agent_error":{"code":"GPU_BUSY","message":"accelerator busy","retry":"after-delay"}}`,
			rule: "agent_code.GPU_BUSY", retry: true, class: "transient", wait: 3, http: 503, agentCode: "GPU_BUSY"},
		{name: "override for one provider", req: `{"provider_response":{"provider":"mistral","status":429,"headers":{"retry-after":"30"},"body":"{\"object\":\"error\",\"message\":\"Requests rate limit exceeded\",\"type\":\"rate_limit_exceeded\",\"code\":\"rate_limit_exceeded\"}"}}`,
			rule: "mistral_429_is_quota", class: "permanent"},
		{name: "wait floor", req: `{"labby_error":{"kind":"rate_limited","recovery":{"retry_after_ms":2000}}}`,
			rule: "rate_limited_wait_bounds", retry: true, class: "transient", wait: 10},
		{name: "wait ceiling", req: `{"labby_error":{"kind":"rate_limited","recovery":{"retry_after_ms":600000}}}`,
			rule: "rate_limited_wait_bounds", retry: true, class: "transient", wait: 60},
		{name: "never retry a tool", req: `{"labby_error":{"kind":"provider_timeout"},"context":{"tool":"delete_repository","idempotent":true}}`,
			rule: "never_retry_delete_repository", class: "permanent"},
		{name: "service glob", req: `{"labby_error":{"kind":"provider_unavailable"},"context":{"service":"billing-eu"}}`,
			rule: "billing_is_permanent", class: "permanent"},
		{name: "default wait", req: `{"labby_error":{"kind":"provider_unavailable"}}`,
			rule: "default_waits", retry: true, class: "transient", wait: 3},
	}
	for _, c := range cases {
		req := policyRequest(t, c.req)
		resp, err := p.Translate(req)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		notes := policyNotes(resp)
		named := false
		for _, n := range notes {
			named = named || strings.Contains(n, `"`+c.rule+`"`)
		}
		if !named {
			t.Errorf("%s: no policy_rule note names %q: %q", c.name, c.rule, notes)
		}
		if got := resp.GetClassification().GetClass(); got != c.class {
			t.Errorf("%s: class %q, want %q", c.name, got, c.class)
		}
		agrees(t, c.name, resp, c.retry)
		if w := resp.GetClassification().RetryAfterSecs; (c.wait == 0) != (w == nil) || w != nil && uint32(*w) != c.wait {
			t.Errorf("%s: wait %v, want %d", c.name, w, c.wait)
		}
		if c.limitKind != "" && resp.GetLimit().GetKind() != c.limitKind {
			t.Errorf("%s: limit kind %q, want %q", c.name, resp.GetLimit().GetKind(), c.limitKind)
		}
		if c.limitScope != "" && resp.GetLimit().GetScope() != c.limitScope {
			t.Errorf("%s: limit scope %q, want %q", c.name, resp.GetLimit().GetScope(), c.limitScope)
		}
		if c.http != 0 && resp.GetHttpStatus() != c.http {
			t.Errorf("%s: HTTP %d, want %d", c.name, resp.GetHttpStatus(), c.http)
		}
		if c.agentCode != "" && resp.GetAgentError().GetCode() != c.agentCode {
			t.Errorf("%s: agent code %q, want %q", c.name, resp.GetAgentError().GetCode(), c.agentCode)
		}
		if c.labbyKind != "" && resp.GetLabbyError().GetKind() != c.labbyKind {
			t.Errorf("%s: kind %q, want %q", c.name, resp.GetLabbyError().GetKind(), c.labbyKind)
		}
		// Without the policy the same request is decided otherwise, or the
		// rule would not be needed to pass (a test that cannot fail).
		plain, err := Translate(req)
		if err != nil {
			t.Errorf("%s without the policy: %v", c.name, err)
			continue
		}
		if len(policyNotes(plain)) != 0 {
			t.Errorf("%s: a policy_rule note without a policy", c.name)
		}
		if proto.Equal(stripNotes(plain), stripNotes(resp)) {
			t.Errorf("%s: the policy changed nothing", c.name)
		}
	}
}

func stripNotes(r *errsvcv1.TranslateResponse) *errsvcv1.TranslateResponse {
	c := proto.Clone(r).(*errsvcv1.TranslateResponse)
	c.Notes = nil
	return c
}

// The caller's own override wins over the policy; the policy wins over a
// producer's hint and the built-in rows.
func TestPolicyPrecedence(t *testing.T) {
	p := fleetPolicy(t)
	// The caller's recovery says retry later; the tool's decision says
	// never: the caller decides.
	resp, err := p.Translate(policyRequest(t, `{"labby_error":{"kind":"provider_unavailable","recovery":{"action":"retry_later","same_arguments":"safe"}},"context":{"tool":"delete_repository"}}`))
	if err != nil {
		t.Fatal(err)
	}
	agrees(t, "caller over policy", resp, true)
	// The producer's agent payload says retry "after-delay" for a code the
	// policy never retries in service billing: the policy decides.
	resp, err = p.Translate(policyRequest(t, `{"agent_error":{"code":"CAPABILITY_NOT_AVAILABLE","retry":"after-delay"},"context":{"service":"billing-us"}}`))
	if err != nil {
		t.Fatal(err)
	}
	agrees(t, "policy over producer", resp, false)
	if len(policyNotes(resp)) == 0 {
		t.Error("policy over producer: no policy_rule note")
	}
}

// A secret format the operator names never reaches the answer, whatever
// the field; an id format it keeps passes as it is.
func TestPolicySecretFormats(t *testing.T) {
	p := fleetPolicy(t)
	secret := "itk_" + strings.Repeat("Ab3", 10) + "Zz"
	id := "sk-job-Zx8Qk2Lm9Vb4Tn7Rw1Ys5Pd3"
	for _, js := range []string{
		`{"labby_error":{"kind":"provider_unavailable","message":"upstream said token ` + secret + ` is bad, job ` + id + `"}}`,
		`{"provider_response":{"provider":"vllm-prod","status":500,"body":"{\"object\":\"error\",\"message\":\"auth ` + secret + ` failed for job ` + id + `\",\"type\":\"InternalServerError\",\"code\":500}"}}`,
		`{"mcp_tool_result":{"tool":"search","is_error":true,"content":[{"type":"text","text":"key=` + secret + ` request ` + id + `"}]}}`,
		`{"agent_error":{"code":"EXECUTION_FAILED","message":"x","details":{"note":"` + secret + `"}}}`,
	} {
		req := policyRequest(t, js)
		before := proto.Clone(req)
		resp, err := p.Translate(req)
		if err != nil {
			t.Fatal(err)
		}
		out := protojson.Format(resp)
		if strings.Contains(out, secret) || strings.Contains(out, secret[4:20]) {
			t.Errorf("the operator's secret format reached the answer: %s", out)
		}
		if strings.Contains(js, "job "+id) && !strings.Contains(out, id) {
			t.Errorf("the kept id %s was not kept: %s", id, out)
		}
		if !proto.Equal(req, before) {
			t.Error("the request was modified")
		}
	}
	// Without the policy the secret passes the built-in rules (else the
	// redaction would prove nothing), and the id is redacted by them.
	plain, _ := Translate(policyRequest(t, `{"labby_error":{"kind":"provider_unavailable","message":"upstream said token `+secret+` is bad"}}`))
	if !strings.Contains(protojson.Format(plain), secret) {
		t.Error("the built-in sanitiser redacts this secret shape: the policy's format is not exercised")
	}
	resp, _ := Translate(policyRequest(t, `{"labby_error":{"kind":"provider_unavailable","message":"job `+id+` failed"}}`))
	if strings.Contains(protojson.Format(resp), id) {
		t.Error("the built-in sanitiser keeps this id shape: keep is not exercised")
	}
}

// The nil policy is the built-in matrix, and a policy whose rules do not
// match a request answers it as the built-in matrix does, note for note.
func TestPolicyThatDoesNotMatchChangesNothing(t *testing.T) {
	p := fleetPolicy(t)
	for _, js := range []string{
		`{"labby_error":{"kind":"rate_limited"}}`,
		`{"provider_response":{"provider":"openai","status":429,"headers":{"retry-after":"7"},"body":"{\"error\":{\"message\":\"Rate limit reached\",\"type\":\"requests\",\"code\":\"rate_limit_exceeded\"}}"}}`,
		`{"agent_error":{"code":"NOT_AUTHORIZED","retry":"no"}}`,
		`{"grpc_status":{"code":14,"message":"unavailable"}}`,
		`{"classified_error":{"code":"vault_read_failed","class":"permanent"}}`,
	} {
		req := policyRequest(t, js)
		want, err := Translate(req)
		if err != nil {
			t.Fatal(err)
		}
		got, err := (*Policy)(nil).Translate(req)
		if err != nil || !proto.Equal(got, want) {
			t.Errorf("nil policy differs on %s", js)
		}
		got, err = p.Translate(req)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(js, "rate_limited") || strings.Contains(js, `"code":14`) {
			// rate_limited_wait_bounds and default_waits match these.
			if len(policyNotes(got)) == 0 {
				t.Errorf("%s: no policy_rule note", js)
			}
			continue
		}
		if !proto.Equal(got, want) {
			t.Errorf("a policy that does not match changed %s:\n got %s\nwant %s", js, protojson.Format(got), protojson.Format(want))
		}
	}
}

func TestPolicyErrorsNameThePath(t *testing.T) {
	for _, c := range []struct {
		spec PolicySpec
		path string
		hint string
	}{
		{PolicySpec{Kinds: []KindSpec{{Kind: "gpu_oom", Meaning: "m", Class: "transiant", HTTPStatus: 503, AgentCode: "EXECUTION_FAILED"}}}, "/kinds/0/class", `did you mean "transient"`},
		{PolicySpec{Kinds: []KindSpec{{Kind: "GpuOOM", Meaning: "m", Class: "transient", HTTPStatus: 503, AgentCode: "EXECUTION_FAILED"}}}, "/kinds/0/kind", "snake_case"},
		{PolicySpec{Kinds: []KindSpec{{Kind: "rate_limited", Meaning: "m", Class: "transient", HTTPStatus: 503, AgentCode: "EXECUTION_FAILED"}}}, "/kinds/0/kind", "built-in"},
		{PolicySpec{Providers: []ProviderFamilySpec{{Name: "x", Match: ProviderMatchSpec{Providers: []string{"x"}}, Rules: []ProviderRuleSpec{{Name: "r", Class: "transient", Limit: &LimitSpec{Kind: "rates"}}}}}}, "/providers/0/rules/0/limit/kind", `did you mean "rate"`},
		{PolicySpec{Providers: []ProviderFamilySpec{{Name: "x", Match: ProviderMatchSpec{BaseURLs: []string{"not a url"}}}}}, "/providers/0/match/base_urls/0", "absolute URL"},
		{PolicySpec{Providers: []ProviderFamilySpec{{Name: "x"}}}, "/providers/0/match", "recognised"},
		{PolicySpec{Overrides: []OverrideSpec{{Name: "a", Term: "t", Decide: Decide{Retry: "sometimes"}}}}, "/overrides/0/retry", "never"},
		{PolicySpec{Overrides: []OverrideSpec{{Name: "a", Term: "t", Decide: Decide{Retry: "never"}}}, Decisions: []DecisionSpec{{Name: "a", Tool: "x", Decide: Decide{Retry: "never"}}}}, "/decisions/0", "unique"},
		{PolicySpec{Secrets: &SecretsSpec{Redact: []PatternSpec{{Name: "a", Regex: "x*"}}}}, "/secrets/redact/0/regex", "empty string"},
		{PolicySpec{Secrets: &SecretsSpec{Redact: []PatternSpec{{Name: "a", Regex: "(("}}}}, "/secrets/redact/0/regex", "RE2"},
		{PolicySpec{AgentCodes: []AgentCodeSpec{{Code: "GPU_BUSY", Meaning: "m", SameAs: "CAPABILITY_NOT_AVAILBLE"}}}, "/agent_codes/0/same_as", `did you mean "CAPABILITY_NOT_AVAILABLE"`},
		{PolicySpec{DefaultWaits: &DefaultWaitsSpec{ByKind: map[string]uint32{"rate_limitd": 3}}}, "/default_waits/by_kind/rate_limitd", `did you mean "rate_limited"`},
	} {
		_, err := NewPolicy(c.spec)
		var pe *PolicyError
		if !errors.As(err, &pe) {
			t.Errorf("%s: %v, want a PolicyError", c.path, err)
			continue
		}
		if !strings.HasPrefix(pe.Path, c.path) || !strings.Contains(pe.Description, c.hint) {
			t.Errorf("got %s: %s; want path %s with %q", pe.Path, pe.Description, c.path, c.hint)
		}
	}
}

func TestPolicyCountsMatches(t *testing.T) {
	p := fleetPolicy(t)
	for range 3 {
		if _, err := p.Translate(policyRequest(t, `{"labby_error":{"kind":"gpu_out_of_memory"}}`)); err != nil {
			t.Fatal(err)
		}
	}
	for i, name := range p.Rules() {
		if name == "kind.gpu_out_of_memory" && p.Matches()[i] != 3 {
			t.Errorf("kind.gpu_out_of_memory matched %d times, want 3", p.Matches()[i])
		}
	}
}

// The generated page lists every rule and term of the policy.
func TestPolicyMarkdownListsEveryRule(t *testing.T) {
	p := fleetPolicy(t)
	md := p.Markdown()
	for _, name := range p.Rules() {
		short := strings.TrimPrefix(strings.TrimPrefix(name, "kind."), "agent_code.")
		if name != "default_waits" && !strings.Contains(md, "`"+short+"`") {
			t.Errorf("the page does not list %s", name)
		}
	}
	if !strings.Contains(md, "## Default waits") || !strings.Contains(md, "`job_id` | kept") {
		t.Errorf("the page lacks the waits or the formats:\n%s", md)
	}
}

// A secret in a map key (a header name, a Struct member's name) is
// redacted too.
func TestPolicySecretInAKey(t *testing.T) {
	p := fleetPolicy(t)
	secret := "itk_" + strings.Repeat("Qw9", 10) + "Zz"
	resp, err := p.Translate(policyRequest(t, `{"labby_error":{"kind":"provider_unavailable","detail":{"`+secret+`":"x"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if out := protojson.Format(resp); strings.Contains(out, secret) {
		t.Errorf("a secret key reached the answer: %s", out)
	}
}

// A kind the policy makes known is written with terms of the contract
// only: its defaults are the contract's own.
func TestPolicyKindRowsUseContractTerms(t *testing.T) {
	p := fleetPolicy(t)
	for _, k := range p.Spec().Kinds {
		row := p.kinds[k.Kind].row
		if !Origins.Has(row.GetOrigin()) || !RecoveryActions.Has(row.GetAction()) || !SameArgs.Has(row.GetSameArguments()) || !SideEffects.Has(row.GetSideEffects()) {
			t.Errorf("%s: row %v uses a term outside the contract", k.Kind, row)
		}
	}
}

// The operator's secret formats, by the same positions walk as the
// built-in corpus (every string a request can hold: fields, map keys and
// values, Struct keys and values, content blocks, bodies, headers): a
// planted value never reaches the answer, and the encoding look that
// spares the walk (mayRedact) never misses one. A format with a word
// boundary takes the walk every time.
func TestPolicySecretFormatsInEveryPosition(t *testing.T) {
	for _, regex := range []string{`itk_[A-Za-z0-9]{32}`, `\bitk_[A-Za-z0-9]{32}\b`} {
		p, err := NewPolicy(PolicySpec{Secrets: &SecretsSpec{Redact: []PatternSpec{{Name: "itk", Regex: regex}}}})
		if err != nil {
			t.Fatal(err)
		}
		if p.redactPrefilter == strings.Contains(regex, `\b`) {
			t.Errorf("%s: prefilter %v", regex, p.redactPrefilter)
		}
		secret := "itk_" + strings.Repeat("Rt7", 10) + "Pq"
		positions := secrets.Positions()
		for _, pos := range positions {
			req := pos.Build("upstream said " + secret + " is bad")
			if !p.mayRedact(req) {
				t.Errorf("%s: the encoding look missed the format at %s", regex, pos.Name)
			}
			resp, err := p.Translate(req)
			if err != nil {
				continue
			}
			if path, w, ok := secrets.LeakIn(resp, secret); ok {
				t.Errorf("%s: %q reached %s from %s", regex, w, path, pos.Name)
			}
		}
		t.Logf("%s: %d positions", regex, len(positions))
	}
}

// A family named by a header is found whatever the case of the answer's
// header name, among headers of every length, and only by its value.
func TestPolicyFamilyByHeader(t *testing.T) {
	p := fleetPolicy(t)
	for _, c := range []struct {
		headers map[string]string
		want    bool
	}{
		{map[string]string{"x-served-by": "tgi"}, true},
		{map[string]string{"content-type": "application/json", "X-Served-By": "tgi", "x-request-id": "r1"}, true},
		{map[string]string{"X-SERVED-BY": "tgi"}, true},
		{map[string]string{"x-served-by": "vllm"}, false},
		{map[string]string{"x-served-byx": "tgi", "x-served-b": "tgi"}, false},
		{map[string]string{}, false},
		// RFC 9110 section 5.5: a field value's surrounding blanks are not
		// part of it.
		{map[string]string{"x-served-by": " tgi "}, true},
		{map[string]string{" X-Served-By ": "tgi"}, true},
	} {
		f := p.familyFor(&errsvcv1.ProviderResponse{Headers: c.headers}, provider.FoldHeaders(c.headers))
		if got := f != nil; got != c.want {
			t.Errorf("headers %v: family found %v, want %v", c.headers, got, c.want)
		}
	}
}

// TestPolicyFamilyByHeaderOrder: when an answer carries the headers of two
// families, the family the policy gives first decides, every time, however
// the answer's map is walked.
func TestPolicyFamilyByHeaderOrder(t *testing.T) {
	p, err := NewPolicy(PolicySpec{Providers: []ProviderFamilySpec{
		{Name: "first", ReadsLike: "openai", Match: ProviderMatchSpec{Headers: map[string]string{"x-b": "*"}}},
		{Name: "second", ReadsLike: "openai", Match: ProviderMatchSpec{Headers: map[string]string{"x-a": "*"}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	h := map[string]string{"x-a": "1", "x-b": "1", "x-c": "1", "x-d": "1"}
	for range 50 {
		f := p.familyFor(&errsvcv1.ProviderResponse{Headers: h}, provider.FoldHeaders(h))
		if f == nil || f.spec.Name != "first" {
			t.Fatalf("family %v, want first", f)
		}
	}
}
