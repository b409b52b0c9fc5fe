package provider

import (
	"net/http"
	"strconv"

	"github.com/errsvc/errsvc/translate/internal/jsonread"
	"strings"
	"time"
)

// The limit facet: which limit an answer hit, whose, until when and how
// much is left. Every fact comes from the answer (its headers, its body's
// codes, QuotaFailure violations and message); a fact the answer does not
// state stays empty, and the scope says "unknown". What to do about it
// (LimitDecision) follows the answer's class: see Decision.

// Limit kinds (LimitKind wire strings).
const (
	LimitRate        = "rate"
	LimitQuota       = "quota"
	LimitSpend       = "spend"
	LimitConcurrency = "concurrency"
	LimitCapacity    = "capacity"
)

// Limit dimensions (LimitDimension wire strings).
const (
	DimRequests     = "requests"
	DimTokens       = "tokens"
	DimInputTokens  = "input_tokens"
	DimOutputTokens = "output_tokens"
	DimConcurrent   = "concurrent_requests"
	DimCredits      = "credits"
)

// Limit scopes (LimitScope wire strings).
const (
	ScopeKey          = "key"
	ScopeProject      = "project"
	ScopeOrganization = "organization"
	ScopeModel        = "model"
	ScopeRegion       = "region"
	ScopeAccount      = "account"
	ScopeUnknown      = "unknown"
)

// Limit decisions (LimitDecision wire strings).
const (
	DecisionWait     = "wait_until_reset"
	DecisionFewer    = "reduce_concurrency"
	DecisionFailOver = "fail_over"
	DecisionStop     = "stop_and_tell_a_person"
)

// Decision is what to do about a limit of this kind, given the answer's
// one retry decision (retry: an automatic retry is known to help). An
// answer no retry helps (a spend cap, a zero quota, a caller's
// do_not_retry) is stop_and_tell_a_person whatever its kind; otherwise
// capacity fails over, concurrency sends fewer in flight, and every other
// limit waits until it resets.
func Decision(kind string, retry bool) string {
	switch {
	case !retry:
		return DecisionStop
	case kind == LimitCapacity:
		return DecisionFailOver
	case kind == LimitConcurrency:
		return DecisionFewer
	}
	return DecisionWait
}

// Limit is the limit facet of an answer. Its Kind, Dimension and Scope
// are always this package's constants (the wire terms above, and the
// scopes of errsvc's own QuotaFailure), never provider text, so a reader
// need not sanitise them (checkInvariants holds every classification to
// it, fuzzed).
type Limit struct {
	// Kind is a LimitKind wire string.
	Kind string
	// Dimension is what the limit that was hit counts; "" when unsaid.
	Dimension string
	// Scope is whose limit it is; ScopeUnknown when unsaid.
	Scope string
	// ResetAt is when the limit that was hit resets, absolute; zero when
	// unsaid.
	ResetAt time.Time
	// Remaining and Max are what is left of that limit and its size.
	Remaining, Max *uint64
	// QuotaID is the provider's name for the limit (a quotaId or
	// quotaMetric, untrusted provider text), or a header family's
	// (errsvc's own text: OwnQuotaID).
	QuotaID string
	// ownQuotaID says QuotaID is a header family's name.
	ownQuotaID bool
	// Windows are every limit the answer reported.
	Windows []LimitWindow
	// Clock says a reset was counted from the clock (neither a Date
	// header nor ReceivedAt).
	Clock bool
	// Reference is the time the answer's relative resets count from (its
	// Date header, else ReceivedAt; the clock only when Clock says a reset
	// was counted from it): a writer that states a reset relative to a
	// moment (RateLimit's t, x-ratelimit-reset) counts from it, so what it
	// writes is what the provider said. Zero when the answer gave neither.
	Reference time.Time
	// room holds the first windows, so a Limit is one allocation.
	room [4]LimitWindow
}

// LimitWindow is one limit an answer reported.
type LimitWindow struct {
	Dimension        string
	Remaining, Max   *uint64
	ResetAt          time.Time
	QuotaID          string
	hit, resetRelClk bool
	// ownName says QuotaID is a header family's name, not provider text.
	ownName bool
	// rem and max are what Remaining and Max point to.
	rem, max uint64
}

