package translate

import (
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/protobuf/types/known/structpb"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/internal/ablation"
	"github.com/errsvc/errsvc/translate/provider"
	"github.com/errsvc/errsvc/translate/sanitize"
)

// now is the clock for an HTTP-date Retry-After with neither a Date header
// nor received_at; tests replace it. The classifier reads it only for such
// a wait (provider.Answer.Clock).
var now = time.Now

// decodeProvider classifies a raw upstream answer at the producer (seed
// 004) and then reads the result like any classified error, so it routes
// through the same matrix. The provider's text stays untrusted: it reaches
// the envelope's message only sanitised and never the agent message.
func decodeProvider(m *model, p *errsvcv1.ProviderResponse) error {
	status := p.GetStatus()
	if status != 0 { // 0: the status is unknown
		status = validStatus(m, status, "provider_response.status")
	}
	headers := provider.FoldHeaders(p.GetHeaders())
	fam := m.policy.familyFor(p, headers)
	a := provider.Answer{
		Provider: p.GetProvider(),
		Status:   int(status),
		Headers:  p.GetHeaders(),
		Folded:   headers,
		Body:     p.GetBody(),
		Clock:    now,
		Limits:   ablation.Growth, // always, but in bench/run.sh's ablation build
	}
	if r := m.reuse; r != nil {
		if r.classifier == nil {
			r.classifier = new(provider.Room)
		}
		a.Room = handOut(&r.classifierUsed, r.classifier)
	}
	if p.GetReceivedAt() != nil {
		a.ReceivedAt = p.GetReceivedAt().AsTime()
	}
	if fam != nil {
		if fam.spec.ReadsLike != "" {
			a.Provider = fam.spec.ReadsLike
		}
		a.Operator = m.operatorReading(fam)
	}
	r := provider.Classify(a)
	finishProviderRule(m, &r)
	m.clock = r.Clock
	seedClassifierNames(m, r)
	if r.Class == "" {
		if status >= 200 && status < 300 && successLimits(m, a) {
			return errLimitsOnly
		}
		return &RequestError{Field: "provider_response", Description: "the answer carries no error (a success status without an error event) and reports no rate limit; only errors translate"}
	}
	d := providerDetailStruct(m, p.GetProvider(), status, r)
	// The provider code is in the detail already, so the classified
	// reading has nothing to merge (producerDetail); ErrorInfo takes it
	// from m.providerCode, set below.
	ce := &errsvcv1.ClassifiedError{
		Code:    r.Kind,
		Message: r.Message,
		Class:   r.Class,
		Detail:  d,
	}
	if r.RetryAfterSecs != nil {
		m.providerSecs = float64(*r.RetryAfterSecs)
		ce.RetryAfterSecs = &m.providerSecs
	}
	if err := decodeClassifiedDetail(m, ce, providerDetailClean(m, p.GetProvider(), r)); err != nil {
		return err
	}
	m.providerCode = m.sanitizeShort(r.Code)
	m.originalTerm = m.providerCode
	if m.originalTerm == "" {
		m.originalTerm = r.Kind
	}
	providerWaitNotes(m, r, p.GetHeaders())
	limitFromProvider(m, r.Limit)
	// An answer errsvc wrote (openai_error, anthropic_error, google_error)
	// carries the whole facet in Errsvc-Limit: kind, scope and reset read
	// back as they were, not as the provider's own headers narrow them.
	readErrsvcLimit(m, p.GetHeaders(), r.HeadersFolded)
	if r.AfterOutput {
		afterOutput(m)
	}
	return nil
}

// seedClassifierNames records in the memo a code the rule is named by: a
// key of the classifier's tables, as spelt there, one of a finite set like
// the rule and the wait source; the sanitiser has seen each once in the
// process (cleanClassifierTerm), so the translation does not run it on the
// code again (the detail, ErrorInfo and the original term all carry it).
func seedClassifierNames(m *model, r provider.Result) {
	if len(r.Code) < len(r.Rule) && r.Rule[len(r.Rule)-len(r.Code)-1] == '.' && strings.HasSuffix(r.Rule, r.Code) {
		m.memo.seedClean(r.Code)
	}
}

