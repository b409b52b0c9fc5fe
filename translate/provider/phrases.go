package provider

import (
	"bytes"
	"strings"
)

// Message phrases refine a verdict, never start one: they apply only where
// a status default or a generic code (invalid_request_error,
// INVALID_ARGUMENT, ValidationException) left the cause open, and only when
// that verdict allows it (verdict.refine). Matching is case-insensitive on
// the message plus any provider detail text. Phrases marked weak also show
// up in window rate-limit messages, so they are ignored when the verdict is
// transient and the text speaks of a window (windowPhrases): the costs are
// asymmetric, and a window limit read as permanent kills a healthy model.
type phrase struct {
	id   string // Result.Rule is "phrase." + id
	text string // lower case
	weak bool
}

// overflowPhrases mean the input exceeds the model's window. Most are the
// substrings LiteLLM and its users match (LiteLLM has no code to go by), the
// rest the messages the providers send without a code.
var overflowPhrases = []phrase{
	{"context_length_exceeded", "context_length_exceeded", false},
	{"model_context_window_exceeded", "model_context_window_exceeded", false},
	{"context_window_exceeded", "contextwindowexceeded", false}, // LiteLLM's exception name
	{"maximum_context", "maximum context", false},               // OpenAI, vLLM, Mistral
	{"context_length", "context length", false},
	{"context_window", "context window", false},
	{"context_limit", "context limit", false},        // Anthropic: "exceed context limit"
	{"prompt_too_long", "prompt is too long", false}, // Anthropic
	{"input_too_long", "input is too long", false},   // Bedrock
	{"reduce_length", "reduce the length of the messages", false},
	{"available_context_size", "exceeds the available context size", false}, // llama.cpp
	{"maximum_prompt_length", "maximum prompt length", false},               // xAI
	{"string_max_length", "expected a string with maximum length", false},   // OpenAI string_above_max_length
	{"input_token_count", "input token count", false},                       // Vertex
	{"max_new_tokens", "`max_new_tokens` must be", false},                   // TGI, Together
	{"inputs_must_have_less_than", "`inputs` must have less than", false},   // TGI
	{"maximum_model_length", "maximum model length", false},                 // vLLM: "decoder prompt (length N) is longer than the maximum model length"
	{"max_model_len", "max_model_len", false},                               // vLLM
	{"too_large_for_model", "too large for model", false},                   // Mistral
	{"maximum_input_length", "maximum input length", false},                 // DeepInfra, TGI
	{"maximum_number_of_tokens", "maximum number of tokens", true},
	{"input_tokens_exceed", "input tokens exceed", true},
	{"too_many_tokens", "too many tokens", true}, // also Bedrock's throttling text
	{"token_limit", "token limit", true},
	{"input_length", "input length", true},
}

// notOverflowPhrases are about the output budget, not the input: lowering
// max_tokens fixes them, compacting the input does not.
var notOverflowPhrases = []phrase{
	{"output_tokens", "output token", false},
	{"completion_tokens", "completion token", false},
	{"max_tokens_too_large", "max_tokens is too large", false},
}

// oversizePhrases mean the request alone exceeds a rate-limit window, so
// waiting for the window never helps (OpenAI's and Groq's "Request too
// large for <model> ... on tokens per min").
var oversizePhrases = []phrase{
	{"request_too_large_for_window", "request too large for", false},
	{"must_be_reduced", "must be reduced in order to run successfully", false},
	{"reduce_message_size", "please reduce your message size", false},
}