// OwnQuotaID says the limit's QuotaID is a header family's name (errsvc's
// own text, as KnownLimitName would say), so it needs no sanitising.
func (l *Limit) OwnQuotaID() bool { return l.ownQuotaID || l.QuotaID == "" }

// OwnName says the window's QuotaID is a header family's name (errsvc's own
// text), so it needs no sanitising.
func (w *LimitWindow) OwnName() bool { return w.ownName || w.QuotaID == "" }

// spendCodes are the codes that mean money: exhausted credits, a spend
// cap, an inactive or unpaid bill.
var spendCodes = map[string]bool{
	"insufficient_quota": true, "billing_hard_limit_reached": true, "billing_not_active": true,
	"payment_required": true, "credit_limit": true, "billing_error": true, "billing_disabled": true,
	"insufficient_credits": true,
}

// capacityCode says a code means the provider is out of capacity.
// Mistral's service_tier_capacity_exceeded and Cerebras' queue_exceeded
// ("We're experiencing high traffic right now!") come on a 429: the
// provider's capacity, not the caller's window, so another model or
// provider has room where waiting for a reset would not be the answer.
// A switch, not a map: it is asked of every rate limit's four codes.
func capacityCode(c string) bool {
	switch c {
	case "overloaded_error", "server_is_overloaded", "capacity_exceeded", "provider_overloaded", "overloaded",
		"service_tier_capacity_exceeded", "queue_exceeded":
		return true
	}
	return false
}

// spendCode says a code is one of spendCodes.
func spendCode(c string) bool { return spendCodes[c] }

// modelPhrases name the model's own limit in a message. Each holds
// "model", which scopeOf looks for first: most messages lack it. (The
// scopes and capacity wording read from messages since 2026-12-07 cost
// BenchmarkTranslate/provider about 90 ns as first written, 2.5%; with
// this gate, account's and capacityCode's switch about 50 to 80 ns, in
// interleaved runs whose spread is as large.)
var modelPhrases = []string{"specific to this model", "quota for this model", "limit for this model", "capacity exceeded for this model", "_per_base_model", "_per_model"}

// capacityPhrases say the provider is out of capacity, in a message.
var capacityPhrases = []string{"overloaded", "capacity exceeded", "over capacity", "at capacity", "high traffic", "model is busy"}

// limitKind is the answer's LimitKind, "" when the answer is not a limit.
func limitKind(res *Result, obj *errorObject, status int, low *lowered, quotas []quotaViolation) string {
	has := func(is func(string) bool) bool {
		if is(res.Code) || is(obj.Code) || is(obj.Type) || is(obj.ErrorType) {
			return true
		}
		for _, r := range obj.Reasons {
			if is(strings.ToLower(r)) {
				return true
			}
		}
		return false
	}
	switch res.Kind {
	case kindQuotaExceeded:
		if res.Class == classPermanent && (has(spendCode) || status == 402 || low.containsAny(spendPhrases...)) {
			return LimitSpend
		}
		return LimitQuota
	case kindRateLimited:
		switch {
		case obj.LimitSource == "openrouter_in_flight_budget", low.contains("concurren"):
			return LimitConcurrency
		case has(capacityCode), low.containsAny(capacityPhrases...):
			return LimitCapacity
		case periodic(low, quotas), strings.EqualFold(res.Code, "usage_limit_reached"):
			return LimitQuota
		}
		return LimitRate
	case kindProviderUnavailable, kindServiceUnavailable:
		if has(capacityCode) || status == 529 || low.contains("capacity") || low.containsAny(capacityPhrases...) {
			return LimitCapacity
		}
	}
	if res.Kind == "queue_saturated" {
		return LimitConcurrency
	}
	return ""
}

// ownLimitKinds and ownScopes are the terms errsvc writes into its own
// QuotaFailure.
var (
	ownLimitKinds = map[string]bool{LimitRate: true, LimitQuota: true, LimitSpend: true, LimitConcurrency: true, LimitCapacity: true}
	ownScopes     = map[string]bool{ScopeKey: true, ScopeProject: true, ScopeOrganization: true, ScopeAccount: true, ScopeModel: true, ScopeRegion: true}
)