// providerDetailStruct is the provider answer's detail, built as a Struct
// directly (no map[string]any detour): the provider name, the rule and the
// wait source are short terms, the status a number, and the flags shared
// values.
func providerDetailStruct(m *model, name string, status int32, r provider.Result) *structpb.Struct {
	fields := m.fieldsMap(providerDetailFields, 8)
	st := &m.store.provider
	fields["provider"] = st.text(name)
	st.status.NumberValue = float64(status)
	st.statusValue.Kind = &st.status
	fields["status"] = &st.statusValue
	fields["rule"] = st.text(r.Rule)
	if r.Code != "" {
		fields["provider_code"] = st.text(r.Code)
	}
	if r.WaitSource != "" {
		fields["wait_source"] = st.text(r.WaitSource)
	}
	if r.Stream {
		fields["stream"] = valueTrue
	}
	if r.InBody {
		fields["in_body"] = valueTrue
	}
	if r.AfterOutput {
		fields["after_output"] = valueTrue
	}
	st.detail.Fields = fields
	return &st.detail
}

// providerWaitNotes says when the provider's wait was long or cut: never a
// silent change (a longer producer value wins; capping is the consumer's).
func providerWaitNotes(m *model, r provider.Result, headers map[string]string) {
	switch {
	case r.Class != classTransient && hasWaitHeader(headers):
		// The classifier reads a wait for a transient answer only: say why
		// the one the answer carried is not passed on.
		m.noteCached(errsvcv1.NoteCode_NOTE_CODE_FIELD_DROPPED, noteKey{format: "the answer's Retry-After wait is not passed on: the answer is not transient, so no retry is known to help"})
	case r.RetryAfterSecs == nil && hasWaitHeader(headers):
		m.noteCached(errsvcv1.NoteCode_NOTE_CODE_FIELD_DROPPED, noteKey{format: "the answer's Retry-After or retry-after-ms header is not read as its wait: this provider's own clients do not read that header, or not in that form (docs/PROVIDERS.md, the wait sources per provider)"})
	case r.WaitClamped:
		m.note(errsvcv1.NoteCode_NOTE_CODE_WAIT_ROUNDED, "the provider's wait (%s) is longer than retry_after_ms can carry; clamped to %d s", r.WaitSource, *r.RetryAfterSecs)
	case r.RetryAfterSecs != nil && *r.RetryAfterSecs > provider.LongWaitSecs:
		m.note(errsvcv1.NoteCode_NOTE_CODE_LONG_WAIT, "the provider asks for a wait of %d s (%s); it passes whole, and capping it is the consumer's choice", *r.RetryAfterSecs, r.WaitSource)
	}
}

// partialOutputGuidance replaces a retry action's guidance when output
// had begun: the retry is still right when the class says so, but the
// caller must know it regenerates what it already has.
const partialOutputGuidance = "The stream had delivered output before it failed: a retry with the same input regenerates the answer from the start and repeats that output. Discard the partial output, or keep it and continue from it, before retrying; honour retry_after_ms when present."

// afterOutput marks an error that arrived after the stream had delivered
// output. The class stays what the error says; the recovery says that
// repeating the call repeats content: same_arguments is at most
// discouraged (no read-only or idempotent hint makes a regenerated answer
// the same call), and a retry action's guidance says what to do with the
// partial output.
func afterOutput(m *model) {
	if m.callerRecovery {
		return
	}
	if m.sameArgs == "safe" || m.sameArgs == "conditional" {
		m.sameArgs = "discouraged"
	}
	if m.action == "retry_later" {
		m.guidance = partialOutputGuidance
	}
	m.note(errsvcv1.NoteCode_NOTE_CODE_PARTIAL_OUTPUT, "output had begun before the error: a retry with the same input repeats it; same_arguments is %s", m.sameArgs)
}

