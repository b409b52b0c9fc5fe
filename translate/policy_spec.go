package translate

// PolicySpec is an operator policy as its file says it: the operator's own
// provider families, Labby kinds and agent codes, overrides per source
// term, decisions per service or tool, default waits and secret formats.
// The policy package reads it from YAML or JSON and validates it against
// the published JSON Schema (policy/schema.json); NewPolicy compiles it.
// docs/POLICY.md documents every field.
//
// Precedence is defined once (docs/POLICY.md, "Who decides"): the caller's
// override (a Labby envelope's own recovery action), then the policy, then
// the built-in matrix. Every decision a policy rule made is recorded in a
// policy_rule note naming the rule.
type PolicySpec struct {
	// Version is the operator's label for this policy (a date, a git
	// revision): served in the policy_info metric and in each rule's note.
	Version string `json:"version,omitempty"`
	// Providers are provider families errsvc does not know, or known ones
	// the operator reads differently, matched on a provider_response.
	Providers []ProviderFamilySpec `json:"providers,omitempty"`
	// Kinds are Labby kinds made known: read as a source (labby_error.kind,
	// classified_error.code, a provider rule's kind), each follows its row
	// here as a built-in kind follows the matrix's.
	Kinds []KindSpec `json:"kinds,omitempty"`
	// AgentCodes are agent error codes outside the Agent Surface's
	// sixteen, made known: each reads as the built-in code it is like.
	AgentCodes []AgentCodeSpec `json:"agent_codes,omitempty"`
	// Overrides change the decision for one source term.
	Overrides []OverrideSpec `json:"overrides,omitempty"`
	// Decisions change the decision for a service or a tool (the request
	// context's service and tool, or the MCP tool result's tool).
	Decisions []DecisionSpec `json:"decisions,omitempty"`
	// DefaultWaits are the waits given to a transient error whose source
	// gave none.
	DefaultWaits *DefaultWaitsSpec `json:"default_waits,omitempty"`
	// Secrets are formats the sanitiser redacts beyond its own, and id
	// formats it leaves alone.
	Secrets *SecretsSpec `json:"secrets,omitempty"`
}

// ProviderFamilySpec is one provider family: how an answer is recognised
// as its, and the rules that read its errors.
type ProviderFamilySpec struct {
	// Name names the family in notes, the provider detail's rule
	// ("policy:NAME.RULE") and the rules-matched metric.
	Name  string            `json:"name"`
	Match ProviderMatchSpec `json:"match"`
	// ReadsLike is a built-in provider whose answers this family's share
	// in shape (its error body, its wait and limit headers), e.g. "openai"
	// for an OpenAI-compatible server; "" reads it as an unknown provider.
	ReadsLike string `json:"reads_like,omitempty"`
	// Rules are tried in order; the first that matches decides. An answer
	// no rule matches is read as ReadsLike's (or an unknown provider's).
	Rules []ProviderRuleSpec `json:"rules,omitempty"`
}

// ProviderMatchSpec recognises a family's answers: any one entry matching
// is enough.
type ProviderMatchSpec struct {
	// Providers are provider_response.provider values, compared without case.
	Providers []string `json:"providers,omitempty"`
	// BaseURLs are prefixes of provider_response.base_url.
	BaseURLs []string `json:"base_urls,omitempty"`
	// Headers are response header names (without case) and the value each
	// must have, exactly (without surrounding blanks, RFC 9110 section 5.5);
	// "*" matches any value. When an answer carries the headers of two
	// families, the family given first decides.
	Headers map[string]string `json:"headers,omitempty"`
}

// ProviderRuleSpec reads one sort of error of a family. Every condition
// given must hold; a rule with none matches every error of the family.
type ProviderRuleSpec struct {
	Name string `json:"name"`
	// Status are HTTP statuses (a 2xx answer's in-band error code counts).
	Status []int32 `json:"status,omitempty"`
	// Codes are the error's code or type, exactly as the body says it.
	Codes []string `json:"codes,omitempty"`
	// Phrases are texts the error message contains, compared without case.
	Phrases []string `json:"phrases,omitempty"`
	// Class is the Error Class Contract class the rule gives.
	Class string `json:"class"`
	// Kind is the Labby kind the rule gives (a built-in kind, or one of
	// Kinds); "" keeps what the built-in reading found.
	Kind string `json:"kind,omitempty"`
	// WaitSecs is the wait when the answer carries none (transient only).
	WaitSecs *uint32 `json:"wait_secs,omitempty"`
	// Limit is the limit facet the rule gives.
	Limit *LimitSpec `json:"limit,omitempty"`
}