// spendPhrases are the words of money in a permanent quota's message.
// Not "billing" alone: Google says "check your plan and billing details"
// for every quota, a window's too.
//
// A payment method or instrument a person must add or fix is an unpaid
// bill, the spend kind's own meaning (vocabulary.proto: "a spend cap,
// exhausted credits or an unpaid bill"): Bedrock's
// INVALID_PAYMENT_INSTRUMENT, Cohere's "add or update your payment
// method".
var spendPhrases = []string{"credit balance", "credits", "spending limit", "spend limit", "insufficient balance", "billing hard limit", "payment required", "purchase more",
	"payment instrument", "payment method", "enable billing"}

// periodic says the limit is per day or month (a quota passes when its
// period ends), from the message or a QuotaFailure's id.
func periodic(low *lowered, qs []quotaViolation) bool {
	if low.containsAny("per day", "per-day", "daily", "per month", "monthly", "(tpd)", "(rpd)") {
		return true
	}
	for _, q := range qs {
		if strings.Contains(q.ID, "PerDay") || strings.Contains(q.ID, "PerMonth") {
			return true
		}
	}
	return false
}

// dimensionOf reads a dimension from a name or phrase, "" when none.
func dimensionOf(s string) string {
	l := strings.ToLower(s)
	switch {
	case strings.Contains(l, "input_token"), strings.Contains(l, "input-token"), strings.Contains(l, "input token"), strings.Contains(l, "inputtoken"):
		return DimInputTokens
	case strings.Contains(l, "output_token"), strings.Contains(l, "output-token"), strings.Contains(l, "output token"), strings.Contains(l, "outputtoken"):
		return DimOutputTokens
	case strings.Contains(l, "token"), strings.Contains(l, "(tpm)"), strings.Contains(l, "(tpd)"):
		return DimTokens
	case strings.Contains(l, "request"), strings.Contains(l, "(rpm)"), strings.Contains(l, "(rpd)"), strings.Contains(l, "call rate"), strings.Contains(l, "api calls"):
		return DimRequests
	}
	return ""
}

// scopeOf reads a scope from the message and the QuotaFailure violations
// (keyNamed: the answer's own field names the key as the limit's): the
// narrowest one named (model, region, key, project, organization), so a
// consumer knows what another choice would escape.
func scopeOf(low *lowered, qs []quotaViolation, keyNamed bool) string {
	var model, region, key, project, org bool
	for _, q := range qs {
		model = model || q.Model != "" || strings.Contains(q.ID, "PerModel")
		region = region || q.Location != "" || strings.Contains(q.ID, "PerRegion") || strings.Contains(q.ID, "PerLocation")
		project = project || strings.Contains(q.ID, "PerProject") || strings.HasPrefix(q.Subject, "project:")
	}
	// A limit of this model, not an account's subscription "for this
	// model" (Bedrock's payment instrument); Vertex names its quota
	// metric in the message (..._per_project_per_base_model).
	model = model || low.contains("model") && low.containsAny(modelPhrases...)
	// xAI's team holds its API keys and its credits: its organization.
	org = low.containsAny("in organization ", "organization's rate limit", "your organization", "your team ", "your newly created team")
	project = project || low.contains("in project ")
	key = keyNamed || low.containsAny("per api key", "for this api key", "api key's", "trial key, which is limited")
	// A service quota "for your account" (Bedrock's
	// ServiceQuotaExceededException) is the cloud account's.
	account := low.contains("account") && low.containsAny("quota for your account", "quotas for your account")
	switch {
	case model:
		return ScopeModel
	case region:
		return ScopeRegion
	case key:
		return ScopeKey
	case project:
		return ScopeProject
	case account:
		return ScopeAccount
	case org:
		return ScopeOrganization
	}
	return ScopeUnknown
}

// quotaViolation is one google.rpc.QuotaFailure violation.
type quotaViolation struct {
	Metric, ID, Value, Subject, Description string
	// Location and Model are quotaDimensions' location and model.
	Location, Model string
}

// maxQuotas bounds the violations and policies read from one answer.
const maxQuotas = 8

