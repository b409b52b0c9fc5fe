package provider

import "strings"

// family is a provider family: the set of providers that answer errors in
// the same shapes and share one set of code tables.
type family int

const (
	familyGeneric family = iota
	familyOpenAI
	familyAnthropic
	familyGoogle
	familyBedrock
)

// familyNames are the names the docs and the fixtures use.
var familyNames = [...]string{
	familyGeneric:   "generic",
	familyOpenAI:    "openai",
	familyAnthropic: "anthropic",
	familyGoogle:    "gemini/vertex",
	familyBedrock:   "bedrock",
}

func (f family) String() string { return familyNames[f] }

// profile is what errsvc knows about one provider value: its family (which
// code tables read its body), where its waits come from, and the statuses
// it gives a meaning of its own.
type profile struct {
	fam family
	// waits are the wait sources in order; nil means the family's.
	waits []waitSource
	// statuses are provider-specific status defaults, consulted before the
	// generic ones (Groq's 498 is capacity, Cohere's is a bad token).
	statuses map[int]verdict
	// doc says, for docs/PROVIDERS.md, why the profile departs from its
	// family; "" when it does not.
	doc string
}

// The wait lists that several profiles share.
var (
	// codexWaits are what Codex reads (Error Class Contract: the OpenAI Responses and
	// ChatGPT families): Retry-After as whole seconds or an HTTP date, and
	// its own "try again in" pattern; never retry-after-ms.
	codexWaits = []waitSource{srcRetryAfterWhole, srcCodexText}
	// sdkWaits are what the OpenAI and Anthropic SDKs read, then the hint
	// in the message: for servers whose clients are those SDKs and whose
	// messages say how long to wait.
	sdkWaits = []waitSource{srcRetryAfterMs, srcRetryAfter, srcBodyText}
)

// providers maps Answer.Provider (lower-cased, trimmed) to its profile.
// OpenAI-compatible servers answer in OpenAI's error shapes, so they share
// OpenAI's code tables. Anything not listed is generic.
var providers = map[string]profile{
	"openai":           {fam: familyOpenAI},
	"openai_responses": {fam: familyOpenAI},
	"chatgpt":          {fam: familyOpenAI},
	"codex":            {fam: familyOpenAI},
	"azure": {fam: familyOpenAI, waits: sdkWaits,
		doc: "Azure sends retry-after-ms and Retry-After, and its message repeats the wait (\"Please retry after 30 seconds\"); its clients are the OpenAI SDKs, which read retry-after-ms first."},
	"azure_ai": {fam: familyOpenAI, waits: sdkWaits, doc: "as azure"},
	"groq": {fam: familyOpenAI, waits: []waitSource{srcRetryAfter, srcBodyText},
		statuses: map[int]verdict{498: {classTransient, kindProviderUnavailable, 0}},
		doc:      "498 is Groq's flex-tier capacity_exceeded (\"try again later\"): transient. Its daily limits say \"try again in 19m6.24s\", a Go duration Codex's pattern cannot read."},
	"together":    {fam: familyOpenAI},
	"openrouter":  {fam: familyOpenAI},
	"mistral":     {fam: familyOpenAI},
	"deepseek":    {fam: familyOpenAI},
	"xai":         {fam: familyOpenAI},
	"vllm":        {fam: familyOpenAI},
	"sglang":      {fam: familyOpenAI},
	"ollama":      {fam: familyOpenAI},
	"fireworks":   {fam: familyOpenAI},
	"deepinfra":   {fam: familyOpenAI},
	"perplexity":  {fam: familyOpenAI},
	"cerebras":    {fam: familyOpenAI},
	"llamacpp":    {fam: familyOpenAI},
	"lmstudio":    {fam: familyOpenAI},
	"lm_studio":   {fam: familyOpenAI},
	"tgi":         {fam: familyOpenAI},
	"huggingface": {fam: familyOpenAI},

	"anthropic": {fam: familyAnthropic},

	"gemini":    {fam: familyGoogle},
	"vertex":    {fam: familyGoogle},
	"vertex_ai": {fam: familyGoogle},
	"google":    {fam: familyGoogle},

	"bedrock":     {fam: familyBedrock},
	"aws_bedrock": {fam: familyBedrock},
	"sagemaker":   {fam: familyBedrock},

	"cohere": {fam: familyGeneric,
		statuses: map[int]verdict{498: {classAuthRequired, kindAuthFailed, 0}},
		doc:      "Cohere answers an invalid API token with 498."},
}

// profileOf reads Answer.Provider case-insensitively.
func profileOf(provider string) profile {
	return providers[strings.ToLower(strings.TrimSpace(provider))]
}

// familyOf is the family of Answer.Provider.
func familyOf(provider string) family { return profileOf(provider).fam }

// waitList is the profile's wait sources.
func (p profile) waitList() []waitSource {
	if p.waits != nil {
		return p.waits
	}
	return waitSources[p.fam]
}
