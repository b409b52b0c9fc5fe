package translate

import (
	"math"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// decodeLabby reads a Labby envelope, or a legacy {kind, message}, and
// completes it from the kind's row. Caller-supplied origin, recovery and
// side effects win over the derived ones.
func decodeLabby(m *model, e *errsvcv1.LabbyError) error {
	if e.GetKind() == "" {
		return &RequestError{Field: "labby_error.kind", Description: "required: the stable kind of the error"}
	}
	if v := e.GetContractVersion(); v != 0 && v != 1 {
		m.note(errsvcv1.NoteCode_NOTE_CODE_CONTRACT_VERSION, "contract_version %d read as version 1", v)
	}
	m.kind = term(m, e.GetKind(), "labby_error.kind")
	if m.kind == "" {
		return &RequestError{Field: "labby_error.kind", Description: "nothing is left of the kind once control characters are removed"}
	}
	m.originalTerm = m.kind
	setKind(m, m.kind)
	if m.krow == nil {
		m.note(errsvcv1.NoteCode_NOTE_CODE_UNKNOWN_KIND, "kind %q is not in the matrix; it passes through and takes the unknown-kind catch-all%s", clip(m.kind), didYouMean(LabbyKinds.Nearest(m.kind)))
	}
	if e.GetSafety() != nil {
		m.readOnly = m.readOnly || e.GetSafety().GetReadOnlyHint()
		m.idempotent = m.idempotent || e.GetSafety().GetIdempotentHint()
	}
	completeFromKind(m)
	if e.GetOrigin() == "" && e.GetRecovery() == nil && e.GetSideEffects() == "" {
		m.note(errsvcv1.NoteCode_NOTE_CODE_DEFAULT_ASSUMED, "origin, recovery and side_effects completed from the kind")
	}
	if o := e.GetOrigin(); o != "" {
		if override(m, &m.origin, o, "origin", Origins) && e.GetSideEffects() == "" {
			m.sideEffects = sideEffectsFor(orCatchAll(m.krow), m.origin)
		}
	}
	override(m, &m.sideEffects, e.GetSideEffects(), "side_effects", SideEffects)
	if r := e.GetRecovery(); r != nil {
		m.callerRecovery = true
		m.callerAction = override(m, &m.action, r.GetAction(), "recovery.action", RecoveryActions)
		override(m, &m.sameArgs, r.GetSameArguments(), "recovery.same_arguments", SameArgs)
		m.guidance = m.sanitizeCause(r.GetGuidance())
		if r.RetryAfterMs != nil {
			setWaitMs(m, r.GetRetryAfterMs())
		} else if v, ok := waitFromAdditional(m, r.GetAdditionalFields(), "retry_after_ms", "labby_error.recovery.retry_after_ms"); ok {
			setWaitMs(m, uint32(math.Ceil(v)))
		}
		m.recoveryExtra = carryAdditional(m, "labby_error.recovery", r.GetAdditionalFields())
	}
	m.message = m.sanitizeCause(e.GetMessage())
	if m.message != e.GetMessage() {
		m.note(errsvcv1.NoteCode_NOTE_CODE_SANITIZED, "labby_error.message was sanitised")
	}
	m.envelope = contextFields(m, e)
	m.detail = sanitizeStruct(m, "labby_error.detail", e.GetDetail())

	// The class: an additive classification wins (the envelope stands for a
	// classified error), then the kind's row; otherwise none is invented.
	switch c := e.GetClassification(); {
	case c.GetClass() != "":
		readClass(m, term(m, c.GetClass(), "labby_error.classification.class"), "labby_error.classification.class")
		m.classFromSource = true
		if m.waitMs == nil {
			const field = "labby_error.classification.retry_after_secs"
			if c.RetryAfterSecs != nil {
				_ = setWaitSecs(m, float64(c.GetRetryAfterSecs()), field)
			} else if v, ok := waitFromAdditional(m, c.GetAdditionalFields(), "retry_after_secs", field); ok {
				_ = setWaitSecs(m, v, field)
			}
		}
	case e.GetAgentError().GetCode() != "":
		// The envelope stands for an agent payload: its code decides the class.
	case m.krow.GetClass() != "":
		m.hasClass, m.class, m.recognized = true, m.krow.GetClass(), true
	default:
		m.note(errsvcv1.NoteCode_NOTE_CODE_CLASS_ABSENT, "kind %q carries no class; none is invented", clip(m.kind))
	}

	if a := e.GetAgentError(); a.GetCode() != "" {
		m.agentExtra = carryAdditional(m, "labby_error.agent_error", a.GetAdditionalFields())
		return decodeAgentProjection(m, a, "labby_error.agent_error")
	}
	if m.classFromSource {
		followClass(m)
	}
	deriveAgent(m)
	return nil
}

// override keeps a caller-supplied term over the derived one. A term
// outside the vocabulary cannot be emitted (the schema pins the enum), so
// the derived term stays and the caller's passes through in a note.
// It reports whether the caller's term was taken.
func override(m *model, derived *string, supplied, field string, v *Vocabulary) bool {
	switch {
	case supplied == "" || supplied == *derived:
		return supplied != ""
	case !v.Has(supplied):
		m.note(errsvcv1.NoteCode_NOTE_CODE_UNKNOWN_TERM, "%s %q is not a known term; %q kept in the envelope%s", field, clip(supplied), *derived, didYouMean(v.Nearest(supplied)))
		return false
	default:
		m.note(errsvcv1.NoteCode_NOTE_CODE_CALLER_OVERRIDE, "%s %q supplied by the caller kept over the derived %q", field, supplied, *derived)
		*derived = supplied
		return true
	}
}

func orCatchAll(row *errsvcv1.KindRow) *errsvcv1.KindRow {
	if row == nil {
		return catchAll
	}
	return row
}

// contextFields copies the envelope's optional context fields, sanitised;
// nil when there are none (the common legacy {kind, message}).
func contextFields(m *model, e *errsvcv1.LabbyError) *errsvcv1.LabbyError {
	if e.Service == "" && e.Action == "" && e.Tool == "" && e.Upstream == "" && e.Command == "" && e.Prompt == "" &&
		e.Resource == "" && e.Cause == "" && e.OriginalKind == "" && e.Safety == nil && e.Evidence == nil &&
		len(e.RequiredScopes) == 0 && len(e.Valid) == 0 && e.Hint == "" && len(e.GetAdditionalFields().GetFields()) == 0 {
		return nil
	}
	return &errsvcv1.LabbyError{
		RequiredScopes:   sanitizeList(m, e.GetRequiredScopes(), "labby_error.required_scopes"),
		Valid:            sanitizeList(m, e.GetValid(), "labby_error.valid"),
		Hint:             m.sanitizeCause(e.GetHint()),
		AdditionalFields: carryAdditional(m, "labby_error", e.GetAdditionalFields()),
		Service:          m.sanitizeShort(e.GetService()),
		Action:           m.sanitizeShort(e.GetAction()),
		Tool:             m.sanitizeShort(e.GetTool()),
		Upstream:         m.sanitizeShort(e.GetUpstream()),
		Command:          m.sanitizeCause(e.GetCommand()),
		Prompt:           m.sanitizeCause(e.GetPrompt()),
		Resource:         m.sanitizeCause(e.GetResource()),
		Cause:            m.sanitizeCause(e.GetCause()),
		OriginalKind:     m.sanitizeShort(e.GetOriginalKind()),
		Safety:           carrySafety(m, "labby_error.safety", e.GetSafety()),
		Evidence:         sanitizeEvidence(m, "labby_error.evidence", e.GetEvidence()),
	}
}

// encodeLabby writes the complete envelope; it always validates against
// agent-error.schema.json.
func encodeLabby(m *model, resp *errsvcv1.TranslateResponse) {
	resp.LabbyError = labbyEnvelope(m)
}

func labbyEnvelope(m *model) *errsvcv1.LabbyError {
	var e *errsvcv1.LabbyError
	if !m.store.labbyUsed {
		// The first envelope of a response (the Labby target's) comes from
		// the storage; another (the Code Mode error's) is one allocation.
		m.store.labbyUsed = true
		e = &m.store.labby
		copyContextInto(e, m.envelope)
		e.Recovery = &m.store.recovery
	} else {
		pair := m.newCodeModeEnvelope()
		e = &pair.envelope
		copyContextInto(e, m.envelope)
		e.Recovery = &pair.recovery
	}
	e.ContractVersion = 1
	e.Kind = m.kind
	e.Message = m.message
	if e.Message == "" {
		e.Message = defaultMessage(m)
		m.note(errsvcv1.NoteCode_NOTE_CODE_DEFAULT_ASSUMED, "labby_error.message was empty; the kind's meaning was used")
	}
	e.Origin = m.origin
	e.SideEffects = m.sideEffects
	r := e.Recovery
	r.Action, r.SameArguments, r.Guidance, r.RetryAfterMs = m.action, m.sameArgs, m.guidance, m.waitMs
	r.AdditionalFields = m.recoveryExtra
	if e.Recovery.Guidance == "" {
		e.Recovery.Guidance = m.facts().actionRowOf(m.action).GetGuidance()
	}
	if m.agentFromSource {
		e.AgentError = agentPayload(m)
	}
	if m.classFromSource && m.hasClass {
		e.Classification = classification(m)
	}
	if m.detail != nil {
		e.Detail = m.detail
	}
	return e
}

// envelopeWithRecovery is an envelope and its recovery in one allocation.
type envelopeWithRecovery struct {
	envelope errsvcv1.LabbyError
	recovery errsvcv1.Recovery
}

// copyContextInto copies src's context fields into e, so the Labby and
// Code Mode targets never share a message (a field-by-field copy:
// proto.Clone's reflection costs more than the whole translation).
func copyContextInto(e, src *errsvcv1.LabbyError) {
	if src == nil {
		return
	}
	e.Service, e.Action, e.Tool, e.Upstream = src.Service, src.Action, src.Tool, src.Upstream
	e.Command, e.Prompt, e.Resource, e.Cause = src.Command, src.Prompt, src.Resource, src.Cause
	e.OriginalKind, e.Safety, e.Evidence = src.OriginalKind, src.Safety, src.Evidence
	e.RequiredScopes, e.Valid, e.Hint, e.AdditionalFields = src.RequiredScopes, src.Valid, src.Hint, src.AdditionalFields
}

// defaultMessage is the kind's meaning, for a source that carried no text.
func defaultMessage(m *model) string {
	if t, ok := LabbyKinds.Lookup(m.kind); ok {
		return t.Meaning
	}
	if t, ok := ClassifiedCodes.Lookup(m.kind); ok {
		return t.Meaning
	}
	if m.hasClass && m.recognized {
		t, _ := Classes.Lookup(m.class)
		return t.Meaning
	}
	return "An error of kind " + clip(m.kind) + " occurred."
}
