package provider

import (
	"encoding/binary"
	"strings"
)

// Structured codes per family. A code names the cause, so it decides before
// any header or status default (the contract's ordering rule). Each table
// maps a code, case-insensitively, to a verdict; a code that is not listed
// decides nothing and the status decides. Codes that only say "bad request"
// (OpenAI's invalid_request_error type) are deliberately absent: OpenAI
// sends that type with 401s and 404s too, so only the status can tell.

// openaiCodes covers error.code and error.type of OpenAI and the
// OpenAI-compatible servers (Azure, Groq, llama.cpp, ...).
var openaiCodes = map[string]verdict{
	// Billing exhaustion: a human must pay; waiting never fixes it. The
	// status-only SDKs retry these 429s.
	"insufficient_quota":         {classPermanent, kindQuotaExceeded, 0},
	"billing_hard_limit_reached": {classPermanent, kindQuotaExceeded, 0},
	"billing_not_active":         {classPermanent, kindQuotaExceeded, 0},
	// A deactivated account is an entitlement problem, not a bad key: it
	// arrives as 401, but a new login will not fix it.
	"account_deactivated": {classPermanent, kindPermissionDenied, 0},
	// Window limits recover by themselves. A request larger than the window
	// never does, so the oversize phrases may still refine these.
	"rate_limit_exceeded": {classTransient, kindRateLimited, refineOversize},
	"tokens":              {classTransient, kindRateLimited, refineOversize},
	"requests":            {classTransient, kindRateLimited, 0},
	"slow_down":           {classTransient, kindRateLimited, 0},
	// Input larger than the model's window.
	"context_length_exceeded":       {classContextOverflow, kindContentTooLarge, 0},
	"string_above_max_length":       {classContextOverflow, kindContentTooLarge, 0},
	"model_context_window_exceeded": {classContextOverflow, kindContentTooLarge, 0},
	"exceed_context_size_error":     {classContextOverflow, kindContentTooLarge, 0},
	// max_tokens above the model's output cap: the input fits, so compacting
	// it does not help; the caller must change the parameter.
	"max_tokens_exceeded": {classPermanent, kindInvalidParam, 0},
	// Credentials.
	"invalid_api_key":        {classAuthRequired, kindAuthFailed, 0},
	"invalid_authentication": {classAuthRequired, kindAuthFailed, 0},
	// Entitlement and target problems.
	"unsupported_country_region_territory": {classPermanent, kindPermissionDenied, 0},
	"model_not_found":                      {classPermanent, kindNotFound, 0},
	"model_decommissioned":                 {classPermanent, kindNotFound, 0},
	"DeploymentNotFound":                   {classPermanent, kindNotFound, 0},
	"invalid_prompt":                       {classPermanent, kindInvalidParam, 0},
	"content_filter":                       {classPermanent, kindInvalidParam, 0},
	"content_policy_violation":             {classPermanent, kindInvalidParam, 0},
	// Provider-side failures.
	"server_error":         {classTransient, kindProviderError, 0},
	"server_is_overloaded": {classTransient, kindProviderUnavailable, 0},
	// Codex's ChatGPT-plan answers: a usage window that resets by itself;
	// a plan without the product, which waiting never fixes; an expired
	// login.
	"usage_limit_reached": {classTransient, kindRateLimited, 0},
	"usage_not_included":  {classPermanent, kindPermissionDenied, 0},
	"token_expired":       {classAuthRequired, kindAuthFailed, 0},
	// Groq's flex tier at capacity (status 498): "try again later".
	"capacity_exceeded": {classTransient, kindProviderUnavailable, 0},
	// OpenRouter's error types (its SDKs' ApiErrorType).
	"payment_required":    {classPermanent, kindQuotaExceeded, 0},
	"provider_overloaded": {classTransient, kindProviderUnavailable, 0},
	// Together: "credit_limit" is money, "model_rate_limit" a window.
	"credit_limit":     {classPermanent, kindQuotaExceeded, 0},
	"model_rate_limit": {classTransient, kindRateLimited, refineOversize},
	// Cerebras: per-minute, per-hour and per-day windows.
	"token_quota_exceeded":   {classTransient, kindRateLimited, refineOversize},
	"request_quota_exceeded": {classTransient, kindRateLimited, 0},
	// Azure's content filter, named in innererror.code.
	"ResponsibleAIPolicyViolation": {classPermanent, kindInvalidParam, 0},
	// Perplexity: the model name is not one it serves.
	"invalid_model": {classPermanent, kindNotFound, 0},
	// Hugging Face TGI's error_type.
	"overloaded":            {classTransient, kindProviderUnavailable, 0},
	"generation":            {classTransient, kindProviderError, 0},
	"incomplete_generation": {classTransient, kindProviderError, 0},
	"validation":            {classPermanent, kindValidationFailed, refineOverflow | refineBilling | refineAuth},
}

