package translate

import (
	"maps"
	"math"
	"reflect"
	"strconv"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/translate/sanitize"
)

// Open on read for whole objects: the contracts tell consumers to ignore
// unknown additive fields within a contract version, so a member errsvc does
// not model never fails a request. The JSON decoders (codec/openjson) put
// such members in each open message's additional_fields; over gRPC they
// travel there directly, or as fields of a newer contract unknown to this
// build. Either way the translation is decided without them, one note
// (field_ignored) names them, and where the output is the same contract as
// the input they are carried to the same place, sanitised and capped.

// additionalFieldName is the open-object field of every contract message.
const additionalFieldName protoreflect.Name = "additional_fields"

// maxNamedUnmodelled bounds the names listed in the field_ignored note.
const maxNamedUnmodelled = 16

// noteUnmodelled adds the one field_ignored note for everything in req that
// the contract does not model: members of additional_fields (except the
// wait fields read leniently, see waitFromAdditional) and unknown fields of
// the binary wire, by path.
func noteUnmodelled(m *model, req *errsvcv1.TranslateRequest) {
	var paths []string
	total := 0
	if req != nil {
		var path planPath
		requestPlan.walk(reflect.ValueOf(req).Elem(), &path, &paths, &total)
	}
	if total == 0 {
		return
	}
	named := paths[:min(len(paths), maxNamedUnmodelled)]
	for i, p := range named {
		// A misspelt field ("clasification") is named with the one meant.
		if near := nearestField(p); near != "" {
			named[i] = p + " (did you mean " + near + "?)"
		}
	}
	list := strings.Join(named, ", ")
	if total > maxNamedUnmodelled {
		list += ", … (" + strconv.Itoa(total) + " in all)"
	}
	m.note(errsvcv1.NoteCode_NOTE_CODE_FIELD_IGNORED, "fields this contract version does not model were ignored for the decision (and carried to the same contract's output): %s", m.sanitizeShort(list))
}

// appendUnknown names each unknown field of the binary wire by number.
func appendUnknown(raw []byte, prefix string, paths *[]string, total *int) {
	for len(raw) > 0 {
		num, typ, n := protowire.ConsumeTag(raw)
		if n < 0 {
			break
		}
		raw = raw[n:]
		m := protowire.ConsumeFieldValue(num, typ, raw)
		if m < 0 {
			break
		}
		raw = raw[m:]
		*total++
		*paths = append(*paths, prefix+"#"+strconv.Itoa(int(num)))
	}
}

// lenientWait reports whether key of md's additional fields is one of md's
// own wait fields, put there by the JSON decoder because its value was not a
// whole number: it is read by waitFromAdditional, not ignored.
func lenientWait(md protoreflect.MessageDescriptor, key string) bool {
	return lenientWaitKey(key) && md.Fields().ByName(protoreflect.Name(key)) != nil
}

// additionalLimits bound the additive fields carried to an output.
var additionalLimits = sanitize.Limits{StringCap: sanitize.CauseCap, MaxDepth: 8, MaxItems: 256, MaxBytes: 16 << 10}

// carryAdditional is the sanitised, capped copy of a message's additional
// fields for the same contract's output (nil when there are none); a cut
// leaves its trace, which noteTruncations names.
func carryAdditional(m *model, field string, s *structpb.Struct) *structpb.Struct {
	if len(s.GetFields()) == 0 {
		return nil
	}
	rest := s
	for k := range s.GetFields() {
		if lenientWaitKey(k) {
			rest = &structpb.Struct{Fields: make(map[string]*structpb.Value, len(s.GetFields()))}
			for k2, v := range s.GetFields() {
				if !lenientWaitKey(k2) {
					rest.Fields[k2] = v
				}
			}
			break
		}
	}
	if len(rest.GetFields()) == 0 {
		return nil
	}
	// A name has no context for the secret rules: a member named by a bare
	// random token is carried under "[REDACTED]".
	for k := range rest.GetFields() {
		if sanitize.IsOpaqueToken(k) {
			if rest == s {
				rest = &structpb.Struct{Fields: maps.Clone(s.GetFields())}
			}
			rest.Fields[sanitize.RedactedToken] = rest.Fields[k]
			delete(rest.Fields, k)
			m.note(errsvcv1.NoteCode_NOTE_CODE_SANITIZED, "%s: a member named by what may be a secret was renamed [REDACTED]", field)
		}
	}
	// A cut leaves its trace in the output, which noteTruncations names.
	out, rep := sanitize.Struct(rest, additionalLimits)
	noteRedacted(m, field, rep)
	return out
}