// LimitSpec is a limit facet a policy rule gives (the Limit message's
// kind, dimension and scope, as wire terms). Its decision is not said
// here: it follows the one retry decision and the kind, as every facet's
// does, so a policy cannot make the facet disagree with the class.
type LimitSpec struct {
	Kind      string `json:"kind"`
	Dimension string `json:"dimension,omitempty"`
	Scope     string `json:"scope,omitempty"`
}

// KindSpec makes a Labby kind known. Origin defaults to the catch-all's
// (runtime), action and same_arguments to the class's own recovery.
type KindSpec struct {
	Kind       string `json:"kind"`
	Meaning    string `json:"meaning"`
	Class      string `json:"class"`
	HTTPStatus int32  `json:"http_status"`
	// AgentCode is the Agent Surface code the kind projects to (one of
	// the sixteen).
	AgentCode     string `json:"agent_code"`
	Origin        string `json:"origin,omitempty"`
	Action        string `json:"action,omitempty"`
	SameArguments string `json:"same_arguments,omitempty"`
}

// AgentCodeSpec makes an agent error code known: read as a source, it
// passes through verbatim and decides as SameAs, the built-in code it is
// like, with Class and HTTPStatus when given.
type AgentCodeSpec struct {
	Code       string `json:"code"`
	Meaning    string `json:"meaning"`
	SameAs     string `json:"same_as"`
	Class      string `json:"class,omitempty"`
	HTTPStatus int32  `json:"http_status,omitempty"`
}

// OverrideSpec changes the decision for one source term: a Labby kind, an
// agent code, a classified code, a provider's code, a gRPC code name or a
// JSON-RPC error name (the term the answer's original_term carries).
type OverrideSpec struct {
	Name string `json:"name"`
	Term string `json:"term"`
	// Provider, when given, limits the override to provider answers of
	// that provider (or policy family).
	Provider string `json:"provider,omitempty"`
	Decide
}

// DecisionSpec changes the decision for a service or a tool; both given,
// both must match. A trailing "*" matches any suffix.
type DecisionSpec struct {
	Name    string `json:"name"`
	Service string `json:"service,omitempty"`
	Tool    string `json:"tool,omitempty"`
	Decide
}

// Decide is what an override or a decision rule says; each field is
// optional.
type Decide struct {
	// Class replaces the class.
	Class string `json:"class,omitempty"`
	// Retry is "never" (the error is not retried: class permanent unless
	// it already is not transient) or "retry" (class transient).
	Retry string `json:"retry,omitempty"`
	// WaitFloorSecs and WaitCeilingSecs bound a transient error's wait;
	// a floor gives a wait to an error that had none.
	WaitFloorSecs   *uint32 `json:"wait_floor_secs,omitempty"`
	WaitCeilingSecs *uint32 `json:"wait_ceiling_secs,omitempty"`
}

// DefaultWaitsSpec gives a transient error without a wait one.
type DefaultWaitsSpec struct {
	// TransientSecs is the wait of any transient error without one.
	TransientSecs *uint32 `json:"transient_secs,omitempty"`
	// ByKind is the wait per Labby kind, over TransientSecs.
	ByKind map[string]uint32 `json:"by_kind,omitempty"`
}

// SecretsSpec extends the sanitiser.
type SecretsSpec struct {
	// Redact are formats redacted in every text the answer carries.
	Redact []PatternSpec `json:"redact,omitempty"`
	// Keep are id formats left alone even where the sanitiser's own
	// rules would redact them (an internal request id that looks random).
	Keep []PatternSpec `json:"keep,omitempty"`
}

// PatternSpec is a named RE2 regular expression.
type PatternSpec struct {
	Name  string `json:"name"`
	Regex string `json:"regex"`
}