// quotaViolations reads the QuotaFailure violations of a JSON body (a
// google.rpc.Status, bare, under "error", or the first of an array). The
// classifier does not keep them (Classify stays nearly allocation-free);
// the limit facet reads the body again, only for a limit.
func quotaViolations(body string) []quotaViolation {
	doc, ok := parseJSON(body)
	if !ok {
		return nil
	}
	defer doc.Release()
	v := doc.Root()
	if v.Kind() == jsonread.Array {
		it := v.Elems()
		v, _ = it.Next()
	}
	if e := v.Get("error"); e.Kind() == jsonread.Object {
		v = e
	}
	var out []quotaViolation
	for it := v.Get("details").Elems(); ; {
		d, more := it.Next()
		if !more {
			break
		}
		if !strings.HasSuffix(code(d.Get("@type")), "google.rpc.QuotaFailure") {
			continue
		}
		for vs := d.Get("violations").Elems(); len(out) < maxQuotas; {
			q, more := vs.Next()
			if !more {
				break
			}
			if q.Kind() != jsonread.Object {
				continue
			}
			dims := q.Get("quotaDimensions")
			out = append(out, quotaViolation{
				Metric: code(q.Get("quotaMetric")), ID: code(q.Get("quotaId")),
				Value: code(q.Get("quotaValue")), Subject: code(q.Get("subject")),
				Description: code(q.Get("description")),
				Location:    code(dims.Get("location")), Model: code(dims.Get("model")),
			})
		}
	}
	return out
}

// readLimit builds the limit facet of a classified answer, in room when it
// is not nil, else in a new Limit; nil when the answer is not a limit.
func readLimit(res *Result, obj *errorObject, status int, low *lowered, body string, w *waitInput, room *Room) *Limit {
	var quotas []quotaViolation
	if obj.shape == familyGoogle || len(obj.QuotaValues) > 0 || obj.Status != "" {
		quotas = quotaViolations(body)
	}
	kind := limitKind(res, obj, status, low, quotas)
	// OpenRouter's limit_source "key" is the limit an admin set on this
	// API key ("Key limit exceeded").
	scope := scopeOf(low, quotas, obj.LimitSource == "key")
	if obj.OwnClass != "" || obj.OwnKind != "" {
		// errsvc's own answer (google_error): its QuotaFailure says the
		// kind ("<kind> limit on <dimension>") and the scope (subject).
		for _, q := range quotas {
			if k, _, ok := strings.Cut(q.Description, " limit"); ok && ownLimitKinds[k] {
				kind = k
			}
			if ownScopes[q.Subject] {
				scope = q.Subject
			}
		}
	}
	if kind == "" {
		return nil
	}
	var l *Limit
	if room != nil {
		l = &room.limit
	} else {
		l = new(Limit)
	}
	*l = Limit{Kind: kind, Scope: scope}
	l.Windows = readWindows(w, l.room[:0])
	if len(l.Windows) == 0 && len(obj.RateLimitHeaders) > 0 {
		// OpenRouter sends the limit's headers in the body
		// (error.metadata.headers): read as if on the answer, counted from
		// the answer's own time.
		mw := *w
		if ref, ok := refNoClock(w); ok {
			mw.ref, mw.refSet, mw.refIsClock = ref, true, false
		} else {
			mw.timeless = true
		}
		mw.h = headers{raw: obj.RateLimitHeaders}
		l.Windows = readWindows(&mw, l.room[:0])
	}
	for _, q := range quotas {
		name := q.ID
		if name == "" {
			name = q.Metric
		}
		lw := LimitWindow{Dimension: dimensionOf(q.Metric + " " + q.ID), QuotaID: name}
		lw.max, lw.Max = parseCount(q.Value)
		lw.hit = true
		l.Windows = append(l.Windows, lw)
	}
	fixPointers(l.Windows)
	// The limit that was hit: a window with nothing left (the latest to
	// reset, as every one of them must reset before a retry passes; on a
	// tie the one that names its dimension), else a QuotaFailure
	// violation, else none.
	var hit *LimitWindow
	for i := range l.Windows {
		lw := &l.Windows[i]
		if lw.Remaining == nil || *lw.Remaining != 0 {
			continue
		}
		if hit == nil || lw.ResetAt.After(hit.ResetAt) || lw.ResetAt.Equal(hit.ResetAt) && hit.Dimension == "" && lw.Dimension != "" {
			hit = lw
		}
	}
	if hit == nil {
		for i := range l.Windows {
			if l.Windows[i].hit {
				hit = &l.Windows[i]
				break
			}
		}
	}
	switch kind {
	case LimitSpend:
		l.Dimension = DimCredits
	case LimitConcurrency:
		l.Dimension = DimConcurrent
	case LimitCapacity:
	default:
		switch {
		case hit != nil && hit.Dimension != "":
			l.Dimension = hit.Dimension
		case obj.Type == "tokens" || obj.Type == "requests":
			l.Dimension = obj.Type
		case low.containsAny(" queries and ", " requests and "):
			// A message stating both limits ("60.0 queries and 180000
			// tokens per minute", Together's) does not say which was hit.
		default:
			l.Dimension = dimensionOf(messageLimitPhrase(low))
		}
	}
	if hit == nil && l.Dimension != "" {
		// The message named the dimension: its window, if reported.
		for i := range l.Windows {
			if l.Windows[i].Dimension == l.Dimension {
				hit = &l.Windows[i]
				break
			}
		}
	}
	if hit != nil {
		l.Remaining, l.Max, l.ResetAt, l.QuotaID, l.ownQuotaID = hit.Remaining, hit.Max, hit.ResetAt, hit.QuotaID, hit.ownName
	}
	if l.ResetAt.IsZero() && res.Class == classTransient && res.RetryAfterSecs != nil && !res.WaitClamped {
		// The answer's own wait says when the limit lets a retry pass.
		// Retry-After's two forms say the same (RFC 9110, 10.2.3): an
		// HTTP-date is that moment as written, delay-seconds count from
		// the answer's Date. A wait cut to the wire's bound is not the
		// moment the provider named, so it names none.
		if res.WaitSource == "retry-after-date" {
			if t, err := http.ParseTime(w.h.get("retry-after")); err == nil {
				l.ResetAt = t.UTC()
			}
		} else if ref, ok := refNoClock(w); ok {
			l.ResetAt = ref.Add(time.Duration(*res.RetryAfterSecs) * time.Second).UTC()
		}
	}
	for _, lw := range l.Windows {
		l.Clock = l.Clock || lw.resetRelClk
	}
	if ref, ok := refNoClock(w); ok {
		l.Reference = ref
	} else if l.Clock {
		l.Reference = w.reference()
	}
	return l
}

