package translate

import (
	"slices"
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
	out, _ := m.textReport(s, cap)
	if len(out) >= len(sanitize.TruncationMarker) && strings.HasSuffix(out, sanitize.TruncationMarker) {
		m.capped = true
	}
	return out
}

// textReport is sanitize.TextReport through the translation's memo: one
// translation meets the same upstream text several times (a provider code
// is the Labby detail's provider_code, the ErrorInfo's providerCode and
// the original term; an MCP kind is in the parsed error and in
// original_kind), and the sanitiser is a pure function of the text and the
// cap, so each (text, cap) runs the pipeline once.
func (m *model) textReport(s string, cap int) (string, sanitize.Report) {
	if m.policy != nil && len(m.policy.keep) > 0 {
		if out, rep, ok := m.policy.keepText(s, cap); ok {
			return out, rep
		}
	}
	return m.memo.textReport(s, cap)
}

// textMemo remembers the translation's last sanitiser results. It is
// small and scanned linearly: a translation sanitises a handful of texts.
//
// A result is reused for another cap only in one case, which follows from
// the pipeline (the cap enters only where at most 4×cap bytes are
// inspected and where the text is cut at cap runes): a text that the
// sanitiser leaves unchanged and reports nothing of, at a cap not below
// its length in bytes, is left unchanged, with nothing reported, at every
// cap not below its length; any other result is reused for its own cap
// only. TestTextMemoIsTheSanitiser holds the memo to the sanitiser.
//
// What it earns: 1.9 µs of a provider answer's 5.4 (BenchmarkTranslate/
// provider 3.5 µs with it, 5.4 with its lookups turned off; mcp 2.4 µs
// and 2.6; the others the same; medians of 6 interleaved, 2026-12-05).
// Scenarios a and c alone cannot show it: their requests are the Labby,
// agent, classified and MCP sources, never a provider answer (bench/ab.sh
// against lookups turned off, 5 interleaved rounds: a +1.9% at 16 callers
// and -1.4% at 64, c -3.7% and -1.8%, noise). With a provider answer as a
// fifth of the calls (ERRSVC_BENCH_PROVIDER_MIX=1), it earns a +2.0% and
// +2.6%, c +1.0% and +2.9%, each median above the other's: short of issue
// 42's 3% on that mix, about five times that on provider answers alone.
// It stays for them: 60 plain lines, and provider answers are what most
// callers send.
type textMemo struct {
	entries [memoSize]memoEntry
	next    int
}

// memoSize is enough for the texts one translation meets more than once
// (a provider answer: its rule, wait source and code, then the message),
// and keeps the model within its allocation size class.
const memoSize = 4

type memoEntry struct {
	in, out string
	cap     int
	rep     sanitize.Report
	// clean: out == in, nothing reported and len(in) <= cap.
	clean bool
}

func (t *textMemo) textReport(s string, cap int) (string, sanitize.Report) {
	if cap < 0 {
		cap = 0
	}
	if s == "" {
		return sanitize.TextReport(s, cap)
	}
	for i := range t.entries {
		e := &t.entries[i]
		if len(e.in) != len(s) || e.in != s {
			continue
		}
		if e.cap == cap {
			return e.out, e.rep
		}
		if e.clean && len(s) <= cap {
			return s, sanitize.Report{}
		}
	}
	out, rep := sanitize.TextReport(s, cap)
	t.add(memoEntry{in: s, out: out, cap: cap, rep: rep, clean: out == s && rep == (sanitize.Report{}) && len(s) <= cap})
	return out, rep
}

func (t *textMemo) has(s string) bool {
	for i := range t.entries {
		if t.entries[i].in == s {
			return true
		}
	}
	return false
}

func (t *textMemo) add(e memoEntry) {
	t.entries[t.next] = e
	t.next = (t.next + 1) % memoSize
}

// seedClean records s, a name the classifier gave (never upstream text), as
// clean when cleanClassifierTerm says so, so the translation does not run
// the sanitiser on it.
func (t *textMemo) seedClean(s string) {
	if s != "" && cleanClassifierTerm(s) {
		t.add(memoEntry{in: s, out: s, cap: len(s), clean: true})
	}
}

// unchanged reports whether s is a text the sanitiser leaves as it is at
// cap, with nothing to report.
func (t *textMemo) unchanged(s string, cap int) bool {
	if s != "" && len(s) <= cap && knownTerms[s] {
		// A vocabulary term (an MCP error's kind, say) is its own
		// sanitised form, with nothing to report (TestKnownTermsAreClean),
		// at every cap from its length; recorded for its next use.
		if !t.has(s) {
			t.add(memoEntry{in: s, out: s, cap: len(s), clean: true})
		}
		return true
	}
	out, rep := t.textReport(s, cap)
	return out == s && rep == (sanitize.Report{})
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
	if m != nil && m.unchangedStruct(s, sanitize.DefaultLimits) {
		return s
	}
	out, rep := sanitize.Struct(s, sanitize.DefaultLimits)
	noteRedacted(m, field, rep)
	return out
}