// openrouterLimitSources covers OpenRouter's error.metadata.limit_source.
// Its in-flight spending budget frees itself as running requests finish
// (OpenRouter sends Retry-After with it): a window, not exhausted credits,
// though the status is 402.
var openrouterLimitSources = map[string]verdict{
	"openrouter_in_flight_budget": {classTransient, kindRateLimited, 0},
}

// anthropicTypes covers error.type of Anthropic's {"type":"error"} shape.
var anthropicTypes = map[string]verdict{
	// The contract's own refinement: authentication is a credential to
	// re-establish; permission is an entitlement a login cannot fix, so a
	// 403 never invalidates a valid credential.
	"authentication_error": {classAuthRequired, kindAuthFailed, 0},
	"permission_error":     {classPermanent, kindPermissionDenied, refineBilling},
	"rate_limit_error":     {classTransient, kindRateLimited, refineOversize},
	"overloaded_error":     {classTransient, kindProviderUnavailable, 0},
	"api_error":            {classTransient, kindProviderError, 0},
	"timeout_error":        {classTransient, kindProviderTimeout, 0},
	"request_too_large":    {classContextOverflow, kindContentTooLarge, 0},
	// Anthropic reports "prompt is too long" and a too-low credit balance
	// as invalid_request_error; the phrases tell them apart.
	"invalid_request_error": {classPermanent, kindInvalidParam, refineOverflow | refineBilling},
	"not_found_error":       {classPermanent, kindNotFound, 0},
	"billing_error":         {classPermanent, kindQuotaExceeded, 0},
}

// googleQuotaValues covers google.rpc.QuotaFailure quotaValue. A quota of
// zero ("limit: 0", a model without free-tier access) is no window: waiting
// never helps until billing is set up.
var googleQuotaValues = map[string]verdict{
	"0": {classPermanent, kindQuotaExceeded, 0},
}

// googleReasons covers google.rpc.ErrorInfo reason (AIP-193). A reason is
// more specific than the status: Gemini answers a bad key with
// INVALID_ARGUMENT and reason API_KEY_INVALID.
var googleReasons = map[string]verdict{
	"API_KEY_INVALID":                 {classAuthRequired, kindAuthFailed, 0},
	"ACCESS_TOKEN_EXPIRED":            {classAuthRequired, kindAuthFailed, 0},
	"ACCESS_TOKEN_TYPE_UNSUPPORTED":   {classAuthRequired, kindAuthFailed, 0},
	"CREDENTIALS_MISSING":             {classAuthRequired, kindAuthFailed, 0},
	"ACCESS_TOKEN_SCOPE_INSUFFICIENT": {classPermanent, kindPermissionDenied, 0},
	"IAM_PERMISSION_DENIED":           {classPermanent, kindPermissionDenied, 0},
	"SERVICE_DISABLED":                {classPermanent, kindPermissionDenied, 0},
	"CONSUMER_SUSPENDED":              {classPermanent, kindPermissionDenied, 0},
	"API_KEY_SERVICE_BLOCKED":         {classPermanent, kindPermissionDenied, 0},
	"API_KEY_HTTP_REFERRER_BLOCKED":   {classPermanent, kindPermissionDenied, 0},
	"API_KEY_IP_ADDRESS_BLOCKED":      {classPermanent, kindPermissionDenied, 0},
	"BILLING_DISABLED":                {classPermanent, kindQuotaExceeded, 0},
	"RATE_LIMIT_EXCEEDED":             {classTransient, kindRateLimited, 0},
}