// messageLimitPhrase is the part of a message that names a limit ("on
// tokens per min (TPM)", "input tokens per minute", "token rate limit"):
// the text from the first "limit", "per min" or "rate" on, else the whole.
func messageLimitPhrase(low *lowered) string {
	for _, p := range []string{" on tokens", " on requests", "input tokens", "output tokens", "input_token", "output_token", "request tokens", "tokens per", "requests per", "token rate", "call rate", "(tpm)", "(rpm)", "(tpd)", "(rpd)", "too many tokens", "too many requests", "api calls", "requests rate limit", "tokens rate limit", "requests_per_", "tokens_per_", "token_count"} {
		if i := low.index(p); i >= 0 {
			return string(low.b[i:min(len(low.b), i+len(p)+8)])
		}
	}
	return ""
}

// headerFamily is one provider's rate-limit headers of one dimension.
type headerFamily struct {
	dim                     string
	limit, remaining, reset string
	// absolute: reset is an RFC 3339 time (Anthropic); else a duration,
	// seconds, or Unix seconds.
	absolute bool
}

// limitHeaders are the rate-limit header families read, in order.
var limitHeaders = [...]headerFamily{
	{DimRequests, "x-ratelimit-limit-requests", "x-ratelimit-remaining-requests", "x-ratelimit-reset-requests", false},
	{DimTokens, "x-ratelimit-limit-tokens", "x-ratelimit-remaining-tokens", "x-ratelimit-reset-tokens", false},
	{"", "x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset", false},
	// Cerebras: per-minute tokens and per-day requests.
	{DimTokens, "x-ratelimit-limit-tokens-minute", "x-ratelimit-remaining-tokens-minute", "x-ratelimit-reset-tokens-minute", false},
	{DimRequests, "x-ratelimit-limit-requests-day", "x-ratelimit-remaining-requests-day", "x-ratelimit-reset-requests-day", false},
	{DimRequests, "anthropic-ratelimit-requests-limit", "anthropic-ratelimit-requests-remaining", "anthropic-ratelimit-requests-reset", true},
	{DimTokens, "anthropic-ratelimit-tokens-limit", "anthropic-ratelimit-tokens-remaining", "anthropic-ratelimit-tokens-reset", true},
	{DimInputTokens, "anthropic-ratelimit-input-tokens-limit", "anthropic-ratelimit-input-tokens-remaining", "anthropic-ratelimit-input-tokens-reset", true},
	{DimOutputTokens, "anthropic-ratelimit-output-tokens-limit", "anthropic-ratelimit-output-tokens-remaining", "anthropic-ratelimit-output-tokens-reset", true},
	{"", "ratelimit-limit", "ratelimit-remaining", "ratelimit-reset", false},
}

