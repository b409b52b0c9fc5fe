package translate

import (
	"math"
	"slices"
	"strings"

	"google.golang.org/protobuf/types/known/structpb"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/translate/sanitize"
)

// The rules that turn one row into the fields of another vocabulary. Every
// source calls these, so a derived field means the same whichever
// vocabulary the error arrived in.

// catchAll is the Labby agent error contract's unknown-kind row: origin runtime, side effects
// unknown, inspect_and_escalate with discouraged same arguments. The
// reference implementation relaxes it with hints; the contract does not, and
// the contract wins.
var catchAll = &errsvcv1.KindRow{
	Origin:           "runtime",
	Action:           "inspect_and_escalate",
	SameArguments:    "discouraged",
	HttpStatus:       500,
	AgentCode:        "EXECUTION_FAILED",
	PassesRetryAfter: true,
}

// fallbackAgentCode is the code whose semantics an unknown agent code gets.
const fallbackAgentCode = "EXECUTION_FAILED"

// classTransient is the one class some rules branch on.
const classTransient = "transient"

// completeFromKind fills origin, recovery and side effects from the kind's
// row (or the catch-all), applying the read-only/idempotent relaxation.
func completeFromKind(m *model) {
	row := m.krow
	if row == nil {
		row = catchAll
	}
	m.origin, m.action, m.sameArgs = row.GetOrigin(), row.GetAction(), row.GetSameArguments()
	if m.sameArgs == "discouraged" && row.GetRelaxWithHints() && (m.readOnly || m.idempotent) {
		m.sameArgs = "conditional"
		m.note(errsvcv1.NoteCode_NOTE_CODE_HINTS_RELAXED, "same_arguments discouraged became conditional: the tool is read-only or idempotent")
	}
	m.sideEffects = m.facts().sideEffects // sideEffectsFor(row, m.origin)
	m.httpStatus = row.GetHttpStatus()
	m.grpcCode = row.GetGrpcCode()
}

// completeFromClass fills origin and recovery from a bare class's row.
func completeFromClass(m *model, cr *errsvcv1.ClassRow) {
	m.origin, m.action, m.sameArgs = cr.GetOrigin(), cr.GetAction(), cr.GetSameArguments()
	m.sideEffects = originRow(m.origin).GetSideEffects()
	m.httpStatus = cr.GetHttpStatus()
	m.grpcCode = cr.GetGrpcCode()
}

// sideEffectsFor follows the origin unless the kind overrides it.
func sideEffectsFor(row *errsvcv1.KindRow, origin string) string {
	if s := row.GetSideEffects(); s != "" {
		return s
	}
	if or := originRow(origin); or != nil {
		return or.GetSideEffects()
	}
	return "unknown"
}

// agentRetryFor chooses the retry hint of an agent code: the code's
// per-reason rule first (a denial is never a retry), then the idempotent
// and transient rules, then the hint the recovery action means when the
// code allows it, else the code's default.
func agentRetryFor(row *errsvcv1.AgentCodeRow, reason, action string, idempotent, transient bool) string {
	return agentRetryWith(row, reason, actionRow(action), idempotent, transient)
}

// agentRetryWith is agentRetryFor with the recovery action's row.
func agentRetryWith(row *errsvcv1.AgentCodeRow, reason string, ar *errsvcv1.ActionRow, idempotent, transient bool) string {
	if r, ok := row.GetRetryByReason()[reason]; ok {
		return r
	}
	if r := row.GetRetryIfIdempotent(); r != "" && idempotent {
		return r
	}
	if r := row.GetRetryIfTransient(); r != "" && transient {
		return r
	}
	if ar != nil && slices.Contains(row.GetRetries(), ar.GetAgentRetry()) {
		return ar.GetAgentRetry()
	}
	return row.GetRetry()
}

// agentDetailsFor builds the agent-safe details of a derived agent error:
// only the keys the matrix allows for the code, each from the model.
func agentDetailsFor(m *model, row *errsvcv1.AgentCodeRow, reason string) *structpb.Struct {
	var fields map[string]*structpb.Value
	set := func(k string, v *structpb.Value) {
		if fields == nil {
			fields = m.fieldsMap(agentDetailFields, len(row.GetDetails()))
		}
		fields[k] = v
	}
	for _, key := range row.GetDetails() {
		switch key {
		case "reason":
			if reason != "" {
				v, ok := reasonValues[reason]
				if !ok {
					v = structpb.NewStringValue(reason)
				}
				set(key, v)
			}
		case "retryAfterMs":
			if m.waitMs != nil {
				m.store.waitNumber.NumberValue = float64(*m.waitMs)
				m.store.waitValue.Kind = &m.store.waitNumber
				set(key, &m.store.waitValue)
			}
		case "transient":
			if m.hasClass && m.class == classTransient {
				set(key, valueTrue)
			}
		case "idempotent":
			set(key, boolValue(m.idempotent))
		case "origin":
			// A translated error was produced past the agent's own runtime.
			set(key, valueServer)
		}
	}
	if len(fields) == 0 {
		return nil
	}
	m.store.agentDetails.Fields = fields
	return &m.store.agentDetails
}

