package translate

import (
	"math"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// Code Mode evidence limits (Code Mode tool error contract; the reference implementation's caps).
const (
	maxEvidenceBlocks   = 16
	maxParsedTextBytes  = 64 << 10
	toolErrorKind       = "tool_error"
	toolExecutionOrigin = "tool_execution"
)

// isCodeModeTool tells whether s has the `namespace::name` shape the Code
// Mode schema pins with the pattern ^.+::.+$: a "::" with at least one
// character on each side, and no newline (which `.` does not match).
func isCodeModeTool(s string) bool {
	return len(s) >= 4 && strings.Contains(s[1:len(s)-1], "::") && !strings.Contains(s, "\n")
}

// decodeToolResult reads a completed MCP isError result (Code Mode tool error contract). A
// completed result proves the connection worked, so it is never a transport
// failure: origin is always tool_execution, and only the kinds the matrix
// marks code_mode_keeps survive; every other kind becomes tool_error with
// the raw kind in original_kind.
func decodeToolResult(m *model, r *errsvcv1.McpToolResult) error {
	if !r.GetIsError() {
		return &RequestError{Field: "mcp_tool_result.is_error", Description: "the result is not an error (is_error is false); only isError results translate"}
	}
	if a := r.GetAnnotations(); a != nil {
		m.readOnly = m.readOnly || a.GetReadOnlyHint()
		m.idempotent = m.idempotent || a.GetIdempotentHint()
	}
	parsed, parsedValue := structuredError(m, r)
	rawKind := stringField(parsed, "kind")
	m.originalTerm = rawKind
	m.kind = toolErrorKind
	if row := kindRow(rawKind); row.GetCodeModeKeeps() {
		m.kind = rawKind
	}
	setKind(m, m.kind)
	completeFromKind(m)
	if m.origin != toolExecutionOrigin {
		m.note(errsvcv1.NoteCode_NOTE_CODE_DEFAULT_ASSUMED, "a completed tool result is a tool_execution failure, not %s", m.origin)
		m.origin = toolExecutionOrigin
	}
	m.sideEffects = "possible"
	if m.readOnly {
		m.sideEffects = "none_expected"
	}
	if m.krow.GetClass() != "" {
		m.hasClass, m.class, m.recognized = true, m.krow.GetClass(), true
	} else {
		if msg, ok := completedNoClass[m.kind]; ok {
			m.note(errsvcv1.NoteCode_NOTE_CODE_CLASS_ABSENT, msg)
		} else {
			m.note(errsvcv1.NoteCode_NOTE_CODE_CLASS_ABSENT, completedNoClassFormat, m.kind)
		}
	}
	if v, ok := parsed.GetFields()["retry_after_ms"]; ok && m.krow.GetPassesRetryAfter() {
		if ms, ok := lenientNumber(m, v, "mcp_tool_result.structured error retry_after_ms"); ok {
			setWaitMs(m, uint32(math.Ceil(ms)))
		}
	}

	m.message = m.sanitizeCause(stringField(parsed, "message"))
	if m.message == "" {
		m.message = m.sanitizeCause(firstText(r))
	}
	e := m.newEnvelope()
	*e = errsvcv1.LabbyError{
		Tool:     m.sanitizeShort(r.GetTool()),
		Safety:   carrySafety(m, "mcp_tool_result.annotations", r.GetAnnotations()),
		Evidence: toolEvidence(m, r, parsedValue),
	}
	if rawKind != "" && rawKind != m.kind {
		e.OriginalKind = m.sanitizeShort(rawKind)
		m.noteTerm(errsvcv1.NoteCode_NOTE_CODE_FIELD_DROPPED, "kind %q inside a completed result canonicalised to tool_error; kept in original_kind", e.OriginalKind)
	}
	if rawKind == "" {
		m.note(errsvcv1.NoteCode_NOTE_CODE_DEFAULT_ASSUMED, "no structured error with a kind in the result: tool_error assumed")
	}
	m.envelope = e
	deriveAgent(m)
	return nil
}

// completedNoClassFormat is the class_absent note of a completed result;
// m.kind is then a kind of the matrix (tool_error or one it keeps), so the
// note's text is made once per kind.
const completedNoClassFormat = "a completed %s carries no class; none is invented"

var completedNoClass = func() map[string]string {
	out := map[string]string{}
	for _, t := range LabbyKinds.Terms {
		out[t.Wire] = formatNote(completedNoClassFormat, []any{t.Wire})
	}
	return out
}()

// structuredError finds the result's structured error: structured_content,
// its `error` member, or the first text block of at most 64 KiB that
// parses as a JSON object with a kind or a message.
func structuredError(m *model, r *errsvcv1.McpToolResult) (*structpb.Struct, *structpb.Value) {
	if sc := r.GetStructuredContent().GetStructValue(); sc != nil {
		if inner := sc.GetFields()["error"].GetStructValue(); hasKindOrMessage(inner) {
			return inner, structpb.NewStructValue(inner)
		}
		if hasKindOrMessage(sc) {
			return sc, structpb.NewStructValue(sc)
		}
	}
	for _, block := range r.GetContent() {
		text := block.GetFields()["text"].GetStringValue()
		if stringField(block, "type") != "text" || len(text) > maxParsedTextBytes {
			continue
		}
		if s, v, ok := textErrorObject(m, text); ok {
			return s, v
		}
	}
	return nil, nil
}

func hasKindOrMessage(s *structpb.Struct) bool {
	return stringField(s, "kind") != "" || stringField(s, "message") != ""
}

func firstText(r *errsvcv1.McpToolResult) string {
	for _, block := range r.GetContent() {
		if stringField(block, "type") == "text" {
			return block.GetFields()["text"].GetStringValue()
		}
	}
	return ""
}

// toolEvidence keeps sanitised evidence from every content block up to
// the cap: text sanitised and capped, binary payloads as descriptors only,
// resources redacted, unknown blocks marked as omitted.
func toolEvidence(m *model, r *errsvcv1.McpToolResult, parsed *structpb.Value) *errsvcv1.Evidence {
	ev := &m.store.evidence
	ev.Content = m.store.evidenceBlocks[:0]
	blocks := r.GetContent()
	if len(blocks) > maxEvidenceBlocks {
		omitted := uint32(len(blocks) - maxEvidenceBlocks)
		ev.OmittedContentBlocks = &omitted
		m.note(errsvcv1.NoteCode_NOTE_CODE_FIELD_DROPPED, "%d content blocks beyond the first %d omitted from evidence", omitted, maxEvidenceBlocks)
		blocks = blocks[:maxEvidenceBlocks]
	}
	for _, b := range blocks {
		ev.Content = append(ev.Content, evidenceBlock(m, b))
	}
	if sc := r.GetStructuredContent(); sc != nil {
		ev.StructuredContent = sanitizeValue(m, "mcp_tool_result.structured_content", sc)
	}
	if parsed != nil {
		ev.ParsedError = sanitizeValue(m, "mcp_tool_result.parsed_error", parsed)
	}
	// The result's own additive members (_meta, resultType, …) are evidence
	// of the same result: carried, sanitised and capped.
	ev.AdditionalFields = carryAdditional(m, "mcp_tool_result", r.GetAdditionalFields())
	if len(ev.GetContent()) == 0 && ev.StructuredContent == nil && ev.ParsedError == nil && ev.AdditionalFields == nil {
		return nil
	}
	return ev
}

// evidenceBlock turns one MCP content block into its safe descriptor.
func evidenceBlock(m *model, b *structpb.Struct) *errsvcv1.EvidenceBlock {
	f := b.GetFields()
	mime := m.sanitizeShort(firstNonEmpty(f["mimeType"].GetStringValue(), f["mime_type"].GetStringValue()))
	switch typ := f["type"].GetStringValue(); typ {
	case "text":
		out := m.newEvidenceBlock()
		out.Type, out.Text = typ, m.sanitizeEvidenceText(f["text"].GetStringValue())
		return out
	case "image", "audio":
		size := uint32(len(f["data"].GetStringValue()))
		return &errsvcv1.EvidenceBlock{Type: typ, MimeType: mime, EncodedBytes: &size, DataOmitted: proto.Bool(true)}
	case "resource":
		res := f["resource"].GetStructValue().GetFields()
		out := &errsvcv1.EvidenceBlock{
			Type:     typ,
			Uri:      m.sanitizeShort(res["uri"].GetStringValue()),
			MimeType: m.sanitizeShort(firstNonEmpty(res["mimeType"].GetStringValue(), res["mime_type"].GetStringValue())),
			Text:     m.sanitizeEvidenceText(res["text"].GetStringValue()),
		}
		if blob := res["blob"].GetStringValue(); blob != "" {
			size := uint32(len(blob))
			out.EncodedBytes, out.DataOmitted = &size, proto.Bool(true)
		}
		return out
	case "resource_link":
		return &errsvcv1.EvidenceBlock{Type: typ, Uri: m.sanitizeShort(f["uri"].GetStringValue()), MimeType: mime}
	default:
		return &errsvcv1.EvidenceBlock{Type: "unknown", ContentOmitted: proto.Bool(true)}
	}
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// encodeCodeMode writes the Code Mode call error: the envelope with the
// narrower origin set (runtime, discovery and bridge read as code_mode)
// and the tool only in its `namespace::name` shape.
func encodeCodeMode(m *model, resp *errsvcv1.TranslateResponse) {
	e := labbyEnvelope(m)
	if cm := originRow(e.GetOrigin()).GetCodeModeOrigin(); cm != "" && cm != e.GetOrigin() {
		m.note(errsvcv1.NoteCode_NOTE_CODE_FIELD_DROPPED, "origin %s is reported as %s in Code Mode", e.GetOrigin(), cm)
		e.Origin = cm
	}
	if e.GetTool() != "" && !isCodeModeTool(e.GetTool()) {
		m.note(errsvcv1.NoteCode_NOTE_CODE_FIELD_DROPPED, "tool %q is not namespace::name; left out of code_mode_error", e.GetTool())
		e.Tool = ""
	}
	// The Code Mode contract has no room for errsvc's other additive views.
	e.AgentError, e.Classification, e.Detail = nil, nil, nil
	resp.CodeModeError = e
}
