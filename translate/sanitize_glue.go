package translate

import (
	"strings"

	"google.golang.org/protobuf/types/known/structpb"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/translate/sanitize"
)

// Every piece of caller- or upstream-supplied text that reaches an output
// passes through one of these (Labby agent error contract, Logging And Redaction).

// shortCap bounds terms and names (kinds, tools, services) echoed back.
const shortCap = 256

// evidenceLimits bounds structured evidence: strings at the evidence cap,
// the whole value at 8 KiB (the Code Mode tool error contract's structured content cap).
var evidenceLimits = sanitize.Limits{StringCap: sanitize.EvidenceCap, MaxDepth: 8, MaxItems: 64, MaxBytes: 8 << 10}

// text is sanitize.Text that remembers a cut: the answer is then walked
// for every capped field (noteTruncations), and only then.
func (m *model) text(s string, cap int) string {
	out := sanitize.Text(s, cap)
	if len(out) >= len(sanitize.TruncationMarker) && strings.HasSuffix(out, sanitize.TruncationMarker) {
		m.capped = true
	}
	return out
}

func (m *model) sanitizeCause(s string) string        { return m.text(s, sanitize.CauseCap) }
func (m *model) sanitizeShort(s string) string        { return m.text(s, shortCap) }
func (m *model) sanitizeEvidenceText(s string) string { return m.text(s, sanitize.EvidenceCap) }

// sanitizeStruct sanitises a structured value the source carries at field;
// a redaction inside it (a secret-named key or a secret in its text) is
// noted, since a reader of the response sees a value other than the one
// sent.
func sanitizeStruct(m *model, field string, s *structpb.Struct) *structpb.Struct {
	if s == nil {
		return nil
	}
	out, rep := sanitize.Struct(s, sanitize.DefaultLimits)
	noteRedacted(m, field, rep)
	return out
}

func sanitizeValue(m *model, field string, v *structpb.Value) *structpb.Value {
	if v == nil {
		return nil
	}
	out, rep := sanitize.Value(v, evidenceLimits)
	noteRedacted(m, field, rep)
	return out
}

func noteRedacted(m *model, field string, rep sanitize.Report) {
	if rep.Truncated && m != nil {
		m.capped = true
	}
	if rep.Redacted && m != nil {
		m.note(errsvcv1.NoteCode_NOTE_CODE_SANITIZED, "%s: a value that may be a secret was redacted", field)
	}
}

// sanitizeEvidence re-sanitises evidence a caller passes in an envelope.
func sanitizeEvidence(m *model, field string, e *errsvcv1.Evidence) *errsvcv1.Evidence {
	if e == nil {
		return nil
	}
	out := &errsvcv1.Evidence{
		StructuredContent:    sanitizeValue(m, field+".structured_content", e.GetStructuredContent()),
		ParsedError:          sanitizeValue(m, field+".parsed_error", e.GetParsedError()),
		OmittedContentBlocks: e.OmittedContentBlocks,
		AdditionalFields:     carryAdditional(m, "labby_error.evidence", e.GetAdditionalFields()),
	}
	for i, b := range e.GetContent() {
		if i == maxEvidenceBlocks {
			omitted := e.GetOmittedContentBlocks() + uint32(len(e.GetContent())-maxEvidenceBlocks)
			out.OmittedContentBlocks = &omitted
			break
		}
		out.Content = append(out.Content, &errsvcv1.EvidenceBlock{
			Type:             m.sanitizeShort(b.GetType()),
			Text:             m.sanitizeEvidenceText(b.GetText()),
			MimeType:         m.sanitizeShort(b.GetMimeType()),
			EncodedBytes:     b.EncodedBytes,
			DataOmitted:      b.DataOmitted,
			ContentOmitted:   b.ContentOmitted,
			Uri:              m.sanitizeShort(b.GetUri()),
			AdditionalFields: carryAdditional(m, "labby_error.evidence.content", b.GetAdditionalFields()),
		})
	}
	return out
}
