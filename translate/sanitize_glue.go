package translate

import (
	"google.golang.org/protobuf/types/known/structpb"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/translate/sanitize"
)

// Every piece of caller- or upstream-supplied text that reaches an output
// passes through one of these (seed 000, Logging And Redaction).

// shortCap bounds terms and names (kinds, tools, services) echoed back.
const shortCap = 256

// evidenceLimits bounds structured evidence: strings at the evidence cap,
// the whole value at 8 KiB (seed 001's structured content cap).
var evidenceLimits = sanitize.Limits{StringCap: sanitize.EvidenceCap, MaxDepth: 8, MaxItems: 64, MaxBytes: 8 << 10}

func sanitizeCause(s string) string        { return sanitize.Text(s, sanitize.CauseCap) }
func sanitizeShort(s string) string        { return sanitize.Text(s, shortCap) }
func sanitizeEvidenceText(s string) string { return sanitize.Text(s, sanitize.EvidenceCap) }

func sanitizeStruct(s *structpb.Struct) *structpb.Struct {
	if s == nil {
		return nil
	}
	out, _ := sanitize.Struct(s, sanitize.DefaultLimits)
	return out
}

func sanitizeValue(v *structpb.Value) *structpb.Value {
	if v == nil {
		return nil
	}
	out, _ := sanitize.Value(v, evidenceLimits)
	return out
}

// sanitizeEvidence re-sanitises evidence a caller passes in an envelope.
func sanitizeEvidence(m *model, e *errsvcv1.Evidence) *errsvcv1.Evidence {
	if e == nil {
		return nil
	}
	out := &errsvcv1.Evidence{
		StructuredContent:    sanitizeValue(e.GetStructuredContent()),
		ParsedError:          sanitizeValue(e.GetParsedError()),
		OmittedContentBlocks: e.OmittedContentBlocks,
		AdditionalFields:     carryAdditional(e.GetAdditionalFields()),
	}
	for i, b := range e.GetContent() {
		if i == maxEvidenceBlocks {
			omitted := e.GetOmittedContentBlocks() + uint32(len(e.GetContent())-maxEvidenceBlocks)
			out.OmittedContentBlocks = &omitted
			break
		}
		out.Content = append(out.Content, &errsvcv1.EvidenceBlock{
			Type:             sanitizeShort(b.GetType()),
			Text:             sanitizeEvidenceText(b.GetText()),
			MimeType:         sanitizeShort(b.GetMimeType()),
			EncodedBytes:     b.EncodedBytes,
			DataOmitted:      b.DataOmitted,
			ContentOmitted:   b.ContentOmitted,
			Uri:              sanitizeShort(b.GetUri()),
			AdditionalFields: carryAdditional(b.GetAdditionalFields()),
		})
	}
	return out
}