// limitSlot is where a header readWindows reads belongs: its family in
// limitHeaders and which of the family's three it is.
type limitSlot struct {
	family int
	part   int // 0 limit, 1 remaining, 2 reset
}

// limitHeaderSlots maps every name of limitHeaders to its slot, so
// readWindows looks up the answer's few headers here instead of looking up
// all thirty names in the answer.
var limitHeaderSlots = func() map[string]limitSlot {
	m := map[string]limitSlot{}
	for i, f := range limitHeaders {
		for part, name := range [3]string{f.limit, f.remaining, f.reset} {
			m[name] = limitSlot{i, part}
		}
	}
	return m
}()

// knownLimitNames are the header family names a window's QuotaID may be.
var knownLimitNames = func() map[string]bool {
	m := map[string]bool{}
	for _, f := range limitHeaders {
		m[strings.TrimSuffix(f.limit, "-limit")] = true
	}
	return m
}()

// KnownLimitName says a QuotaID is one of the header families' names
// (errsvc's own text), not provider text that needs sanitising.
func KnownLimitName(s string) bool { return s == "" || knownLimitNames[s] }

// LimitHeaderNames are the header names readWindows reads (docs).
func LimitHeaderNames() []string {
	var n []string
	for _, f := range limitHeaders {
		n = append(n, f.limit, f.remaining, f.reset)
	}
	return append(n, "ratelimit-policy", "ratelimit")
}

// readWindows reads every rate-limit header family the answer carries,
// appending to out. One walk over the answer's headers finds them all, the
// IETF draft's two included: every name read has "ratelimit" in it, so the
// others (content-type, retry-after, request ids) cost no lookup.
func readWindows(w *waitInput, out []LimitWindow) []LimitWindow {
	var vals [len(limitHeaders)][3]string
	var rl, policy string
	w.h.each(func(name, v string) {
		if !strings.Contains(name, "ratelimit") {
			return
		}
		switch name {
		case "ratelimit":
			rl = v
		case "ratelimit-policy":
			policy = v
		default:
			if s, ok := limitHeaderSlots[name]; ok {
				vals[s.family][s.part] = v
			}
		}
	})
	for i, f := range limitHeaders {
		lv, rv, sv := vals[i][0], vals[i][1], vals[i][2]
		if lv == "" && rv == "" && sv == "" {
			continue
		}
		out = append(out, LimitWindow{Dimension: f.dim, QuotaID: strings.TrimSuffix(f.limit, "-limit"), ownName: true})
		lw := &out[len(out)-1]
		lw.max, lw.Max = parseCount(lv)
		lw.rem, lw.Remaining = parseCount(rv)
		if sv != "" {
			lw.ResetAt, lw.resetRelClk = parseReset(w, sv, f.absolute)
		}
	}
	return append(out, readIETF(w, rl, policy)...)
}

// fixPointers points each window's Remaining and Max at its own values
// (after a copy of the windows).
func fixPointers(ws []LimitWindow) {
	for i := range ws {
		if ws[i].Remaining != nil {
			ws[i].Remaining = &ws[i].rem
		}
		if ws[i].Max != nil {
			ws[i].Max = &ws[i].max
		}
	}
}