// Shared, never mutated Values of derived details (see Translate on
// sharing): the terms come from the rows, so only a wait is per call.
var (
	valueTrue    = structpb.NewBoolValue(true)
	valueFalse   = structpb.NewBoolValue(false)
	valueServer  = structpb.NewStringValue("server")
	reasonValues = func() map[string]*structpb.Value {
		out := map[string]*structpb.Value{}
		for _, t := range LabbyKinds.Terms {
			if r := t.Row.(*errsvcv1.KindRow).GetAgentReason(); r != "" {
				out[r] = structpb.NewStringValue(r)
			}
		}
		return out
	}()
)

func boolValue(b bool) *structpb.Value {
	if b {
		return valueTrue
	}
	return valueFalse
}

// classOverridesRow reports whether the source produced a class that the
// kind's row does not have (a billing-exhausted quota_exceeded is
// permanent, the row's quota_exceeded transient). The produced class wins
// (Error Class Contract v1), so the statuses and the agent projection follow the class.
func classOverridesRow(m *model) bool {
	return m.krow != nil && m.hasClass && m.recognized && m.krow.GetClass() != m.class
}

// followClass takes the gRPC code, the recovery and the agent projection
// from the class's row when the produced class overrides the kind's, so a
// gRPC retry policy never retries a permanent error as UNAVAILABLE. The
// HTTP status stays the kind's: the Labby error contract assigns HTTP per
// kind (a quota_exceeded is 413, a rate_limited 429 whatever its class),
// and its 422 means invalid input, confirmation, SSRF or paths only.
func followClass(m *model) {
	if classOverridesRow(m) {
		cr := classRow(m.class)
		m.grpcCode = cr.GetGrpcCode()
		if !m.callerRecovery {
			m.action, m.sameArgs = cr.GetAction(), cr.GetSameArguments()
		}
		rowClass := "no class"
		if c := m.krow.GetClass(); c != "" {
			rowClass = "class " + c
		}
		m.note(errsvcv1.NoteCode_NOTE_CODE_CALLER_OVERRIDE, "class %s produced by the source overrides kind %s's %s: the gRPC code, recovery and the agent error follow the class; the HTTP status (%d) does not", m.class, m.kind, rowClass, m.httpStatus)
	}
}

// detailsKey names a derived details object that depends on nothing but
// the row: no wait (which is per call).
type detailsKey struct {
	code, reason          string
	transient, idempotent bool
}

// staticDetails holds every wait-free derived details object, built once
// from the rows. Responses share them: they are never mutated after init.
var staticDetails = func() map[detailsKey]*structpb.Struct {
	out := map[detailsKey]*structpb.Struct{}
	reasons := map[string][]string{}
	for _, t := range LabbyKinds.Terms {
		r := t.Row.(*errsvcv1.KindRow)
		reasons[r.GetAgentCode()] = append(reasons[r.GetAgentCode()], r.GetAgentReason())
	}
	for _, t := range AgentCodes.Terms {
		row := t.Row.(*errsvcv1.AgentCodeRow)
		for _, reason := range append(reasons[t.Wire], "") {
			for _, transient := range []bool{false, true} {
				for _, idem := range []bool{false, true} {
					m := &model{idempotent: idem, hasClass: transient}
					if transient {
						m.class = classTransient
					}
					out[detailsKey{t.Wire, reason, transient, idem}] = agentDetailsFor(m, row, reason)
				}
			}
		}
	}
	return out
}()

// cachedAgentDetails returns the shared details object when the model has
// no wait, else builds one.
func cachedAgentDetails(m *model, code string, row *errsvcv1.AgentCodeRow, reason string) *structpb.Struct {
	if m.waitMs == nil {
		key := detailsKey{code, reason, m.hasClass && m.class == classTransient, m.idempotent}
		if d, ok := staticDetails[key]; ok {
			return d
		}
	}
	return agentDetailsFor(m, row, reason)
}