// authPhrases mean the credential itself failed, said in words where the
// status names no cause: xAI answers a bad key with 400, gateways wrap a
// provider's credential failure in a 400 or 500, a local AWS SDK reports a
// missing credential as text. Bare "token" and "unauthorized" are absent:
// token counts are everywhere, and "unauthorized" also names entitlement
// refusals, which a login cannot fix.
var authPhrases = []phrase{
	{"unable_to_locate_credentials", "unable to locate credentials", false}, // botocore: SageMaker, Bedrock
	{"incorrect_api_key", "incorrect api key provided", false},              // OpenAI, xAI
	{"invalid_api_key", "invalid api key", false},
	{"invalid_api_key", "invalid x-api-key", false},                                        // Anthropic
	{"api_key_not_valid", "api key not valid", false},                                      // Google
	{"no_api_key", "no api key provided", false},                                           // Cohere
	{"no_api_key", "didn't provide an api key", false},                                     // OpenAI
	{"invalid_api_token", "invalid api token", false},                                      // Cohere
	{"missing_api_token", "bad or missing api token", false},                               // AI21
	{"security_token_invalid", "security token included in the request is invalid", false}, // AWS
	{"security_token_expired", "security token included in the request is expired", false}, // AWS
	{"token_seems_invalid", "the token seems invalid", false},                              // Hugging Face
	{"invalid_username_or_password", "invalid username or password", false},                // Hugging Face
	{"invalid_credentials", "invalid credentials in authorization header", false},          // Hugging Face
	{"invalid_authentication", "invalid authentication credentials", false},
}

// billingPhrases mean money, not time, is exhausted. Bare "billing" and
// "quota" are deliberately absent: OpenAI's window rate-limit message links
// account/billing, and Gemini's per-minute quota message says "check your
// plan and billing details".
var billingPhrases = []phrase{
	{"insufficient_quota", "insufficient_quota", false},
	{"billing_hard_limit", "billing_hard_limit", false},
	{"billing_hard_limit", "billing hard limit", false},
	{"credit_balance_too_low", "credit balance is too low", false},
	{"payment_required", "payment required", false},
	{"insufficient_balance", "insufficient balance", false}, // DeepSeek
	{"insufficient_credits", "insufficient credits", false}, // OpenRouter
	{"requires_more_credits", "requires more credits", false},
	{"purchase_more_credits", "purchase more credits", false}, // xAI
	{"used_all_credits", "used all available credits", false}, // xAI
	{"spending_limit", "spending limit", false},
	{"enable_billing", "enable billing", false}, // Google
	{"billing_to_be_enabled", "billing to be enabled", false},
	{"payment_instrument", "payment instrument", false},       // AWS Marketplace
	{"credit_limit_exceeded", "credit limit exceeded", false}, // Together
	{"out_of_credits", "out of credits", false},
	{"no_credits_yet", "have any credits", false},                   // xAI: "doesn't have any credits yet"
	{"monthly_included_credits", "monthly included credits", false}, // Hugging Face
	{"exceeded_current_quota", "exceeded your current quota", true},
	{"check_plan_and_billing", "check your plan and billing details", true},
}

// windowPhrases speak of a window that recovers by itself. "RateLimitError"
// and "429" are deliberately absent: LiteLLM prefixes billing exhaustion
// with both (its issue #32785).
var windowPhrases = []phrase{
	{"rate_limit", "rate limit", false},
	{"rate_limit", "rate-limit", false},
	{"per_minute", "per minute", false},
	{"per_minute", "per min", false},
	{"per_hour", "per hour", false},
	{"per_day", "per day", false},
	{"tokens_per", "tokens per", false},
	{"requests_per", "requests per", false},
	{"try_again_in", "try again in", false},
	{"retry_in", "retry in", false},
	{"retry_after", "retry after", false},
	{"please_wait", "please wait", false},
	{"resource_exhausted", "resource_exhausted", false},
	{"resource_exhausted", "resource exhausted", false},
	{"throttl", "throttl", false},
}

