package translate

import (
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"google.golang.org/protobuf/types/known/structpb"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/translate/sanitize"
)

// AgentMessageCap is the Agent Surface error model's bound on an agent-safe message, in characters.
const AgentMessageCap = 300

// decodeAgent reads an AgentCapabilityErrorPayload and derives the Labby
// envelope from the code's canonical kind and the retry hint's meaning.
func decodeAgent(m *model, a *errsvcv1.AgentError) error {
	if a.GetCode() == "" {
		return &RequestError{Field: "agent_error.code", Description: "required: one of the 16 AgentCapabilityErrorCode strings"}
	}
	m.agentExtra = carryAdditional(m, "agent_error", a.GetAdditionalFields())
	if err := decodeAgentProjection(m, a, "agent_error"); err != nil {
		return err
	}
	m.originalTerm = m.agentCode
	row := m.agentRowFor(m.agentCode)
	reason := stringField(a.GetDetails(), "reason")
	m.kind = agentKind(row, reason)
	setKind(m, m.kind)
	completeFromKind(m)
	// The recovery follows the retry hint: the kind's own recovery only when
	// it means the same hint, so a denial never reads as a retry.
	if ar := actionRow(m.action); ar.GetAgentRetry() != m.agentRetry {
		if rr := retryRow(m.agentRetry); rr != nil {
			m.action, m.sameArgs, m.guidance = rr.GetAction(), rr.GetSameArguments(), rr.GetAdvice()
		}
	}
	m.message = m.sanitizeCause(a.GetMessage())
	if m.message == "" {
		m.message = agentMessage(m)
	} else {
		// The producer's text is untrusted: it goes to the Labby
		// envelope's message (sanitised), never to an agent message.
		m.noteCached(errsvcv1.NoteCode_NOTE_CODE_MESSAGE_TEMPLATED, noteKey{format: "agent_error.message is carried in labby_error.message; every agent message errsvc writes is templated from the code and retry hint"})
	}
	// HTTP and gRPC status follow the agent code, or the class when the
	// code has none of its own (a transient EXECUTION_FAILED answers 503).
	m.httpStatus, m.grpcCode = row.GetHttpStatus(), row.GetGrpcCode()
	if row.GetClass() == "" && m.hasClass && m.recognized {
		cr := classRow(m.class)
		m.httpStatus, m.grpcCode = cr.GetHttpStatus(), cr.GetGrpcCode()
	}
	if m.policy != nil {
		if a := m.policy.agentCodes[m.agentCode]; a != nil {
			finishPolicyAgentCode(m, a)
		}
	}
	return nil
}

// agentFields are the paths of an agent payload's fields, built once for
// each place a payload can be (no string is built per call).
type agentFields struct{ code, retry, details, retryAfterMs string }

func agentFieldsAt(field string) agentFields {
	return agentFields{field + ".code", field + ".retry", field + ".details", field + ".details.retryAfterMs"}
}

var (
	agentSourceFields   = agentFieldsAt("agent_error")
	envelopeAgentFields = agentFieldsAt("labby_error.agent_error")
)

func agentFieldsOf(field string) agentFields {
	switch field {
	case "agent_error":
		return agentSourceFields
	case "labby_error.agent_error":
		return envelopeAgentFields
	}
	return agentFieldsAt(field)
}

