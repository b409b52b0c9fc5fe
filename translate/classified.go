package translate

import (
	"strconv"

	"google.golang.org/protobuf/types/known/structpb"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/translate/sanitize"
)

// Where a producer code's class comes from (ClassifiedCodeRow.class_source).
const (
	classFixed               = "fixed"
	classFromDetail          = "detail"
	classFromDetailOnly      = "detail_only"
	classFromDetailOrRouting = "detail_or_routing_code"
)

// decodeClassified reads an error tagged in the class vocabulary (seed
// 004). The class is read as an open string, from the body's class, then
// detail.class, then the code's fixed class; a code whose contract forbids
// inventing a class (open_failed) stays unclassified without one.
func decodeClassified(m *model, c *errsvcv1.ClassifiedError) error {
	return decodeClassifiedDetail(m, c, false)
}

// decodeClassifiedDetail is decodeClassified for a source that built the
// detail itself; detailClean says it is its own sanitised form already
// (see providerDetailClean), so it is not checked again.
func decodeClassifiedDetail(m *model, c *errsvcv1.ClassifiedError, detailClean bool) error {
	code := term(m, c.GetCode(), "classified_error.code")
	m.originalTerm = code
	if detailClean && c.GetProviderCode() == "" && c.Status == nil && len(c.GetAdditionalFields().GetFields()) == 0 {
		m.detail = c.GetDetail()
	} else {
		m.detail = producerDetail(m, c)
	}
	m.classFromSource = true

	switch detailClass := stringField(c.GetDetail(), "class"); {
	case c.GetClass() != "":
		readClass(m, term(m, c.GetClass(), "classified_error.class"), "classified_error.class")
	case detailClass != "":
		readClass(m, term(m, detailClass, "classified_error.detail.class"), "classified_error.detail.class")
	default:
		classFromCode(m, code, term(m, stringField(c.GetDetail(), "routing_code"), "classified_error.detail.routing_code"))
	}

	if err := classifiedWait(m, c); err != nil {
		return err
	}

	// The Labby kind: the code itself when the matrix knows it as a kind;
	// any other code passes through as the kind, with recovery from the
	// class; a bare class takes its row's kind.
	m.kind = code
	setKind(m, code)
	switch {
	case m.krow != nil:
		completeFromKind(m)
	case code != "" && m.hasClass && m.recognized:
		completeFromClass(m, classRow(m.class))
	case code != "":
		completeFromKind(m)
		m.note(errsvcv1.NoteCode_NOTE_CODE_UNKNOWN_KIND, "code %q carries no known class; the envelope takes the unknown-kind catch-all", clip(code))
	case m.hasClass && m.recognized:
		cr := classRow(m.class)
		m.kind = cr.GetLabbyKind()
		setKind(m, m.kind)
		completeFromClass(m, cr)
		m.note(errsvcv1.NoteCode_NOTE_CODE_DEFAULT_ASSUMED, "no code: kind %q assumed from class %q", m.kind, m.class)
	default:
		m.kind = "internal_error"
		setKind(m, m.kind)
		completeFromKind(m)
		m.note(errsvcv1.NoteCode_NOTE_CODE_DEFAULT_ASSUMED, "neither a code nor a known class: kind internal_error assumed")
	}
	m.message = m.sanitizeCause(c.GetMessage())
	if m.message != c.GetMessage() {
		m.note(errsvcv1.NoteCode_NOTE_CODE_SANITIZED, "classified_error.message was sanitised")
	}
	followClass(m)
	applyRefusalRow(m, classifiedCodeRow(ClassifiedCodes, code))
	deriveAgent(m)
	return nil
}

// applyRefusalRow takes origin, side effects and same_arguments from a
// producer code's row where its contract says what happened (a refusal that
// wrote nothing is none_expected; "the caller retries the same send" is
// safe), unless the caller supplied the recovery.
func applyRefusalRow(m *model, row *errsvcv1.ClassifiedCodeRow) {
	if row == nil {
		return
	}
	if o := row.GetOrigin(); o != "" {
		m.origin = o
		m.sideEffects = originRow(o).GetSideEffects()
	}
	if se := row.GetSideEffects(); se != "" {
		m.sideEffects = se
	}
	if sa := row.GetSameArguments(); sa != "" && !m.callerRecovery {
		m.sameArgs = sa
	}
}