// match returns the first phrase of table found in lower-cased text,
// skipping weak phrases when weakOK is false. grams are text's (a phrase
// whose first or last three bytes are not among them is not in text, so
// most phrases cost no search).
//
// What the trigram filter (here, in index and lower's fill) earns (issue
// 42's rule), with a provider answer as a fifth of the calls
// (ERRSVC_BENCH_PROVIDER_MIX=1): turned off, gRPC Translate cold (a) ran
// 0.1% and 1.3% slower at 16 and 64 callers, REST (c) 1.1% slower and 3.3%
// faster (bench/ab.sh, 3 interleaved rounds, 2026-12-05): noise. It stays
// on the provider's core goal: BenchmarkTranslate/provider 3.56 µs with
// it, 3.82 without (medians of 5 interleaved).
func match(grams *gramSet, text []byte, set *phraseSet, weakOK bool) (phrase, bool) {
	if !set.all && !grams.meets(&set.first) {
		return phrase{}, false // no phrase of the table starts anywhere in text
	}
	for i, p := range set.phrases {
		if (weakOK || !p.weak) && grams.hasAll(set.grams[i]) && containsString(text, p.text) {
			return p, true
		}
	}
	return phrase{}, false
}

// refine applies, to the lowered text, the phrase tables a verdict allows, in order: oversize,
// overflow, credentials, billing. It returns the refined verdict and its rule, or ok
// false when no phrase applied.
func refine(v verdict, low *lowered) (verdict, string, bool) {
	if v.refine == 0 || len(low.b) == 0 {
		return v, "", false
	}
	lt, g := low.b, low.g
	if v.refine&(refineOversize|refineOverflow) != 0 {
		if p, ok := match(&g, lt, oversizeSet, true); ok {
			return verdict{classContextOverflow, kindContentTooLarge, 0}, "phrase." + p.id, true
		}
	}
	_, window := match(&g, lt, windowSet, true)
	weakOK := v.class != classTransient || !window
	if v.refine&refineOverflow != 0 {
		if p, ok := match(&g, lt, overflowSet, weakOK); ok {
			if _, excluded := match(&g, lt, notOverflowSet, true); !excluded {
				return verdict{classContextOverflow, kindContentTooLarge, 0}, "phrase." + p.id, true
			}
		}
	}
	if v.refine&refineAuth != 0 {
		if p, ok := match(&g, lt, authSet, true); ok {
			return verdict{classAuthRequired, kindAuthFailed, 0}, "phrase." + p.id, true
		}
	}
	if v.refine&refineBilling != 0 {
		if p, ok := match(&g, lt, billingSet, weakOK); ok {
			return verdict{classPermanent, kindQuotaExceeded, 0}, "phrase." + p.id, true
		}
	}
	return v, "", false
}

// lowered is the classifier's text (scanText) in lower case with its
// trigrams, made once per answer: the phrase rules (refine) and the limit
// facet (readLimit) both read it, and each used to lower it again.
type lowered struct {
	b []byte
	g gramSet
}

// lower lowers text into buf when text is ASCII and fits (lowerBytes).
func lower(buf []byte, text string) lowered {
	l := lowered{b: lowerBytes(buf, text)}
	l.g.fill(l.b)
	return l
}

// contains is strings.Contains(lower, p) for a lower-case p: a p whose
// first or last trigram the text lacks costs no search.
func (l *lowered) contains(p string) bool {
	return l.index(p) >= 0
}

// index is strings.Index(lower, p) for a lower-case p, filtered as
// contains is.
func (l *lowered) index(p string) int {
	if n := len(p); n >= 3 && (!l.g.has(p[0], p[1], p[2]) || !l.g.has(p[n-3], p[n-2], p[n-1])) {
		return -1
	}
	return indexString(l.b, p)
}

// containsAny says the text contains one of ps (lower case).
func (l *lowered) containsAny(ps ...string) bool {
	for _, p := range ps {
		if l.contains(p) {
			return true
		}
	}
	return false
}

// lowerBytes is strings.ToLower(text) as bytes, lowered into buf when text
// is ASCII and fits, so the common message costs no allocation.
func lowerBytes(buf []byte, text string) []byte {
	if b, ok := appendASCIILower(buf, text); ok {
		return b
	}
	return []byte(strings.ToLower(text))
}