func sanitizeValue(m *model, field string, v *structpb.Value) *structpb.Value {
	if v == nil {
		return nil
	}
	if sv := v.GetStructValue(); sv != nil && m != nil && m.unchangedStruct(sv, evidenceLimits) {
		return v
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

// unchangedStruct reports, without sanitize.Struct's walk, that
// sanitize.Struct(s, lim) would return s itself with an empty Report: s is
// flat (strings, numbers, booleans and nulls only), every key is one of
// plainKeys, every string is one the sanitiser leaves unchanged (read
// through the memo, so a text met elsewhere in the translation is not
// sanitised again), and even fully JSON-escaped s fits lim.MaxBytes and
// lim.MaxItems. Any other s takes the walk; TestUnchangedStructIsTheWalk
// holds the two to the same answer.
func (m *model) unchangedStruct(s *structpb.Struct, lim sanitize.Limits) bool {
	fields := s.GetFields()
	if len(fields) > lim.MaxItems || len(fields) > maxFlatFields {
		return false
	}
	size := 2 // {}
	for k, v := range fields {
		if len(k) > lim.StringCap || !plainKeys[k] {
			return false
		}
		// The key quoted (6 bytes per byte at worst), a colon and a comma.
		size += 6*len(k) + 4
		switch x := v.GetKind().(type) {
		case *structpb.Value_StringValue:
			size += 6*len(x.StringValue) + 2
			if size > lim.MaxBytes || !m.memo.unchanged(x.StringValue, lim.StringCap) {
				return false
			}
		case *structpb.Value_NumberValue:
			size += maxNumberLen
		case *structpb.Value_BoolValue, *structpb.Value_NullValue:
			size += 5
		default: // nested, or a Value without a kind (which becomes null)
			return false
		}
		if size > lim.MaxBytes {
			return false
		}
	}
	return true
}

// maxFlatFields bounds the objects unchangedStruct reads.
const maxFlatFields = 16

// maxNumberLen bounds a number's compact JSON ("-1.2345678901234567e-308",
// or "-Infinity" quoted).
const maxNumberLen = 24

// plainKeys are the member names of the producers' details and error
// objects errsvc meets most (the provider detail errsvc builds, the Error
// Class Contract's detail, an MCP tool's error object): each one is left
// unchanged by the sanitiser and names no secret, so no value under it is
// redacted for its key. Both are checked here, against the sanitiser
// itself, when the package loads: a name that fails is left out (its
// objects then take the walk), and TestPlainKeysAllVerified fails.
var plainKeys = verifyPlainKeys(plainKeyNames)

var plainKeyNames = append([]string{
	// The provider detail (provider.go).
	"provider", "status", "rule", "provider_code", "wait_source", "stream", "in_body", "after_output",
	// The google.rpc.Status source's detail (grpc_source.go).
	"grpc_code",
	// The Error Class Contract's detail.
	"class", "routing_code", "retry_after_secs", "retry_after_s", "reason",
	// Error objects: MCP tool results, JSON-RPC data, provider bodies.
	"kind", "message", "code", "type", "param", "retry_after_ms", "retryable", "transient",
}, agentDetailKeys()...)

// agentDetailKeys are the Agent Surface error model's per-code detail
// keys (timeoutMs, retryAfterMs, ...), as the vocabulary lists them.
func agentDetailKeys() []string {
	var keys []string
	for _, t := range AgentCodes.Terms {
		for _, k := range t.Row.(*errsvcv1.AgentCodeRow).GetDetails() {
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	slices.Sort(keys)
	return keys
}

// keyProbes are values that are no plain word (a secret-named key would
// redact them) and that the sanitiser leaves unchanged on their own.
var keyProbes = []string{"Xy7pQ9zLm2", "a1b2c3d4e5f6g7h8i9j0"}

func verifyPlainKeys(names []string) map[string]bool {
	out := make(map[string]bool, len(names))
	for _, k := range names {
		if !verifyPlainKey(k) {
			continue
		}
		out[k] = true
	}
	return out
}

func verifyPlainKey(k string) bool {
	if out, rep := sanitize.TextReport(k, shortCap); out != k || rep != (sanitize.Report{}) || len(k) > shortCap {
		return false
	}
	for _, p := range keyProbes {
		if sanitize.Text(p, shortCap) != p {
			return false
		}
		in := &structpb.Struct{Fields: map[string]*structpb.Value{k: structpb.NewStringValue(p)}}
		if out, rep := sanitize.Struct(in, sanitize.DefaultLimits); out != in || rep != (sanitize.Report{}) {
			return false
		}
		// A key that takes only secrets redacts numbers too.
		in = &structpb.Struct{Fields: map[string]*structpb.Value{k: structpb.NewNumberValue(12345678)}}
		if out, rep := sanitize.Struct(in, sanitize.DefaultLimits); out != in || rep != (sanitize.Report{}) {
			return false
		}
	}
	return true
}