// googleStatuses covers google.rpc.Status status (Gemini and Vertex).
var googleStatuses = map[string]verdict{
	// Per-minute and daily quotas are windows: transient (Error Class Contract v1). The
	// message says "check your plan and billing details" even for those,
	// so no phrase may refine it; only QuotaFailure and ErrorInfo can.
	"RESOURCE_EXHAUSTED":  {classTransient, kindRateLimited, 0},
	"UNAUTHENTICATED":     {classAuthRequired, kindAuthFailed, 0},
	"PERMISSION_DENIED":   {classPermanent, kindPermissionDenied, refineBilling},
	"INVALID_ARGUMENT":    {classPermanent, kindInvalidParam, refineOverflow | refineBilling | refineAuth},
	"FAILED_PRECONDITION": {classPermanent, kindInvalidParam, refineOverflow | refineBilling},
	"OUT_OF_RANGE":        {classPermanent, kindInvalidParam, refineOverflow},
	"NOT_FOUND":           {classPermanent, kindNotFound, 0},
	"ALREADY_EXISTS":      {classPermanent, kindConflict, 0},
	"UNIMPLEMENTED":       {classPermanent, kindNotFound, 0},
	"DATA_LOSS":           {classPermanent, kindProviderError, 0},
	"ABORTED":             {classTransient, kindConflict, 0},
	"UNAVAILABLE":         {classTransient, kindServiceUnavailable, 0},
	"INTERNAL":            {classTransient, kindProviderError, 0},
	"DEADLINE_EXCEEDED":   {classTransient, kindProviderTimeout, 0},
	"UNKNOWN":             {classTransient, kindUpstreamError, 0},
	"CANCELLED":           {classTransient, kindUpstreamError, 0},
}

// bedrockErrorTypes covers Bedrock's exception names (x-amzn-ErrorType,
// __type). AWS signs requests, so a bad signature or token is a credential
// problem (auth_required) even when it arrives as 403; AccessDenied is an
// entitlement (model access not granted) and stays permanent.
var bedrockErrorTypes = map[string]verdict{
	"ThrottlingException":      {classTransient, kindRateLimited, 0},
	"TooManyRequestsException": {classTransient, kindRateLimited, 0},
	// "You can resubmit your request later" (Bedrock API reference): a quota
	// window, and the contract's safe default for an undecidable quota.
	"ServiceQuotaExceededException": {classTransient, kindQuotaExceeded, 0},
	"ModelTimeoutException":         {classTransient, kindProviderTimeout, 0},
	"ModelNotReadyException":        {classTransient, kindProviderUnavailable, 0},
	"ServiceUnavailableException":   {classTransient, kindServiceUnavailable, 0},
	"InternalServerException":       {classTransient, kindProviderError, 0},
	"ModelErrorException":           {classTransient, kindProviderError, 0},
	"ModelStreamErrorException":     {classTransient, kindProviderError, 0},
	"AccessDeniedException":         {classPermanent, kindPermissionDenied, refineBilling},
	"ResourceNotFoundException":     {classPermanent, kindNotFound, 0},
	// "Input is too long for requested model." is a ValidationException.
	"ValidationException":                 {classPermanent, kindValidationFailed, refineOverflow | refineBilling},
	"UnrecognizedClientException":         {classAuthRequired, kindAuthFailed, 0},
	"InvalidSignatureException":           {classAuthRequired, kindAuthFailed, 0},
	"ExpiredTokenException":               {classAuthRequired, kindAuthFailed, 0},
	"IncompleteSignatureException":        {classAuthRequired, kindAuthFailed, 0},
	"MissingAuthenticationTokenException": {classAuthRequired, kindAuthFailed, 0},
}

