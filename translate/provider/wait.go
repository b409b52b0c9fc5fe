package provider

import (
	"errors"
	"math"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// MaxRetryAfterSecs is the longest wait RetryAfterSecs carries: the largest
// whole number of seconds whose milliseconds still fit the envelope's
// retry_after_ms (a uint32), about 49 days. It is a bound of the wire, not
// a policy: the Error Class Contract says a longer producer value wins and
// leaves capping to the consumer, so a 5-hour window or a daily cap comes
// through as the provider said it. A value above the bound is clamped and
// Result.WaitClamped says so.
const MaxRetryAfterSecs = math.MaxUint32 / 1000

// LongWaitSecs is where a wait counts as long (an hour): still transient
// and still passed on whole, but worth a note, since many consumers cap
// their backoff well below it.
const LongWaitSecs = 3600

// waitInput is what the wait sources read.
type waitInput struct {
	h headers
	// retryDelay is the body's google.rpc.RetryInfo retryDelay. A copy,
	// not the error object: a pointer here would move that object to the
	// heap.
	retryDelay string
	text       string // the message plus provider detail text
	// receivedAt and now are Answer's; the reference time is made from
	// them (and the Date header) only when a source needs it, since
	// parsing a date is a good part of a classification.
	receivedAt, now time.Time
	clock           func() time.Time
	// ref is the instant relative waits count from: the answer's Date
	// header, else ReceivedAt, else Now; refSet says it has been made.
	ref    time.Time
	refSet bool
	// refIsClock says ref is the clock (no Date header, no ReceivedAt);
	// clockRead that a wait was computed from it, so the answer depends on
	// when it was asked (Result.Clock).
	refIsClock, clockRead bool
	// timeless says the answer has no time of its own (answerTime), as
	// refNoClock found before ref was made.
	timeless bool
}

// reference is ref for a wait computed relative to it.
func (w *waitInput) reference() time.Time {
	if !w.refSet {
		w.ref, w.refIsClock = referenceTime(w.h, w.receivedAt, w.now, w.clock)
		w.refSet = true
	}
	w.clockRead = w.clockRead || w.refIsClock
	return w.ref
}

// waitSource is one place a wait can come from. read returns seconds (not
// yet rounded or clamped) and the Result.WaitSource name.
type waitSource struct {
	name   string
	doc    string
	reader waitReader
}

// waitReader names a source's reader. A switch rather than a func field:
// a call through a func value makes the classifier's state escape to the
// heap.
type waitReader int

const (
	readRetryAfterWhole waitReader = iota
	readRetryAfterDecimal
	readRetryAfterMsHeader
	readAnthropicResetHeaders
	readAnthropicUnifiedHeaders
	readRateLimitResetHeaders
	readRetryInfoDetail
	readCodexPattern
	readHintText
)

func (s waitSource) read(w *waitInput) (float64, string, bool) {
	switch s.reader {
	case readRetryAfterWhole:
		return retryAfter(w, false)
	case readRetryAfterDecimal:
		return retryAfter(w, true)
	case readRetryAfterMsHeader:
		return readRetryAfterMs(w)
	case readAnthropicResetHeaders:
		return readAnthropicReset(w)
	case readAnthropicUnifiedHeaders:
		return readAnthropicUnified(w)
	case readRateLimitResetHeaders:
		return readRateLimitReset(w)
	case readRetryInfoDetail:
		return readRetryInfo(w)
	case readCodexPattern:
		return readCodexText(w)
	case readHintText:
		return readBodyText(w)
	}
	return 0, "", false
}

var (
	srcRetryAfterWhole = waitSource{"retry-after",
		"Retry-After as whole seconds or an HTTP-date (relative to Date, else ReceivedAt, else Now; a past date is 0)",
		readRetryAfterWhole}
	srcRetryAfter = waitSource{"retry-after",
		"Retry-After as seconds (decimals rounded up) or an HTTP-date",
		readRetryAfterDecimal}
	srcRetryAfterMs = waitSource{"retry-after-ms",
		"retry-after-ms, milliseconds (what the OpenAI and Anthropic SDKs read first; of the OpenAI family only azure and azure_ai read it)",
		readRetryAfterMsHeader}
	srcAnthropicReset = waitSource{"anthropic-ratelimit-reset",
		"anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-reset (RFC 3339) of the limits whose -remaining is 0, the latest of them",
		readAnthropicResetHeaders}
	srcAnthropicUnified = waitSource{"anthropic-ratelimit-unified-reset",
		"anthropic-ratelimit-unified-reset (Unix seconds), the subscription window, unless -unified-status says allowed",
		readAnthropicUnifiedHeaders}
	srcRateLimitReset = waitSource{"x-ratelimit-reset-*",
		"x-ratelimit-reset-requests, -tokens, x-ratelimit-reset (durations like 6m0s, seconds, or Unix seconds; from 10^12 up Unix milliseconds) of the limits whose remaining is 0; with no remaining headers, the earliest",
		readRateLimitResetHeaders}
	srcRetryInfo = waitSource{"retry-info",
		"google.rpc.RetryInfo retryDelay in the body (\"20s\", \"1.5s\")",
		readRetryInfoDetail}
	srcCodexText = waitSource{"body-text",
		"the message's \"try again in N s|ms|seconds\" (Codex's pattern, nothing else)",
		readCodexPattern}
	srcBodyText = waitSource{"body-text",
		"the message's \"try again in\", \"retry in/after\", \"wait\", \"resets in\" + a duration (20s, 1.5 seconds, 2 minutes, 6m0s, 500ms)",
		readHintText}
)

// waitSources are each family's sources, first match wins; a profile may
// name its own (family.go). The OpenAI family reads only what Codex reads
// (the Error Class Contract: the OpenAI Responses and ChatGPT families read
// Retry-After as whole seconds or an HTTP-date, and Codex's "try again in"
// text), never retry-after-ms or the x-ratelimit-reset-* headers, which
// describe the limits' state rather than when to retry.
var waitSources = map[family][]waitSource{
	familyOpenAI:    codexWaits,
	familyAnthropic: {srcRetryAfterMs, srcRetryAfter, srcAnthropicReset, srcAnthropicUnified, srcBodyText},
	familyGoogle:    {srcRetryInfo, srcRetryAfter, srcBodyText},
	familyBedrock:   {srcRetryAfter, srcBodyText},
	familyGeneric:   {srcRetryAfterMs, srcRetryAfter, srcRateLimitReset, srcRetryInfo, srcBodyText},
}

// waitFor returns the normalised wait of a transient answer, its source,
// and whether it was clamped to MaxRetryAfterSecs.
func waitFor(sources []waitSource, w *waitInput) (secs uint32, found bool, source string, clamped bool) {
	for _, s := range sources {
		if f, name, ok := s.read(w); ok {
			n, clamped := normaliseSecs(f)
			return n, true, name, clamped
		}
	}
	return 0, false, "", false
}

// normaliseSecs rounds up to whole seconds and bounds the result to
// [0, MaxRetryAfterSecs], saying when the upper bound cut it. The tolerance
// keeps binary noise (0.1+0.2) from adding a second.
func normaliseSecs(secs float64) (uint32, bool) {
	switch {
	case !(secs > 0):
		return 0, false
	case secs > MaxRetryAfterSecs:
		return MaxRetryAfterSecs, true
	}
	return uint32(math.Ceil(secs - 1e-9)), false
}

// referenceTime is the answer's Date header, else ReceivedAt, else Now,
// else clock, else the wall clock.
// The second result says the reference is the clock.
func referenceTime(h headers, receivedAt, now time.Time, clock func() time.Time) (time.Time, bool) {
	if t, ok := answerTime(h, receivedAt); ok {
		return t, false
	}
	if !now.IsZero() {
		return now, true
	}
	if clock != nil {
		return clock(), true
	}
	return time.Now(), true
}

// answerTime is the answer's own time: its Date header, else ReceivedAt;
// false when it has neither.
func answerTime(h headers, receivedAt time.Time) (time.Time, bool) {
	if d := h.get("date"); d != "" {
		if t, err := http.ParseTime(d); err == nil {
			return t, true
		}
	}
	return receivedAt, !receivedAt.IsZero()
}

// parseDecimal reads a plain non-negative decimal, digits with at most one
// fraction ([0-9]+(\.[0-9]+)?): no sign, exponent, hex, Inf or NaN, which
// strconv.ParseFloat would accept.
func parseDecimal(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	if !isDecimal(s) {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if errors.Is(err, strconv.ErrRange) {
		// More digits than a float holds: the value is huge, and the bound
		// will say so, rather than no value at all.
		return math.MaxFloat64, true
	}
	return f, err == nil
}

func isDecimal(s string) bool {
	dot, digits := -1, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case '0' <= c && c <= '9':
			digits++
		case c == '.' && dot < 0 && digits > 0:
			dot = i
		default:
			return false
		}
	}
	return digits > 0 && dot != len(s)-1
}

