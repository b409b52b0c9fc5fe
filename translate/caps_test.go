package translate

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// stringSlots visits every string of msg by reflection: string fields,
// list items and the string values of Structs and Values, so a test can
// plant content in each position the sources have, none listed by hand.
func stringSlots(msg protoreflect.Message, path string, visit func(path string, set func(string))) {
	msg.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		p := path + string(fd.Name())
		switch {
		case fd.Kind() == protoreflect.StringKind && fd.IsList():
			for i := 0; i < v.List().Len(); i++ {
				l, i := v.List(), i
				visit(p, func(s string) { l.Set(i, protoreflect.ValueOfString(s)) })
			}
		case fd.Kind() == protoreflect.StringKind && fd.IsMap():
			v.Map().Range(func(k protoreflect.MapKey, _ protoreflect.Value) bool {
				mp, key := v.Map(), k
				visit(p+"."+k.String(), func(s string) { mp.Set(key, protoreflect.ValueOfString(s)) })
				return true
			})
		case fd.Kind() == protoreflect.StringKind:
			f := fd
			visit(p, func(s string) { msg.Set(f, protoreflect.ValueOfString(s)) })
		case fd.Message() == nil || fd.IsMap():
		case fd.IsList():
			for i := 0; i < v.List().Len(); i++ {
				item := v.List().Get(i).Message()
				if s, ok := item.Interface().(*structpb.Struct); ok {
					structSlots(s, p+"[]", visit)
					continue
				}
				stringSlots(item, p+"[].", visit)
			}
		case fd.Message().FullName() == "google.protobuf.Struct":
			structSlots(v.Message().Interface().(*structpb.Struct), p, visit)
		case fd.Message().FullName() == "google.protobuf.Value":
			valueSlots(v.Message().Interface().(*structpb.Value), p, visit)
		default:
			stringSlots(v.Message(), p+".", visit)
		}
		return true
	})
}

func structSlots(s *structpb.Struct, path string, visit func(string, func(string))) {
	for k, v := range s.GetFields() {
		valueSlots(v, path+"."+k, visit)
	}
}

func valueSlots(v *structpb.Value, path string, visit func(string, func(string))) {
	switch k := v.GetKind().(type) {
	case *structpb.Value_StringValue:
		visit(path, func(s string) { k.StringValue = s })
	case *structpb.Value_StructValue:
		structSlots(k.StructValue, path, visit)
	case *structpb.Value_ListValue:
		for _, item := range k.ListValue.GetValues() {
			valueSlots(item, path+"[]", visit)
		}
	}
}

func stringValues(m protoreflect.Message, out *[]string) {
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.Kind() == protoreflect.StringKind && fd.IsList():
			for i := 0; i < v.List().Len(); i++ {
				*out = append(*out, v.List().Get(i).String())
			}
		case fd.Kind() == protoreflect.StringKind && !fd.IsMap():
			*out = append(*out, v.String())
		case fd.Message() == nil || fd.IsMap():
		case fd.IsList():
			for i := 0; i < v.List().Len(); i++ {
				item := v.List().Get(i).Message()
				if s, ok := item.Interface().(*structpb.Struct); ok {
					structValues(s, out)
					continue
				}
				stringValues(item, out)
			}
		case fd.Message().FullName() == "google.protobuf.Struct":
			structValues(v.Message().Interface().(*structpb.Struct), out)
		case fd.Message().FullName() == "google.protobuf.Value":
			valueValues(v.Message().Interface().(*structpb.Value), out)
		default:
			stringValues(v.Message(), out)
		}
		return true
	})
}

func structValues(s *structpb.Struct, out *[]string) {
	for _, k := range sortedKeys(s.GetFields()) {
		valueValues(s.GetFields()[k], out)
	}
}

func valueValues(v *structpb.Value, out *[]string) {
	switch k := v.GetKind().(type) {
	case *structpb.Value_StringValue:
		*out = append(*out, k.StringValue)
	case *structpb.Value_StructValue:
		structValues(k.StructValue, out)
	case *structpb.Value_ListValue:
		for _, item := range k.ListValue.GetValues() {
			valueValues(item, out)
		}
	}
}

// Oversized content planted in every string position of every source, one
// position at a time: wherever part of it reaches the answer but not all of
// it, the answer says so in a field_truncated note. No cap in translate/
// drops content silently.
func TestNoCapDropsContentWithoutANote(t *testing.T) {
	planted := strings.Repeat("planted evidence line ", 1200) // ~26 KiB, above every cap
	reqs := wellFormed(t)
	positions, capped := 0, 0
	for name, req := range reqs {
		if !strings.HasPrefix(name, "open.") && !strings.HasPrefix(name, "mcp.") && !strings.HasPrefix(name, "rule.") && !strings.HasPrefix(name, "provider.openai") {
			continue
		}
		var slots []string
		stringSlots(proto.Clone(req).ProtoReflect(), "", func(p string, _ func(string)) { slots = append(slots, p) })
		for i := range slots {
			probed := proto.Clone(req).(*errsvcv1.TranslateRequest)
			j := 0
			stringSlots(probed.ProtoReflect(), "", func(_ string, set func(string)) {
				if j == i {
					set(planted)
				}
				j++
			})
			resp, err := Translate(probed)
			if err != nil {
				continue // a term field that refuses the text: no answer, nothing cut
			}
			positions++
			// Notes quote clipped terms about the input; the copies are the rest.
			content := proto.Clone(resp).(*errsvcv1.TranslateResponse)
			content.Notes = nil
			var outs []string
			stringValues(content.ProtoReflect(), &outs)
			partial := false
			for _, s := range outs {
				if strings.Contains(s, planted[:200]) && !strings.Contains(s, planted) {
					partial = true
				}
			}
			if !partial {
				continue
			}
			capped++
			if countNotes(resp, errsvcv1.NoteCode_NOTE_CODE_FIELD_TRUNCATED) == 0 {
				t.Errorf("%s: content planted at %s was cut with no field_truncated note (notes %v)", name, slots[i], resp.GetNotes())
			}
		}
	}
	if capped < 50 {
		t.Fatalf("only %d of %d positions were capped: the test plants too little", capped, positions)
	}
	t.Logf("%d positions planted, %d capped, each with a note", positions, capped)
}