// decodeAgentProjection reads the agent code, retry and details of an agent
// payload (the source itself, or the additive agent_error of an envelope):
// code, retry and details are preserved losslessly, as the Agent Surface error model asks of
// adapters, except that a per-reason rule beats a contradicting hint.
func decodeAgentProjection(m *model, a *errsvcv1.AgentError, field string) error {
	f := agentFieldsOf(field)
	code := term(m, a.GetCode(), f.code)
	if code == "" {
		return &RequestError{Field: f.code, Description: "nothing is left of the code once control characters are removed"}
	}
	row := agentCodeRow(code)
	if row == nil && m.policy != nil {
		if a, ok := policyAgentCode(m, code); ok {
			row = agentCodeRow(a.SameAs)
		}
	}
	if row == nil {
		m.note(errsvcv1.NoteCode_NOTE_CODE_UNKNOWN_CODE, "agent code %q is not one of the 16; it passes through with %s's meaning%s", clip(code), fallbackAgentCode, didYouMean(AgentCodes.Nearest(code)))
		row = agentCodeRow(fallbackAgentCode)
	}
	// Decided on the whole details, as the producer sent them; only the
	// copy carried to the output is sanitised and capped (with a note).
	raw := a.GetDetails()
	reason := stringField(raw, "reason")
	transient := boolField(raw, "transient")
	idempotent := m.idempotent || boolField(raw, "idempotent")
	m.idempotent = idempotent
	if v, ok := raw.GetFields()["retryAfterMs"]; ok {
		if _, isNum := v.GetKind().(*structpb.Value_NumberValue); isNum {
			n := v.GetNumberValue()
			if n < 0 || math.IsNaN(n) || math.IsInf(n, 0) || n > math.MaxUint32 {
				return &RequestError{Field: f.retryAfterMs, Description: "must be a non-negative number of milliseconds below 2^32"}
			}
			setWaitMs(m, uint32(math.Ceil(n)))
		} else if n, ok := lenientNumber(m, v, f.retryAfterMs); ok {
			setWaitMs(m, uint32(math.Ceil(n)))
		}
	}
	details := sanitizeAgentDetails(m, f.details, raw)

	derived := agentRetryFor(row, reason, "", idempotent, transient)
	given := term(m, a.GetRetry(), f.retry)
	retry := given
	switch rule, hasRule := row.GetRetryByReason()[reason]; {
	case hasRule && given == "":
		retry = rule
		m.note(errsvcv1.NoteCode_NOTE_CODE_DEFAULT_ASSUMED, "agent_error.retry was empty; %s with reason %q means retry %q", clip(code), reason, rule)
	case hasRule && given != rule:
		retry = rule
		m.note(errsvcv1.NoteCode_NOTE_CODE_RETRY_ADJUSTED, "%s with reason %q means retry %q, not %q", clip(code), reason, rule, clip(given))
	case given == "":
		retry = derived
		m.note(errsvcv1.NoteCode_NOTE_CODE_DEFAULT_ASSUMED, "agent_error.retry was empty; %q assumed for %s", derived, clip(code))
	case !AgentRetries.Has(given):
		m.note(errsvcv1.NoteCode_NOTE_CODE_UNKNOWN_TERM, "agent_error.retry %q is not a known hint; it passes through, %q is its meaning elsewhere%s", clip(given), derived, didYouMean(AgentRetries.Nearest(given)))
	case !slices.Contains(row.GetRetries(), given):
		// The matrix closes each code's hints: NOT_AUTHORIZED "yes" would
		// turn a denial into a retry, so the code's own hint replaces it.
		retry = derived
		m.note(errsvcv1.NoteCode_NOTE_CODE_RETRY_ADJUSTED, "retry %q is outside the matrix for %s; %q used", given, clip(code), derived)
	}
	m.agentCode, m.agentRetry, m.agentDetails, m.agentFromSource = code, retry, details, true

	// The class: the code's own, or transient when details.transient says
	// so; none is invented for the rest.
	switch {
	case m.hasClass:
	case row.GetClass() != "":
		m.hasClass, m.class, m.recognized = true, row.GetClass(), true
	case transient:
		m.hasClass, m.class, m.recognized = true, classTransient, true
	default:
		m.note(errsvcv1.NoteCode_NOTE_CODE_CLASS_ABSENT, "agent code %q carries no class; none is invented", clip(code))
	}
	return nil
}

// agentKind is the Labby kind an agent code stands for, refined by reason.
func agentKind(row *errsvcv1.AgentCodeRow, reason string) string {
	if k, ok := row.GetLabbyKindByReason()[reason]; ok {
		return k
	}
	return row.GetLabbyKind()
}

func agentRowOrFallback(code string) *errsvcv1.AgentCodeRow {
	if row := agentCodeRow(code); row != nil {
		return row
	}
	return agentCodeRow(fallbackAgentCode)
}

// encodeAgent writes the agent projection with an agent-safe message.
func encodeAgent(m *model, resp *errsvcv1.TranslateResponse) {
	noteAgentLoss(m)
	a := &m.store.agent
	a.Code, a.Message, a.Retry, a.Details = m.agentCode, agentMessage(m), m.agentRetry, m.agentDetails
	if m.agentFromSource {
		a.AdditionalFields = m.agentExtra
	}
	resp.AgentError = a
}

// noteAgentLoss records what the agent projection cannot carry: the Labby
// kind when the code stands for another kind, and the class when the code
// implies another (or none).
func noteAgentLoss(m *model) {
	if m.agentFromSource {
		return
	}
	row := m.facts().agentRowOf(m.agentCode)
	if k := agentKind(row, stringField(m.agentDetails, "reason")); k != m.kind {
		m.noteTerms(errsvcv1.NoteCode_NOTE_CODE_FIELD_DROPPED, "agent_error cannot carry kind %q; %s stands for %q", clip(m.kind), m.agentCode, k)
	}
	if m.waitMs != nil && !slices.Contains(row.GetDetails(), "retryAfterMs") {
		m.note(errsvcv1.NoteCode_NOTE_CODE_FIELD_DROPPED, "agent_error cannot carry the wait: %s has no retryAfterMs", m.agentCode)
	}
	implied := row.GetClass()
	if implied == "" && boolField(m.agentDetails, "transient") {
		implied = classTransient
	}
	switch {
	case !m.hasClass || implied == m.class:
	case implied == "":
		m.note(errsvcv1.NoteCode_NOTE_CODE_FIELD_DROPPED, "agent_error cannot carry class %q; %s implies no class", clip(m.class), m.agentCode)
	default:
		m.noteTerms(errsvcv1.NoteCode_NOTE_CODE_FIELD_DROPPED, "agent_error cannot carry class %q; %s implies %q", clip(m.class), m.agentCode, implied)
	}
}