func formatSeconds(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func untilTime(t, ref time.Time) float64 { return t.Sub(ref).Seconds() }

// untilUnix is untilTime for a Unix timestamp (unixTime).
func untilUnix(f float64, ref time.Time) float64 { return untilTime(unixTime(f), ref) }

// unixTime reads a Unix timestamp in seconds, or in milliseconds from
// epochMsFloor up. Absurd timestamps are cut to 2^40 s first so the
// conversion to int64 stays defined; the bound of MaxRetryAfterSecs
// follows anyway.
func unixTime(f float64) time.Time {
	if f >= epochMsFloor {
		return time.UnixMilli(int64(math.Min(f, 1<<50)))
	}
	return time.Unix(int64(math.Min(f, 1<<40)), 0)
}

// retryAfter reads Retry-After: seconds (whole only when decimals is
// false) or an HTTP-date.
func retryAfter(w *waitInput, decimals bool) (float64, string, bool) {
	v := w.h.get("retry-after")
	if v == "" {
		return 0, "", false
	}
	if f, ok := parseDecimal(v); ok {
		if !decimals && strings.Contains(v, ".") {
			return 0, "", false
		}
		return f, "retry-after", true
	}
	if t, err := http.ParseTime(v); err == nil {
		return untilTime(t, w.reference()), "retry-after-date", true
	}
	return 0, "", false
}

func readRetryAfterMs(w *waitInput) (float64, string, bool) {
	if f, ok := parseDecimal(w.h.get("retry-after-ms")); ok {
		return f / 1000, "retry-after-ms", true
	}
	return 0, "", false
}

// resetHeader pairs a reset header with the remaining header of its limit.
type resetHeader struct{ reset, remaining string }

// pickReset chooses among limit resets: the latest reset of the limits
// that are exhausted (remaining 0), since every one of them must reset
// before a retry can pass; with no remaining headers at all, the earliest
// reset, a floor that cannot overshoot. Limits that still have room do not
// explain the refusal and are ignored.
func pickReset(w *waitInput, pairs []resetHeader, parse func(string, time.Time) (float64, bool)) (float64, string, bool) {
	var (
		best     float64
		bestName string
		found    bool
		anyRem   bool
	)
	for _, p := range pairs {
		if w.h.get(p.remaining) != "" {
			anyRem = true
		}
	}
	for _, p := range pairs {
		v := w.h.get(p.reset)
		if v == "" {
			continue
		}
		secs, ok := parse(v, w.reference())
		if !ok {
			continue
		}
		if anyRem {
			rem, ok := parseDecimal(w.h.get(p.remaining))
			if !ok || rem != 0 {
				continue
			}
			if !found || secs > best {
				best, bestName, found = secs, p.reset, true
			}
			continue
		}
		if !found || secs < best {
			best, bestName, found = secs, p.reset, true
		}
	}
	return best, bestName, found
}

var anthropicResets = []resetHeader{
	{"anthropic-ratelimit-requests-reset", "anthropic-ratelimit-requests-remaining"},
	{"anthropic-ratelimit-tokens-reset", "anthropic-ratelimit-tokens-remaining"},
	{"anthropic-ratelimit-input-tokens-reset", "anthropic-ratelimit-input-tokens-remaining"},
	{"anthropic-ratelimit-output-tokens-reset", "anthropic-ratelimit-output-tokens-remaining"},
}

func readAnthropicReset(w *waitInput) (float64, string, bool) {
	secs, _, ok := pickReset(w, anthropicResets, func(v string, ref time.Time) (float64, bool) {
		t, err := time.Parse(time.RFC3339, strings.TrimSpace(v))
		if err != nil {
			return 0, false
		}
		return untilTime(t, ref), true
	})
	return secs, "anthropic-ratelimit-reset", ok
}

func readAnthropicUnified(w *waitInput) (float64, string, bool) {
	if strings.EqualFold(w.h.get("anthropic-ratelimit-unified-status"), "allowed") {
		return 0, "", false
	}
	f, ok := parseDecimal(w.h.get("anthropic-ratelimit-unified-reset"))
	if !ok {
		return 0, "", false
	}
	return untilUnix(f, w.reference()), "anthropic-ratelimit-unified-reset", true
}

var rateLimitResets = []resetHeader{
	{"x-ratelimit-reset-requests", "x-ratelimit-remaining-requests"},
	{"x-ratelimit-reset-tokens", "x-ratelimit-remaining-tokens"},
	{"x-ratelimit-reset", "x-ratelimit-remaining"},
}

// epochFloor tells a Unix timestamp from a count of seconds in a reset
// header: no limit resets 31 years from now. From epochMsFloor up the
// timestamp counts milliseconds (OpenRouter's X-RateLimit-Reset): as
// seconds it would be the year 33658.
const (
	epochFloor   = 1e9
	epochMsFloor = 1e12
)

func readRateLimitReset(w *waitInput) (float64, string, bool) {
	return pickReset(w, rateLimitResets, func(v string, ref time.Time) (float64, bool) {
		if f, ok := parseDecimal(v); ok {
			if f >= epochFloor {
				return untilUnix(f, ref), true
			}
			return f, true
		}
		return parseWholeDuration(v)
	})
}

func readRetryInfo(w *waitInput) (float64, string, bool) {
	if f, ok := parseWholeDuration(w.retryDelay); ok {
		return f, "retry-info", true
	}
	return 0, "", false
}

// codexRe is Codex's own pattern for OpenAI's "Please try again in 1.898s".
var codexRe = regexp.MustCompile(`(?i)try again in\s*(\d+(?:\.\d+)?)\s*(s|ms|seconds?)`)

func readCodexText(w *waitInput) (float64, string, bool) {
	// The pattern's words are ASCII letters without a non-ASCII case fold,
	// so it can only match where they stand in ASCII.
	if !containsFoldASCII(w.text, "try again in") {
		return 0, "", false
	}
	m := codexRe.FindStringSubmatch(w.text)
	if m == nil {
		return 0, "", false
	}
	f, ok := parseDecimal(m[1])
	if !ok {
		return 0, "", false
	}
	if strings.EqualFold(m[2], "ms") {
		f /= 1000
	}
	return f, "body-text", true
}

// hintRe finds where a wait hint's duration starts.
var hintRe = regexp.MustCompile(`(?i)\b(?:try again|retry|wait|resets?)(?:\s+(?:in|after|for))?\s*(?:~|about\s+|approximately\s+)?`)

// maxHints bounds the work on a long message.
const maxHints = 16

func readBodyText(w *waitInput) (float64, string, bool) {
	if !mayHint(w.text) {
		return 0, "", false
	}
	for _, loc := range hintRe.FindAllStringIndex(w.text, maxHints) {
		if f, _, ok := parseDuration(w.text[loc[1]:]); ok {
			return f, "body-text", true
		}
	}
	return 0, "", false
}

// hintWords are the words hintRe needs one of, lower case.
var hintWords = [...]string{"try again", "retry", "wait", "reset"}

// mayHint says whether hintRe can match: in ASCII text only where one of
// its words stands (case folded); non-ASCII text goes to the pattern
// itself, since (?i) folds "s" with U+017F.
func mayHint(text string) bool {
	for i := 0; i < len(text); i++ {
		if text[i] >= 0x80 {
			return true
		}
	}
	for _, word := range hintWords {
		if containsFoldASCII(text, word) {
			return true
		}
	}
	return false
}

// containsFoldASCII says whether s contains word (ASCII lower case) with
// ASCII letters in any case.
func containsFoldASCII(s, word string) bool {
	for i := 0; i+len(word) <= len(s); i++ {
		j := 0
		for j < len(word) && lowerASCII(s[i+j]) == word[j] {
			j++
		}
		if j == len(word) {
			return true
		}
	}
	return false
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// durationUnits are the units a duration may use, in seconds.
var durationUnits = map[string]float64{
	"ms": 0.001, "msec": 0.001, "msecs": 0.001, "millisecond": 0.001, "milliseconds": 0.001,
	"s": 1, "sec": 1, "secs": 1, "second": 1, "seconds": 1,
	"m": 60, "min": 60, "mins": 60, "minute": 60, "minutes": 60,
	"h": 3600, "hr": 3600, "hrs": 3600, "hour": 3600, "hours": 3600,
}

// parseDuration reads a duration at the start of s: one or more
// number+unit parts, Go style ("1h2m3.5s", "6m0s", "20ms") or spelled
// ("2 minutes", "1.5 seconds"). It returns the seconds and the bytes used.
func parseDuration(s string) (float64, int, bool) {
	total, i, parts := 0.0, 0, 0
	for {
		j := i
		for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.') {
			j++
		}
		num, ok := parseDecimal(s[i:j])
		if !ok {
			break
		}
		k := j
		for k < len(s) && s[k] == ' ' {
			k++
		}
		u := k
		for u < len(s) && (s[u] >= 'a' && s[u] <= 'z' || s[u] >= 'A' && s[u] <= 'Z') {
			u++
		}
		scale, ok := durationUnits[strings.ToLower(s[k:u])]
		if !ok {
			break
		}
		total += num * scale
		i, parts = u, parts+1
	}
	return total, i, parts > 0
}

// parseWholeDuration reads a string that is nothing but a duration.
func parseWholeDuration(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	f, n, ok := parseDuration(s)
	return f, ok && n == len(s)
}