// deriveAgent fills the agent projection from the model's kind and class.
func deriveAgent(m *model) {
	row := m.krow
	if row == nil {
		row = catchAll
	}
	code := row.GetAgentCode()
	reason := row.GetAgentReason()
	if m.krow == nil && m.hasClass && m.recognized || classOverridesRow(m) {
		code, reason = classRow(m.class).GetAgentCode(), ""
	}
	transient := m.hasClass && m.class == classTransient
	m.agentCode = code
	// The facts are row's (m.facts follows krow or the catch-all, as row does).
	if f := m.facts(); code == row.GetAgentCode() && reason == row.GetAgentReason() {
		m.agentRetry = agentRetryWith(f.agent, reason, f.actionRowOf(m.action), m.idempotent, transient)
		if m.waitMs == nil {
			m.agentDetails = f.details[b2i(transient)][b2i(m.idempotent)]
		} else {
			m.agentDetails = agentDetailsFor(m, f.agent, reason)
		}
		return
	}
	ar := agentCodeRow(code)
	m.agentRetry = agentRetryFor(ar, reason, m.action, m.idempotent, transient)
	m.agentDetails = cachedAgentDetails(m, code, ar, reason)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// setWaitMs records a wait given in milliseconds and its whole seconds.
func setWaitMs(m *model, ms uint32) {
	secs := (uint64(ms) + 999) / 1000
	s := uint32(secs)
	m.setWait(s, ms)
	if uint64(ms)%1000 != 0 {
		m.note(errsvcv1.NoteCode_NOTE_CODE_WAIT_ROUNDED, "retry_after_ms %d rounded up to retry_after_secs %d", ms, s)
	}
}

// maxWaitSecs bounds a wait so its milliseconds fit retry_after_ms.
const maxWaitSecs = math.MaxUint32 / 1000

// setWaitSecs records a wait given in (possibly fractional) seconds.
func setWaitSecs(m *model, secs float64, field string) error {
	if math.IsNaN(secs) || math.IsInf(secs, 0) || secs < 0 {
		return &RequestError{Field: field, Description: "must be a non-negative number of seconds"}
	}
	whole := math.Ceil(secs)
	if whole != secs {
		m.note(errsvcv1.NoteCode_NOTE_CODE_WAIT_ROUNDED, "%s %g rounded up to %g", field, secs, whole)
	}
	if whole > maxWaitSecs {
		m.note(errsvcv1.NoteCode_NOTE_CODE_WAIT_ROUNDED, "%s %g clamped to %d", field, whole, maxWaitSecs)
		whole = maxWaitSecs
	}
	s := uint32(whole)
	m.setWait(s, s*1000)
	return nil
}

// readClass decodes a class as an open string: `auth` is read as
// auth_required, a class outside the four passes through verbatim.
func readClass(m *model, class, field string) {
	m.hasClass, m.class = true, class
	switch {
	case Classes.Has(class):
		m.recognized = true
	case class == "auth":
		m.class, m.recognized = "auth_required", true
		m.note(errsvcv1.NoteCode_NOTE_CODE_ALIAS_RECOGNIZED, "%s `auth` read as auth_required", field)
	default:
		m.recognized = false
		m.note(errsvcv1.NoteCode_NOTE_CODE_UNKNOWN_CLASS, "%s %q is not one of the four classes; passed through verbatim%s", field, clip(class), didYouMean(Classes.Nearest(class)))
	}
}

// grpcCodeFor returns the row's gRPC code, else the one its HTTP status
// means. AIP-194 clients retry UNAVAILABLE on their own, so an answer whose
// one decision is not a retry (retryHelps) never says it, not even when a
// grpc_status source said it (whose own code survives otherwise): it says
// its recognised class's code, else UNKNOWN (a class outside the four
// leaves the decision to the consumer, and AIP-194 does not retry UNKNOWN).
func grpcCodeFor(m *model) string {
	c := rowGRPCCode(m.grpcCode, m.httpStatus)
	if c == codeUnavailable && !retryHelps(m) {
		if cr := recognizedClassRow(m); cr != nil && cr.GetGrpcCode() != codeUnavailable {
			return cr.GetGrpcCode()
		}
		return "UNKNOWN"
	}
	return c
}

// rowGRPCCode is a row's gRPC code, else the one its HTTP status means.
func rowGRPCCode(code string, httpStatus int32) string {
	if code != "" {
		return code
	}
	return grpcCodeByHTTP(httpStatus)
}

// codeUnavailable is the one gRPC code AIP-194 clients retry automatically.
const codeUnavailable = "UNAVAILABLE"

// term reads a caller-supplied vocabulary term: it passes through intact
// unless it carries what no output may (a secret, control characters),
// in which case the sanitised term travels on, with a note.
func term(m *model, s, field string) string {
	// A name has no context for the secret rules: a bare random token used
	// as a term is redacted whole (sanitize.Identifier).
	if knownTerms[s] {
		// A term of the vocabularies is clean by construction. What the
		// shortcut (here and in clip) earns a caller: with every term
		// sanitised instead, gRPC Translate cold (a) ran 1.8% and 2.4%
		// slower at 16 and 64 callers, REST (c) 0.9% and 3.0% (bench/ab.sh,
		// 3 interleaved rounds, 2026-12-05): at issue 42's 3% on c at 64.
		return s
	}
	clean := sanitize.Identifier(s, shortCap)
	if strings.HasSuffix(clean, sanitize.TruncationMarker) {
		m.capped = true
	}
	if clean != s {
		m.note(errsvcv1.NoteCode_NOTE_CODE_SANITIZED, "%s was sanitised", field)
	}
	return clean
}

// clip bounds a caller-supplied term quoted in a note. A vocabulary term
// is its own sanitised form (TestKnownTermsAreClean).
func clip(s string) string {
	if knownTerms[s] {
		return s
	}
	return sanitize.Identifier(s, shortCap)
}
