package translate

import (
	"reflect"
	"slices"
	"strconv"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/translate/sanitize"
)

// collectUnmodelled is the reference walk of noteUnmodelled: protoreflect
// over every populated field in declaration order. The plan's walk must
// give exactly its paths.
func collectUnmodelled(msg protoreflect.Message, prefix string, paths *[]string, total *int) {
	add := func(p string) {
		*total++
		*paths = append(*paths, p)
	}
	appendUnknown(msg.GetUnknown(), prefix, paths, total)
	rangeInOrder(msg, func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.Message() == nil || fd.IsMap():
		case fd.Name() == additionalFieldName:
			s, _ := v.Message().Interface().(*structpb.Struct)
			keys := make([]string, 0, len(s.GetFields()))
			for k := range s.GetFields() {
				if !lenientWait(msg.Descriptor(), k) {
					keys = append(keys, k)
				}
			}
			slices.Sort(keys)
			for _, k := range keys {
				add(prefix + sanitize.Identifier(k, shortCap))
			}
		case fd.Message().ParentFile().Package() == "google.protobuf":
		case fd.IsList():
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				collectUnmodelled(l.Get(i).Message(), prefix+string(fd.Name())+"["+strconv.Itoa(i)+"].", paths, total)
			}
		default:
			collectUnmodelled(v.Message(), prefix+string(fd.Name())+".", paths, total)
		}
		return true
	})
}

// TestUnmodelledPlanMatchesReflection: on every golden request with an
// unmodelled member in every open message and an unknown field in every
// message, the plan's walk names exactly what the reflective walk names, in
// the same order.
func TestUnmodelledPlanMatchesReflection(t *testing.T) {
	compared, named := 0, 0
	for name, req := range wellFormed(t) {
		for _, probe := range []bool{false, true} {
			r := proto.Clone(req).(*errsvcv1.TranslateRequest)
			if probe {
				everyMessage(r.ProtoReflect(), func(m protoreflect.Message) {
					var raw []byte
					raw = protowire.AppendTag(raw, 9999, protowire.VarintType)
					m.SetUnknown(protowire.AppendVarint(raw, 1))
					if fd := m.Descriptor().Fields().ByName(additionalFieldName); fd != nil {
						s := &structpb.Struct{Fields: map[string]*structpb.Value{"x_probe": structpb.NewBoolValue(true), "retry_after_ms": structpb.NewNumberValue(1.5)}}
						m.Set(fd, protoreflect.ValueOfMessage(s.ProtoReflect()))
					}
				})
			}
			var want, got []string
			wantN, gotN := 0, 0
			collectUnmodelled(r.ProtoReflect(), "", &want, &wantN)
			var path planPath
			requestPlan.walk(reflect.ValueOf(r).Elem(), &path, &got, &gotN)
			if !slices.Equal(got, want) || gotN != wantN {
				t.Fatalf("%s (probed %v): plan walk\n %q\nreflective walk\n %q", name, probe, got, want)
			}
			compared++
			named += wantN
		}
	}
	if named < 1000 {
		t.Fatalf("only %d paths named over %d requests: the probes did not reach the open messages", named, compared)
	}
	t.Logf("%d requests, %d paths", compared, named)
}

// everyMessage visits m and every message below it, google.protobuf ones
// excepted.
func everyMessage(m protoreflect.Message, visit func(protoreflect.Message)) {
	visit(m)
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.Message() == nil || fd.IsMap() || fd.Message().ParentFile().Package() == "google.protobuf":
		case fd.IsList():
			for i := 0; i < v.List().Len(); i++ {
				everyMessage(v.List().Get(i).Message(), visit)
			}
		default:
			everyMessage(v.Message(), visit)
		}
		return true
	})
}