// readIETF reads the IETF httpapi draft's RateLimit and RateLimit-Policy
// structured fields: `"name";q=100;w=60` and `"name";r=0;t=30`, one item
// per policy, matched by name.
func readIETF(w *waitInput, rl, policy string) []LimitWindow {
	if rl == "" || !strings.Contains(rl, ";") {
		return nil
	}
	policies := map[string]map[string]string{}
	for _, item := range splitItems(policy) {
		policies[item.name] = item.params
	}
	var out []LimitWindow
	for _, item := range splitItems(rl) {
		lw := LimitWindow{QuotaID: item.name, Dimension: dimensionOf(item.name)}
		lw.rem, lw.Remaining = parseCount(item.params["r"])
		if p, ok := policies[item.name]; ok {
			lw.max, lw.Max = parseCount(p["q"])
			if d, ok := quotaUnitDims[strings.Trim(p["qu"], `"`)]; ok {
				lw.Dimension = d
			}
		}
		if t := item.params["t"]; t != "" {
			lw.ResetAt, lw.resetRelClk = parseReset(w, t, false)
		}
		out = append(out, lw)
	}
	return out
}

// quotaUnitDims are the dimensions of RateLimit-Policy's qu: the draft's
// registered units (not "content-bytes": no dimension errsvc names) and
// the token and credit units errsvc writes (translate/limit.go).
var quotaUnitDims = map[string]string{
	"requests": DimRequests, "concurrent-requests": DimConcurrent,
	"tokens": DimTokens, "input-tokens": DimInputTokens, "output-tokens": DimOutputTokens, "credits": DimCredits,
}

type sfItem struct {
	name   string
	params map[string]string
}

// splitItems reads a structured-field list of `"name";k=v;k=v` items,
// leniently (a bare token name is read too).
func splitItems(v string) []sfItem {
	var out []sfItem
	for _, part := range strings.Split(v, ",") {
		fields := strings.Split(strings.TrimSpace(part), ";")
		if len(fields) == 0 || fields[0] == "" {
			continue
		}
		it := sfItem{name: strings.Trim(strings.TrimSpace(fields[0]), `"`), params: map[string]string{}}
		for _, p := range fields[1:] {
			k, val, _ := strings.Cut(strings.TrimSpace(p), "=")
			it.params[strings.ToLower(k)] = strings.TrimSpace(val)
		}
		out = append(out, it)
		if len(out) == maxQuotas {
			break
		}
	}
	return out
}

// parseCount reads a count; the pointer is non-nil when there is one (a
// marker only: callers point at their own copy, see fixPointers).
func parseCount(s string) (uint64, *uint64) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	if n, err := strconv.ParseUint(s, 10, 64); err == nil {
		return n, &present
	}
	if f, ok := parseDecimal(s); ok && f < 1<<63 {
		return uint64(f), &present
	}
	return 0, nil
}

// present marks a count parseCount found.
var present uint64

// parseReset reads a reset header: an RFC 3339 time when absolute, else a
// duration ("6m0s", "20ms"), seconds, or Unix seconds, relative to the
// answer's Date, else ReceivedAt. The second result says the clock was
// the reference.
func parseReset(w *waitInput, v string, absolute bool) (time.Time, bool) {
	if absolute {
		if t, err := time.Parse(time.RFC3339, strings.TrimSpace(v)); err == nil {
			return t.UTC(), false
		}
		return time.Time{}, false
	}
	var secs float64
	if f, ok := parseDecimal(v); ok {
		if f >= epochFloor {
			return unixTime(f).UTC(), false
		}
		secs = f
	} else if f, ok := parseWholeDuration(v); ok {
		secs = f
	} else {
		return time.Time{}, false
	}
	ref, ok := refNoClock(w)
	if !ok {
		return time.Time{}, false
	}
	return ref.Add(time.Duration(secs * float64(time.Second))).UTC(), false
}