// producerDetail is the classified source's detail for the Labby envelope:
// the producer's detail, its provider_code and status (diagnostics only,
// as the Error Class Contract says, but never silently dropped) and any
// additive member of the body, sanitised; a member of detail wins over the
// same name from elsewhere.
func producerDetail(m *model, c *errsvcv1.ClassifiedError) *structpb.Struct {
	m.providerCode = m.sanitizeShort(c.GetProviderCode())
	if c.Status != nil {
		m.producerStatus = strconv.Itoa(int(c.GetStatus()))
	}
	extra := c.GetAdditionalFields().GetFields()
	if m.providerCode == "" && c.Status == nil && len(extra) == 0 {
		return sanitizeStruct(m, "classified_error.detail", c.GetDetail())
	}
	merged := &structpb.Struct{Fields: make(map[string]*structpb.Value, len(c.GetDetail().GetFields())+len(extra)+2)}
	for k, v := range extra {
		if !lenientWaitKey(k) {
			merged.Fields[k] = v
		}
	}
	if c.GetProviderCode() != "" {
		merged.Fields["provider_code"] = structpb.NewStringValue(c.GetProviderCode())
	}
	if c.Status != nil {
		merged.Fields["status"] = structpb.NewNumberValue(float64(c.GetStatus()))
	}
	for k, v := range c.GetDetail().GetFields() {
		merged.Fields[k] = v
	}
	if m.unchangedStruct(merged, sanitize.DefaultLimits) {
		return merged
	}
	out, rep := sanitize.Struct(merged, sanitize.DefaultLimits)
	noteRedacted(m, "classified_error.detail", rep)
	return out
}

// classFromCode applies a producer code's row when the body carries no class.
func classFromCode(m *model, code, routingCode string) {
	row := classifiedCodeRow(ClassifiedCodes, code)
	switch {
	case row == nil:
		if kr := kindRow(code); kr.GetClass() != "" {
			m.hasClass, m.class, m.recognized = true, kr.GetClass(), true
			return
		}
		if code == "" {
			m.note(errsvcv1.NoteCode_NOTE_CODE_CLASS_ABSENT, "the error carries neither a code nor a class; none is invented")
			return
		}
		m.note(errsvcv1.NoteCode_NOTE_CODE_CLASS_ABSENT, "code %q carries no class; none is invented", clip(code))
	case row.GetClassSource() == classFromDetailOnly:
		m.note(errsvcv1.NoteCode_NOTE_CODE_CLASS_ABSENT, "%s without detail.class stays unclassified; the contract forbids inventing a class", code)
	case row.GetClassSource() == classFromDetailOrRouting:
		classFromRouting(m, routingCode)
	default:
		m.hasClass, m.class, m.recognized = true, row.GetClass(), true
	}
}

// classFromRouting classifies account_selection_refused by routing's code:
// an unknown routing code stays verbatim and transient.
func classFromRouting(m *model, routingCode string) {
	if routingCode == "" {
		m.note(errsvcv1.NoteCode_NOTE_CODE_CLASS_ABSENT, "account_selection_refused without detail.class or detail.routing_code stays unclassified")
		return
	}
	m.hasClass, m.recognized = true, true
	if row := classifiedCodeRow(RoutingCodes, routingCode); row != nil {
		m.class = row.GetClass()
		return
	}
	m.class = classTransient
	m.note(errsvcv1.NoteCode_NOTE_CODE_UNKNOWN_CODE, "routing code %q is unknown; it stays verbatim in detail and is transient", clip(routingCode))
}

// classifiedWait reads the wait: retry_after_secs, else the detail's
// retry_after_secs, else its legacy retry_after_s.
// detailWaitKeys are the detail members a classified error's wait may be
// in, with their paths.
var detailWaitKeys = []struct{ name, field string }{
	{"retry_after_secs", "classified_error.detail.retry_after_secs"},
	{"retry_after_s", "classified_error.detail.retry_after_s"},
}

func classifiedWait(m *model, c *errsvcv1.ClassifiedError) error {
	if c.RetryAfterSecs != nil {
		return setWaitSecs(m, c.GetRetryAfterSecs(), "classified_error.retry_after_secs")
	}
	if v, ok := waitFromAdditional(m, c.GetAdditionalFields(), "retry_after_secs", "classified_error.retry_after_secs"); ok {
		return setWaitSecs(m, v, "classified_error.retry_after_secs")
	}
	for _, key := range detailWaitKeys {
		field := key.field
		if v, ok := numberField(c.GetDetail(), key.name); ok {
			return setWaitSecs(m, v, field)
		}
		if raw, ok := c.GetDetail().GetFields()[key.name]; ok {
			if v, ok := lenientNumber(m, raw, field); ok {
				return setWaitSecs(m, v, field)
			}
		}
	}
	return nil
}