func lenientWaitKey(k string) bool { return k == "retry_after_secs" || k == "retry_after_ms" }

// waitFromAdditional reads a wait field that arrived with a value the
// field's type cannot hold (the JSON decoder moved it to additional_fields):
// a numeric string is read, a fraction rounded up, each with a note; any
// other value is refused for that field alone, with a note. It reports the
// value in the field's unit.
func waitFromAdditional(m *model, s *structpb.Struct, key, field string) (float64, bool) {
	v, ok := s.GetFields()[key]
	if !ok {
		return 0, false
	}
	return lenientNumber(m, v, field)
}

// lenientNumber reads a wait that may be a number or a numeric string.
func lenientNumber(m *model, v *structpb.Value, field string) (float64, bool) {
	var n float64
	switch k := v.GetKind().(type) {
	case *structpb.Value_NumberValue:
		n = k.NumberValue
	case *structpb.Value_StringValue:
		f, err := strconv.ParseFloat(strings.TrimSpace(k.StringValue), 64)
		if err != nil {
			m.note(errsvcv1.NoteCode_NOTE_CODE_VALUE_COERCED, "%s %q is not a number; the wait was ignored", field, clip(k.StringValue))
			return 0, false
		}
		m.note(errsvcv1.NoteCode_NOTE_CODE_VALUE_COERCED, "%s was a string; read as the number %s", field, strconv.FormatFloat(f, 'g', -1, 64))
		n = f
	default:
		m.note(errsvcv1.NoteCode_NOTE_CODE_VALUE_COERCED, "%s is not a number; the wait was ignored", field)
		return 0, false
	}
	if n < 0 || math.IsNaN(n) || math.IsInf(n, 0) || n > math.MaxUint32 {
		m.note(errsvcv1.NoteCode_NOTE_CODE_VALUE_COERCED, "%s is out of range (a non-negative number below 2^32); the wait was ignored", field)
		return 0, false
	}
	return n, true
}

// carrySafety copies tool hints through; additive hints (an annotation's
// title) are sanitised and capped like every other additional field.
func carrySafety(m *model, field string, s *errsvcv1.Safety) *errsvcv1.Safety {
	if len(s.GetAdditionalFields().GetFields()) == 0 {
		return s
	}
	return &errsvcv1.Safety{
		ReadOnlyHint:     s.ReadOnlyHint,
		DestructiveHint:  s.DestructiveHint,
		IdempotentHint:   s.IdempotentHint,
		OpenWorldHint:    s.OpenWorldHint,
		AdditionalFields: carryAdditional(m, field, s.GetAdditionalFields()),
	}
}

// maxListItems bounds a modelled list of names (required_scopes, valid).
const maxListItems = 256

// sanitizeList sanitises a list of short names, keeping at most
// maxListItems with a field_truncated note.
func sanitizeList(m *model, in []string, field string) []string {
	if len(in) == 0 {
		return nil
	}
	n := min(len(in), maxListItems)
	out := make([]string, n)
	for i := range out {
		out[i] = m.sanitizeShort(in[i])
	}
	if len(in) > n {
		m.note(errsvcv1.NoteCode_NOTE_CODE_FIELD_TRUNCATED, "%s keeps its first %d of %d items", field, n, len(in))
	}
	return out
}