// refNoClock is the answer's reference time (Date, else ReceivedAt); false
// when only the clock is known: a reset is never counted from the clock,
// so the facet never depends on when it was asked.
func refNoClock(w *waitInput) (time.Time, bool) {
	switch {
	case w.refSet:
		return w.ref, !w.refIsClock
	case w.timeless:
		return time.Time{}, false
	}
	// The clock is not read here: most answers have no Date, and a
	// reference made now would be the clock only to be set aside.
	t, ok := answerTime(w.h, w.receivedAt)
	if ok {
		w.ref, w.refSet = t, true // the reference reference() would make
	}
	w.timeless = !ok
	return t, ok
}

// QuotaViolation is a google.rpc.QuotaFailure violation as a gRPC source
// carries it.
type QuotaViolation struct {
	Subject, Description, Metric, ID, Location, Model string
	Value                                             *int64
}

// LimitFromQuota is the limit facet of a gRPC status's QuotaFailure: kind
// is the kind's limit (rate, or quota); a per-day or per-month quota id
// makes a rate a quota. The first violation is the limit hit.
func LimitFromQuota(kind string, vs []QuotaViolation) *Limit {
	qs := make([]quotaViolation, 0, len(vs))
	for _, v := range vs {
		q := quotaViolation{Metric: v.Metric, ID: v.ID, Subject: v.Subject, Description: v.Description, Location: v.Location, Model: v.Model}
		if v.Value != nil && *v.Value >= 0 {
			q.Value = strconv.FormatInt(*v.Value, 10)
		}
		qs = append(qs, q)
	}
	if kind == LimitRate && periodic(&lowered{}, qs) {
		kind = LimitQuota
	}
	l := &Limit{Kind: kind, Scope: scopeOf(&lowered{}, qs, false)}
	for _, q := range qs {
		name := q.ID
		if name == "" {
			name = q.Metric
		}
		lw := LimitWindow{Dimension: dimensionOf(q.Metric + " " + q.ID), QuotaID: name}
		lw.max, lw.Max = parseCount(q.Value)
		l.Windows = append(l.Windows, lw)
	}
	fixPointers(l.Windows)
	if len(l.Windows) > 0 {
		h := l.Windows[0]
		l.Dimension, l.Max, l.QuotaID = h.Dimension, h.Max, h.QuotaID
	}
	return l
}

// SuccessLimit is the limit facet of an answer that is not an error (a
// 2xx) but reports what remains of its rate limits, so a client can slow
// down before the 429; nil when its headers report none. Kind is rate (the
// headers read are rate-limit windows); the window it describes is the
// tightest: one with nothing left (the latest to reset), else the smallest
// share left, else the fewest left. The scope is unknown: headers do not
// say whose limit it is.
func SuccessLimit(a Answer) *Limit {
	w := &waitInput{h: a.headers(), receivedAt: a.ReceivedAt, now: a.Now, clock: a.Clock}
	l := &Limit{Kind: LimitRate, Scope: ScopeUnknown}
	l.Windows = readWindows(w, l.room[:0])
	if len(l.Windows) == 0 {
		return nil
	}
	fixPointers(l.Windows)
	var tight *LimitWindow
	for i := range l.Windows {
		lw := &l.Windows[i]
		if lw.Remaining == nil {
			continue
		}
		if tight == nil || tighter(lw, tight) {
			tight = lw
		}
	}
	if tight == nil {
		tight = &l.Windows[0]
	}
	l.Dimension, l.Remaining, l.Max, l.ResetAt, l.QuotaID, l.ownQuotaID = tight.Dimension, tight.Remaining, tight.Max, tight.ResetAt, tight.QuotaID, tight.ownName
	if ref, ok := refNoClock(w); ok {
		l.Reference = ref
	}
	return l
}

// tighter says window a leaves less room than b (both state Remaining).
func tighter(a, b *LimitWindow) bool {
	ra, rb := *a.Remaining, *b.Remaining
	switch {
	case ra == 0 || rb == 0:
		if ra != rb {
			return ra == 0
		}
		return a.ResetAt.After(b.ResetAt)
	case a.Max != nil && b.Max != nil && *a.Max > 0 && *b.Max > 0:
		// Compare shares left without floats: ra/ma < rb/mb.
		return float64(ra)*float64(*b.Max) < float64(rb)*float64(*a.Max)
	}
	return ra < rb
}