// field names where a rule reads its candidate codes.
type field int

const (
	fieldCode field = iota
	fieldType
	fieldStatus
	fieldReason
	fieldQuotaValue
	fieldErrorType
	fieldLimitSource
)

// values returns the candidates of one field, in body order: a field holds
// one value (one) or, for the repeated google.rpc details, many (many).
func (f field) values(o *errorObject) (one string, many []string) {
	switch f {
	case fieldCode:
		return o.Code, nil
	case fieldType:
		return o.Type, nil
	case fieldStatus:
		return o.Status, nil
	case fieldReason:
		return "", o.Reasons
	case fieldQuotaValue:
		return "", o.QuotaValues
	case fieldErrorType:
		return o.ErrorType, nil
	case fieldLimitSource:
		return o.LimitSource, nil
	}
	return "", nil
}

// repeated says the field holds many values (values' many).
func (f field) repeated() bool { return f == fieldReason || f == fieldQuotaValue }

// codeRule is one lookup: a field of the error object in a table. id
// prefixes Result.Rule, e.g. "openai.code" + ".insufficient_quota".
type codeRule struct {
	id    string
	field field
	table *codeTable
	// isCode says the field's value is the provider's code (Result.Code);
	// a quota value is evidence, not a code.
	isCode bool
	// names are the rule's Result.Rule for each table key, without a
	// prefix and with upstreamPrefix (withNames makes them once, so a
	// classification neither builds them nor looks up the rule).
	names *[2]map[string]string
}

// upstreamPrefix prefixes the rules a relayed upstream error matched.
const upstreamPrefix = "upstream."

// ruleName is Result.Rule for a rule that matched the table key key, with
// prefix "" or upstreamPrefix.
func (r codeRule) ruleName(prefix, key string) string {
	i := 0
	if prefix == upstreamPrefix {
		i = 1
	}
	if r.names != nil {
		if n, ok := r.names[i][key]; ok {
			return n
		}
	}
	return prefix + r.id + "." + key
}

// withNames gives every rule its names.
func withNames(rules map[family][]codeRule) map[family][]codeRule {
	for _, rs := range rules {
		for i := range rs {
			r := &rs[i]
			r.names = new([2]map[string]string)
			for j, prefix := range []string{"", upstreamPrefix} {
				r.names[j] = make(map[string]string, len(r.table.entries))
				for key := range r.table.entries {
					r.names[j][key] = prefix + r.id + "." + key
				}
			}
		}
	}
	return rules
}

// familyRules are each family's lookups, most specific first.
var familyRules = withNames(map[family][]codeRule{
	familyOpenAI: {
		{"openrouter.limit_source", fieldLimitSource, openrouterLimitTable, false, nil},
		{"openai.code", fieldCode, openaiTable, true, nil},
		{"openai.type", fieldType, openaiTable, true, nil},
	},
	familyAnthropic: {
		{"anthropic.type", fieldType, anthropicTable, true, nil},
	},
	familyGoogle: {
		{"gemini.quota_value", fieldQuotaValue, googleQuotaTable, false, nil},
		{"gemini.reason", fieldReason, googleReasonTable, true, nil},
		{"gemini.status", fieldStatus, googleStatusTable, true, nil},
	},
	familyBedrock: {
		{"bedrock.error_type", fieldErrorType, bedrockTable, true, nil},
		{"bedrock.code", fieldCode, bedrockTable, true, nil},
	},
})