// providerDetail holds a provider answer's detail values (four strings and
// the status at most) in the response storage.
type providerDetail struct {
	strs        [4]structpb.Value
	kinds       [4]structpb.Value_StringValue
	used        int
	status      structpb.Value_NumberValue
	statusValue structpb.Value
	detail      structpb.Struct
}

func (d *providerDetail) text(s string) *structpb.Value {
	if d.used == len(d.strs) {
		return structpb.NewStringValue(s)
	}
	v, k := &d.strs[d.used], &d.kinds[d.used]
	d.used++
	k.StringValue = s
	v.Kind = k
	return v
}

// providerDetailClean reports that the provider detail is its own
// sanitised form (what unchangedStruct would find, without reading the
// map back): every key a plain key, every string unchanged by the
// sanitiser (the rule and the wait source, the classifier's names, by
// cleanClassifierTerm; the name and the code through the memo) and the
// whole far below the detail's size bound.
func providerDetailClean(m *model, name string, r provider.Result) bool {
	const c = 4096 // sanitize.DefaultLimits.StringCap
	return providerKeysPlain && len(name)+len(r.Rule)+len(r.Code)+len(r.WaitSource) <= 1024 &&
		(r.Rule == "" || cleanClassifierTerm(r.Rule)) && (r.WaitSource == "" || cleanClassifierTerm(r.WaitSource)) &&
		m.memo.unchanged(name, c) && m.memo.unchanged(r.Code, c)
}

// providerKeysPlain says every key of the provider detail passed the plain
// key check (TestPlainKeysAllVerified fails otherwise).
var providerKeysPlain = func() bool {
	for _, k := range []string{"provider", "status", "rule", "provider_code", "wait_source", "stream", "in_body", "after_output"} {
		if !plainKeys[k] {
			return false
		}
	}
	return true
}()

// classifierTerms remembers, for each rule, wait source and table code
// the classifier gave, whether the sanitiser leaves it as it is. The names
// come from the classifier's tables (a finite set, never free upstream
// text), so the map stays small; maxClassifierTerms bounds it all the
// same. It is copied on write (a new name is rare after the first
// answers), so a read is one lookup in a plain map, without a lock.
// What it earns a caller (issue 42's rule), with a provider answer as a
// fifth of the calls (ERRSVC_BENCH_PROVIDER_MIX=1): with every name
// sanitised instead, REST Translate cold (c) ran 7.4% and 3.1% slower at
// 16 and 64 callers, gRPC (a) 1.4% and 0.9% faster (bench/ab.sh, 3
// interleaved rounds, 2026-12-05; the rounds' ranges overlap at 16).
var (
	classifierTerms  atomic.Pointer[map[string]bool]
	classifierTermMu sync.Mutex
)

const maxClassifierTerms = 4096

// cleanClassifierTerm reports whether the sanitiser leaves s, a name of the
// classifier, unchanged at every cap from len(s) up (see textMemo).
func cleanClassifierTerm(s string) bool {
	if p := classifierTerms.Load(); p != nil {
		if clean, ok := (*p)[s]; ok {
			return clean
		}
	}
	out, rep := sanitize.TextReport(s, shortCap)
	clean := len(s) <= shortCap && out == s && rep == (sanitize.Report{})
	classifierTermMu.Lock()
	defer classifierTermMu.Unlock()
	old := classifierTerms.Load()
	if old == nil || len(*old) < maxClassifierTerms {
		next := make(map[string]bool, 1+len(deref(old)))
		for k, v := range deref(old) {
			next[k] = v
		}
		next[s] = clean
		classifierTerms.Store(&next)
	}
	return clean
}

func deref(p *map[string]bool) map[string]bool {
	if p == nil {
		return nil
	}
	return *p
}

// hasWaitHeader reports whether headers carry Retry-After or retry-after-ms,
// in any case.
func hasWaitHeader(headers map[string]string) bool {
	for k := range headers {
		if strings.EqualFold(k, "retry-after") || strings.EqualFold(k, "retry-after-ms") {
			return true
		}
	}
	return false
}