// agentPayload is the Agent Surface payload the Labby envelope carries for
// an Agent Surface source: a leased model's own, else a new one.
func agentPayload(m *model) *errsvcv1.AgentError {
	var a *errsvcv1.AgentError
	if r := m.reuse; r != nil && !r.agentUsed {
		a, r.agentUsed = &r.agent, true
	} else {
		a = new(errsvcv1.AgentError)
	}
	a.Code, a.Message, a.Retry, a.Details, a.AdditionalFields = m.agentCode, agentMessage(m), m.agentRetry, m.agentDetails, m.agentExtra
	return a
}

// agentDetailsLimits bound the details copied to the output. They are far
// above the reference's evidence caps on purpose: INVALID_INPUT issues are
// given to the model verbatim, so every issue is kept (the request size
// limit bounds them) and only each string is capped.
var agentDetailsLimits = sanitize.Limits{StringCap: 1024, MaxDepth: 16, MaxItems: 1 << 20, MaxBytes: 16 << 20}

// sanitizeAgentDetails is the sanitised copy of an agent payload's details,
// with a field_truncated note when a cap cut anything.
func sanitizeAgentDetails(m *model, field string, s *structpb.Struct) *structpb.Struct {
	if s == nil {
		return nil
	}
	if m.unchangedStruct(s, agentDetailsLimits) {
		return s
	}
	// A cut leaves its trace in the output, which noteTruncations names.
	out, rep := sanitize.Struct(s, agentDetailsLimits)
	noteRedacted(m, field, rep)
	return out
}

// agentMessage builds the agent-safe message from the code's template and
// the retry hint's advice: never from upstream text (Agent Surface error model,
// EXECUTION_FAILED), at most AgentMessageCap characters. The template and
// advice pairs are rendered once; only a wait adds to them per call.
func agentMessage(m *model) string {
	key := agentMessageMemo{m.agentCode, m.agentRetry, m.waitSecs != nil, 0}
	if m.waitSecs != nil {
		key.wait = *m.waitSecs
	}
	if m.agentMsgSet && m.agentMsgKey == key {
		return m.agentMsg
	}
	msg := renderAgentMessageFor(m)
	m.agentMsg, m.agentMsgKey, m.agentMsgSet = msg, key, true
	return msg
}

// agentMessageMemo is what the agent message depends on: it is asked for
// by several targets, and built once per translation.
type agentMessageMemo struct {
	code, retry string
	hasWait     bool
	wait        uint32
}

func renderAgentMessageFor(m *model) string {
	msg, ok := m.facts().agentMessage(m.agentCode, m.agentRetry)
	if !ok {
		msg, ok = agentMessages[agentMessageKey{m.agentCode, m.agentRetry}]
	}
	if !ok {
		msg = renderAgentMessage(m.agentCode, m.agentRetry)
	}
	if m.waitSecs != nil && m.agentRetry == "after-delay" {
		r := m.reuse
		if r != nil && r.agentWait.msg != "" && r.agentWait.base == msg && r.agentWait.secs == *m.waitSecs {
			msg = r.agentWait.msg
		} else {
			// Built on the stack, copied once into the message's own
			// string, which a leased model keeps: the same answer again
			// (a storm of one error) costs no allocation.
			var room [160]byte
			b := append(append(room[:0], msg...), " Wait at least "...)
			b = append(strconv.AppendUint(b, uint64(*m.waitSecs), 10), " s."...)
			base := msg
			msg = string(b)
			if r != nil {
				r.agentWait = agentWaitMemo{base, *m.waitSecs, msg}
			}
		}
	}
	return truncateRunes(msg, AgentMessageCap)
}

type agentMessageKey struct{ code, retry string }

// agentWaitMemo is an agent message with its wait: base, the template's
// message, with secs gives msg.
type agentWaitMemo struct {
	base string
	secs uint32
	msg  string
}

var agentMessages = func() map[agentMessageKey]string {
	out := map[agentMessageKey]string{}
	for _, c := range AgentCodes.Terms {
		for _, r := range AgentRetries.Terms {
			out[agentMessageKey{c.Wire, r.Wire}] = renderAgentMessage(c.Wire, r.Wire)
		}
	}
	return out
}()

func renderAgentMessage(code, retry string) string {
	msg := agentRowOrFallback(code).GetMessage()
	if rr := retryRow(retry); rr != nil {
		msg += " " + rr.GetAdvice()
	}
	return msg
}

func truncateRunes(s string, n int) string {
	// A string of at most n bytes has at most n runes: the common case
	// needs no counting.
	if len(s) <= n || utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n])
}

func stringField(s *structpb.Struct, key string) string {
	return s.GetFields()[key].GetStringValue()
}

func boolField(s *structpb.Struct, key string) bool {
	return s.GetFields()[key].GetBoolValue()
}

func numberField(s *structpb.Struct, key string) (float64, bool) {
	v, ok := s.GetFields()[key]
	if !ok {
		return 0, false
	}
	n, isNum := v.GetKind().(*structpb.Value_NumberValue)
	if !isNum {
		return 0, false
	}
	return n.NumberValue, true
}