// rulesFor returns the lookups for an answer: its family's, then, when the
// body has another family's shape (Claude on Vertex, a gateway relaying
// Bedrock), that shape's. The generic family has only the shape's; a JSON
// error of no particular shape reads as OpenAI's, the de facto standard.
func rulesFor(fam, shape family) []codeRule {
	if int(fam) < len(familyRuleSets) && int(shape) < len(familyRuleSets[fam]) {
		return familyRuleSets[fam][shape]
	}
	return joinRules(fam, shape)
}

func joinRules(fam, shape family) []codeRule {
	if shape == familyGeneric {
		shape = familyOpenAI
	}
	rules := familyRules[fam]
	if shape != fam {
		rules = append(rules[:len(rules):len(rules)], familyRules[shape]...)
	}
	return rules
}

// familyRuleSets are rulesFor's answers, joined once.
var familyRuleSets = func() (sets [len(familyNames)][len(familyNames)][]codeRule) {
	for fam := range sets {
		for shape := range sets[fam] {
			sets[fam][shape] = joinRules(family(fam), family(shape))
		}
	}
	return sets
}()

// codeTable is a table folded for case-insensitive lookup; key is the
// spelling in the source table, which Result.Rule and the docs show.
type codeTable struct {
	entries map[string]verdict
	folded  map[string]string
}

func newCodeTable(entries map[string]verdict) *codeTable {
	t := &codeTable{entries: entries, folded: make(map[string]string, len(entries))}
	for k := range entries {
		t.folded[strings.ToLower(k)] = k
	}
	return t
}

func (t *codeTable) lookup(code string) (verdict, string, bool) {
	code = strings.TrimSpace(code)
	if code == "" {
		return verdict{}, "", false // no table has an empty key (TestTablesFoldUniquely)
	}
	var (
		buf [64]byte
		k   string
		ok  bool
	)
	// m[string(b)] copies nothing: an ASCII code is folded on the stack;
	// anything else by strings.ToLower, which knows Unicode.
	if lower, fits := appendASCIILower(buf[:0], code); fits {
		k, ok = t.folded[string(lower)]
	} else {
		k, ok = t.folded[strings.ToLower(code)]
	}
	if !ok {
		return verdict{}, "", false
	}
	return t.entries[k], k, true
}

// appendASCIILower appends s lower-cased to dst when s is ASCII and fits
// dst's capacity; fits is false otherwise, and dst is then of no use.
func appendASCIILower(dst []byte, s string) (_ []byte, fits bool) {
	if len(s) > cap(dst)-len(dst) {
		return dst, false
	}
	n := len(dst)
	out := dst[n : n+len(s)]
	i := 0
	// Eight bytes at a time: a high bit anywhere means not ASCII; in each
	// ASCII byte, A-Z (and only they) get 0x20 added.
	for ; i+8 <= len(s); i += 8 {
		x := binary.LittleEndian.Uint64([]byte(s[i : i+8]))
		if x&0x8080808080808080 != 0 {
			return dst, false
		}
		// Per byte, bit 7 of a is set for c >= 'A', of b for c > 'Z'.
		a := x + 0x3f3f3f3f3f3f3f3f // 0x80 - 'A'
		b := x + 0x2525252525252525 // 0x80 - 'Z' - 1
		upper := (a &^ b) & 0x8080808080808080
		binary.LittleEndian.PutUint64(out[i:], x|upper>>2)
	}
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 0x80:
			return dst, false
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		}
		out[i] = c
	}
	return dst[:n+len(s)], true
}

var (
	openaiTable          = newCodeTable(openaiCodes)
	anthropicTable       = newCodeTable(anthropicTypes)
	googleQuotaTable     = newCodeTable(googleQuotaValues)
	googleReasonTable    = newCodeTable(googleReasons)
	googleStatusTable    = newCodeTable(googleStatuses)
	bedrockTable         = newCodeTable(bedrockErrorTypes)
	openrouterLimitTable = newCodeTable(openrouterLimitSources)
)