// containsString is strings.Contains for text held in bytes (the phrases
// are few per text once the trigrams have filtered them).
func containsString(text []byte, s string) bool {
	return indexString(text, s) >= 0
}

// indexString is strings.Index for text held in bytes.
func indexString(text []byte, s string) int {
	if len(s) == 0 {
		return 0
	}
	for i := 0; len(text)-i >= len(s); {
		j := bytes.IndexByte(text[i:len(text)-len(s)+1], s[0])
		if j < 0 {
			return -1
		}
		i += j
		if string(text[i:i+len(s)]) == s {
			return i
		}
		i++
	}
	return -1
}

// gramSet is a 1024-bit set of hashed byte trigrams of a text: a
// substring's trigrams are all in its text's set, so a phrase whose first
// or last trigram is missing cannot occur (there are false positives,
// never false negatives).
type gramSet [16]uint64

func gramHash(a, b, c byte) uint {
	return (uint(a)*961 + uint(b)*31 + uint(c)) & 1023
}

// fill adds s's trigrams, keeping the two bytes before each in registers
// (one load and no bounds check per trigram).
func (g *gramSet) fill(s []byte) {
	if len(s) < 3 {
		return
	}
	a, b := s[0], s[1]
	for i := 2; i < len(s); i++ {
		c := s[i]
		h := gramHash(a, b, c)
		g[h>>6] |= 1 << (h & 63)
		a, b = b, c
	}
}

func (g *gramSet) has(a, b, c byte) bool {
	h := gramHash(a, b, c)
	return g[h>>6]&(1<<(h&63)) != 0
}

// meets reports whether g and o share a trigram.
func (g *gramSet) meets(o *gramSet) bool {
	var any uint64
	for i := range g {
		any |= g[i] & o[i]
	}
	return any != 0
}

// phraseSet is a phrase table with the set of its phrases' first
// trigrams: a text that holds none of them holds no phrase of the table.
type phraseSet struct {
	phrases []phrase
	first   gramSet
	// all: a phrase shorter than three bytes, which any text may hold.
	all bool
	// grams are four of each phrase's trigram hashes, its first, its last
	// and two spread between (gramAny for a phrase shorter than three
	// bytes): a text that holds the first and last words of "request too
	// large for" mostly lacks the middle ones, and then costs no search.
	grams [][4]uint16
}

// gramAny marks a phrase too short to filter.
const gramAny = 0xffff

// hasAll reports whether all of a phrase's trigrams are in g.
func (g *gramSet) hasAll(h [4]uint16) bool {
	if h[0] == gramAny {
		return true
	}
	return g[h[0]>>6]&(1<<(h[0]&63)) != 0 && g[h[1]>>6]&(1<<(h[1]&63)) != 0 &&
		g[h[2]>>6]&(1<<(h[2]&63)) != 0 && g[h[3]>>6]&(1<<(h[3]&63)) != 0
}

func newPhraseSet(table []phrase) *phraseSet {
	ps := &phraseSet{phrases: table, grams: make([][4]uint16, len(table))}
	for i, p := range table {
		if len(p.text) < 3 {
			ps.all = true
			ps.grams[i] = [4]uint16{gramAny, gramAny, gramAny, gramAny}
			continue
		}
		last := len(p.text) - 3
		for j, at := range [4]int{0, last / 3, 2 * last / 3, last} {
			ps.grams[i][j] = uint16(gramHash(p.text[at], p.text[at+1], p.text[at+2]))
		}
		h := gramHash(p.text[0], p.text[1], p.text[2])
		ps.first[h>>6] |= 1 << (h & 63)
	}
	return ps
}

var (
	overflowSet    = newPhraseSet(overflowPhrases)
	notOverflowSet = newPhraseSet(notOverflowPhrases)
	oversizeSet    = newPhraseSet(oversizePhrases)
	authSet        = newPhraseSet(authPhrases)
	billingSet     = newPhraseSet(billingPhrases)
	windowSet      = newPhraseSet(windowPhrases)
)
