package provider

import "strings"

// family is a provider family: the set of providers that answer errors in
// the same shapes and whose waits come from the same sources.
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

// providerFamilies maps Answer.Provider (lower-cased, trimmed) to its family.
// OpenAI-compatible servers answer in OpenAI's error shapes and are read by
// OpenAI-family clients (Codex among them), so they share OpenAI's codes and
// its wait sources. Anything not listed is generic.
var providerFamilies = map[string]family{
	"openai":     familyOpenAI,
	"azure":      familyOpenAI,
	"azure_ai":   familyOpenAI,
	"groq":       familyOpenAI,
	"together":   familyOpenAI,
	"openrouter": familyOpenAI,
	"mistral":    familyOpenAI,
	"deepseek":   familyOpenAI,
	"xai":        familyOpenAI,
	"vllm":       familyOpenAI,
	"ollama":     familyOpenAI,
	"fireworks":  familyOpenAI,
	"perplexity": familyOpenAI,
	"cerebras":   familyOpenAI,
	"llamacpp":   familyOpenAI,
	"lmstudio":   familyOpenAI,

	"anthropic": familyAnthropic,

	"gemini":    familyGoogle,
	"vertex":    familyGoogle,
	"vertex_ai": familyGoogle,
	"google":    familyGoogle,

	"bedrock":     familyBedrock,
	"aws_bedrock": familyBedrock,
}

// familyOf reads Answer.Provider case-insensitively.
func familyOf(provider string) family {
	return providerFamilies[strings.ToLower(strings.TrimSpace(provider))]
}
