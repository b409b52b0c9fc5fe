package translate

import (
	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
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
	code := term(m, c.GetCode(), "classified_error.code")
	m.originalTerm = code
	m.detail = sanitizeStruct(m, "classified_error.detail", c.GetDetail())
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
	m.krow = kindRow(code)
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
		m.krow = kindRow(m.kind)
		completeFromClass(m, cr)
		m.note(errsvcv1.NoteCode_NOTE_CODE_DEFAULT_ASSUMED, "no code: kind %q assumed from class %q", m.kind, m.class)
	default:
		m.kind = "internal_error"
		m.krow = kindRow(m.kind)
		completeFromKind(m)
		m.note(errsvcv1.NoteCode_NOTE_CODE_DEFAULT_ASSUMED, "neither a code nor a known class: kind internal_error assumed")
	}
	m.message = sanitizeCause(c.GetMessage())
	if m.message != c.GetMessage() {
		m.note(errsvcv1.NoteCode_NOTE_CODE_SANITIZED, "classified_error.message was sanitised")
	}
	followClass(m)
	deriveAgent(m)
	return nil
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
func classifiedWait(m *model, c *errsvcv1.ClassifiedError) error {
	if c.RetryAfterSecs != nil {
		return setWaitSecs(m, c.GetRetryAfterSecs(), "classified_error.retry_after_secs")
	}
	for _, key := range []string{"retry_after_secs", "retry_after_s"} {
		if v, ok := numberField(c.GetDetail(), key); ok {
			return setWaitSecs(m, v, "classified_error.detail."+key)
		}
	}
	return nil
}
