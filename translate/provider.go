package translate

import (
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/protobuf/types/known/structpb"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
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
	if s := p.GetStatus(); s < 0 || s > 599 {
		return &RequestError{Field: "provider_response.status", Description: "must be an HTTP status up to 599 (0 when the status is unknown)"}
	}
	a := provider.Answer{
		Provider: p.GetProvider(),
		Status:   int(p.GetStatus()),
		Headers:  p.GetHeaders(),
		Body:     p.GetBody(),
		Clock:    now,
	}
	if p.GetReceivedAt() != nil {
		a.ReceivedAt = p.GetReceivedAt().AsTime()
	}
	r := provider.Classify(a)
	m.clock = r.Clock
	// The rule and the wait source are the classifier's own names, clean
	// by construction: the detail's check (sanitizeStruct) reads them from
	// the memo rather than running the sanitiser on them.
	m.memo.seedClean(r.Rule)
	m.memo.seedClean(r.WaitSource)
	if len(r.Code) < len(r.Rule) && r.Rule[len(r.Rule)-len(r.Code)-1] == '.' && strings.HasSuffix(r.Rule, r.Code) {
		// A code the rule is named by is a key of the classifier's
		// tables, as spelt there: one of a finite set as well.
		m.memo.seedClean(r.Code)
	}
	if r.Class == "" {
		return &RequestError{Field: "provider_response", Description: "the answer carries no error (a success status without an error event); only errors translate"}
	}
	// The detail is built as a Struct directly (no map[string]any detour);
	// the provider name, the rule and the wait source are short terms, the
	// status a number, and the flags shared values.
	fields := make(map[string]*structpb.Value, 8)
	st := &m.store.provider
	fields["provider"] = st.text(p.GetProvider())
	st.status.NumberValue = float64(p.GetStatus())
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
	d := &structpb.Struct{Fields: fields}
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
		secs := float64(*r.RetryAfterSecs)
		ce.RetryAfterSecs = &secs
	}
	if err := decodeClassified(m, ce); err != nil {
		return err
	}
	m.providerCode = m.sanitizeShort(r.Code)
	m.originalTerm = m.providerCode
	if m.originalTerm == "" {
		m.originalTerm = r.Kind
	}
	providerWaitNotes(m, r)
	if r.AfterOutput {
		afterOutput(m)
	}
	return nil
}

// providerWaitNotes says when the provider's wait was long or cut: never a
// silent change (a longer producer value wins; capping is the consumer's).
func providerWaitNotes(m *model, r provider.Result) {
	switch {
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

// classifierTerms remembers, for each rule and wait source name the
// classifier gave, whether the sanitiser leaves it as it is. The names come
// from the classifier's tables (a finite set, never upstream text), so the
// map stays small; maxClassifierTerms bounds it all the same.
var (
	classifierTerms     sync.Map // string → bool
	classifierTermCount atomic.Int32
)

const maxClassifierTerms = 4096

// cleanClassifierTerm reports whether the sanitiser leaves s, a name of the
// classifier, unchanged at every cap from len(s) up (see textMemo).
func cleanClassifierTerm(s string) bool {
	if v, ok := classifierTerms.Load(s); ok {
		return v.(bool)
	}
	out, rep := sanitize.TextReport(s, shortCap)
	clean := len(s) <= shortCap && out == s && rep == (sanitize.Report{})
	if classifierTermCount.Add(1) <= maxClassifierTerms {
		classifierTerms.Store(s, clean)
	}
	return clean
}
