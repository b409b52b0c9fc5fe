package translate

import (
	"strconv"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// decision is what a consumer acts on: an unknown member must never move it.
type decision struct {
	class, wait, agentCode, agentRetry, action, sameArgs, sideEffects, origin string
	http, grpc                                                                int32
}

func decisionOf(r *errsvcv1.TranslateResponse) decision {
	d := decision{
		class:       r.GetClassification().GetClass(),
		agentCode:   r.GetAgentError().GetCode(),
		agentRetry:  r.GetAgentError().GetRetry(),
		action:      r.GetLabbyError().GetRecovery().GetAction(),
		sameArgs:    r.GetLabbyError().GetRecovery().GetSameArguments(),
		sideEffects: r.GetLabbyError().GetSideEffects(),
		origin:      r.GetLabbyError().GetOrigin(),
		http:        r.GetHttpStatus(),
		grpc:        r.GetGrpcStatus().GetCode(),
	}
	if c := r.GetClassification(); c != nil && c.RetryAfterSecs != nil {
		d.wait = strconv.FormatUint(uint64(c.GetRetryAfterSecs()), 10)
	}
	return d
}

func countNotes(r *errsvcv1.TranslateResponse, code errsvcv1.NoteCode) int {
	n := 0
	for _, note := range r.GetNotes() {
		if note.GetCode() == Wire(code) {
			n++
		}
	}
	return n
}

// openMessages lists every message of req that can hold additional fields,
// by reflection, so no level of any source can be forgotten.
func openMessages(m protoreflect.Message, path string, visit func(protoreflect.Message, string)) {
	if m.Descriptor().Fields().ByName(additionalFieldName) != nil {
		visit(m, path)
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.Message() == nil || fd.IsMap() || fd.Message().ParentFile().Package() == "google.protobuf":
		case fd.IsList():
			for i := 0; i < v.List().Len(); i++ {
				openMessages(v.List().Get(i).Message(), path+string(fd.Name())+"[]", visit)
			}
		default:
			openMessages(v.Message(), path+string(fd.Name())+".", visit)
		}
		return true
	})
}

// Adding an unknown member anywhere in any golden request never changes
// the class, wait, codes, retry, recovery or statuses of the answer, and
// adds exactly one note (or extends the one field_ignored note).
func TestUnknownFieldNeverChangesTheDecision(t *testing.T) {
	probes := 0
	for name, req := range wellFormed(t) {
		base, err := Translate(req)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want, baseNotes, baseIgnored := decisionOf(base), len(base.GetNotes()), countNotes(base, errsvcv1.NoteCode_NOTE_CODE_FIELD_IGNORED)
		check := func(where string, probed *errsvcv1.TranslateRequest) {
			probes++
			got, err := Translate(probed)
			if err != nil {
				t.Errorf("%s, unknown member at %s: %v", name, where, err)
				return
			}
			if d := decisionOf(got); d != want {
				t.Errorf("%s, unknown member at %s changed the decision:\n got %+v\nwant %+v", name, where, d, want)
			}
			wantNotes := baseNotes + 1
			if baseIgnored > 0 {
				wantNotes = baseNotes
			}
			if len(got.GetNotes()) != wantNotes || countNotes(got, errsvcv1.NoteCode_NOTE_CODE_FIELD_IGNORED) != 1 {
				t.Errorf("%s, unknown member at %s: %d notes (%d field_ignored), want %d (1)", name, where, len(got.GetNotes()), countNotes(got, errsvcv1.NoteCode_NOTE_CODE_FIELD_IGNORED), wantNotes)
			}
			for _, n := range got.GetNotes() {
				if n.GetCode() == Wire(errsvcv1.NoteCode_NOTE_CODE_FIELD_IGNORED) && !strings.Contains(n.GetMessage(), "x_probe") && !strings.Contains(n.GetMessage(), "#") {
					t.Errorf("%s: the field_ignored note does not name the probe: %q", name, n.GetMessage())
				}
			}
		}
		var paths []string
		openMessages(req.ProtoReflect(), "", func(_ protoreflect.Message, p string) { paths = append(paths, p) })
		for i, p := range paths {
			probed := proto.Clone(req).(*errsvcv1.TranslateRequest)
			j := 0
			openMessages(probed.ProtoReflect(), "", func(m protoreflect.Message, _ string) {
				if j == i {
					fd := m.Descriptor().Fields().ByName(additionalFieldName)
					s, _ := m.Get(fd).Message().Interface().(*structpb.Struct)
					if s == nil || s.Fields == nil {
						s = &structpb.Struct{Fields: map[string]*structpb.Value{}}
					} else {
						s = proto.Clone(s).(*structpb.Struct)
					}
					s.Fields["x_probe"] = structpb.NewStringValue("unmodelled")
					m.Set(fd, protoreflect.ValueOfMessage(s.ProtoReflect()))
				}
				j++
			})
			check(p+"x_probe", probed)
		}
		// A field of a newer contract over the binary wire: an unknown field.
		probed := proto.Clone(req).(*errsvcv1.TranslateRequest)
		var raw []byte
		raw = protowire.AppendTag(raw, 9999, protowire.VarintType)
		raw = protowire.AppendVarint(raw, 1)
		probed.ProtoReflect().SetUnknown(raw)
		check("#9999", probed)
	}
	if probes < 1000 {
		t.Fatalf("only %d probes: the walk found too few open messages", probes)
	}
	t.Logf("%d probes over %d vectors", probes, len(wellFormed(t)))
}
