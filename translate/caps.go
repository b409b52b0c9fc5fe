package translate

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/translate/sanitize"
)

// Every cap errsvc applies to copied content leaves a visible trace in the
// output: a text cut by the sanitiser ends with sanitize.TruncationMarker,
// a structured value cut by size or depth holds sanitize.TruncatedToken.
// noteTruncations finds those traces in the answer, wherever the cap was
// applied, and names the output fields in one field_truncated note, so no
// cap in translate/ can drop content without saying so (and no new caller
// of the sanitiser can forget the note).

// maxNamedTruncations bounds the paths listed in the note.
const maxNamedTruncations = 12

func noteTruncations(m *model, resp *errsvcv1.TranslateResponse) {
	var paths []string
	total := 0
	walkTruncations(resp.ProtoReflect(), "", &paths, &total)
	if total == 0 {
		return
	}
	list := strings.Join(paths[:min(len(paths), maxNamedTruncations)], ", ")
	if total > maxNamedTruncations {
		list += ", … (" + strconv.Itoa(total) + " in all)"
	}
	m.note(errsvcv1.NoteCode_NOTE_CODE_FIELD_TRUNCATED, "capped for the output (the decision read the whole input): %s", list)
}

func walkTruncations(msg protoreflect.Message, prefix string, paths *[]string, total *int) {
	rangeInOrder(msg, func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		path := prefix + string(fd.Name())
		switch {
		case fd.Name() == "notes" && prefix == "":
			// Notes quote clipped terms; they are no copy of content.
		case fd.Kind() == protoreflect.StringKind && !fd.IsList() && !fd.IsMap():
			if strings.HasSuffix(v.String(), sanitize.TruncationMarker) {
				addTruncation(path, paths, total)
			}
		case fd.Kind() == protoreflect.StringKind && fd.IsList():
			for i := 0; i < v.List().Len(); i++ {
				if strings.HasSuffix(v.List().Get(i).String(), sanitize.TruncationMarker) {
					addTruncation(path+"["+strconv.Itoa(i)+"]", paths, total)
				}
			}
		case fd.Message() == nil || fd.IsMap():
		case fd.IsList():
			for i := 0; i < v.List().Len(); i++ {
				if s, ok := v.List().Get(i).Message().Interface().(*structpb.Struct); ok {
					walkStruct(s, path+"["+strconv.Itoa(i)+"]", paths, total)
					continue
				}
				walkTruncations(v.List().Get(i).Message(), path+"["+strconv.Itoa(i)+"].", paths, total)
			}
		case fd.Message().FullName() == "google.protobuf.Any":
			// Status details are encoded by errsvc from the model, not copied.
		case fd.Message().FullName() == "google.protobuf.Struct":
			walkStruct(v.Message().Interface().(*structpb.Struct), path, paths, total)
		case fd.Message().FullName() == "google.protobuf.Value":
			walkValue(v.Message().Interface().(*structpb.Value), path, paths, total)
		default:
			walkTruncations(v.Message(), path+".", paths, total)
		}
		return true
	})
}

func addTruncation(path string, paths *[]string, total *int) {
	*total++
	*paths = append(*paths, path)
}

func walkStruct(s *structpb.Struct, path string, paths *[]string, total *int) {
	// In key order, so the note reads the same for the same answer.
	keys := slices.Sorted(maps.Keys(s.GetFields()))
	for _, k := range keys {
		v := s.GetFields()[k]
		if k == sanitize.TruncatedToken || strings.HasSuffix(k, sanitize.TruncationMarker) {
			addTruncation(path, paths, total)
			continue
		}
		walkValue(v, path+"."+k, paths, total)
	}
}

func walkValue(v *structpb.Value, path string, paths *[]string, total *int) {
	switch k := v.GetKind().(type) {
	case *structpb.Value_StringValue:
		if k.StringValue == sanitize.TruncatedToken || strings.HasSuffix(k.StringValue, sanitize.TruncationMarker) {
			addTruncation(path, paths, total)
		}
	case *structpb.Value_StructValue:
		walkStruct(k.StructValue, path, paths, total)
	case *structpb.Value_ListValue:
		for i, item := range k.ListValue.GetValues() {
			walkValue(item, path+"["+strconv.Itoa(i)+"]", paths, total)
		}
	}
}

// rangeInOrder visits msg's populated fields in declaration order.
// protoreflect's Range order is unspecified (it changes with the binary),
// and the notes that list paths must read the same for the same answer.
func rangeInOrder(msg protoreflect.Message, f func(protoreflect.FieldDescriptor, protoreflect.Value) bool) {
	fields := msg.Descriptor().Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if msg.Has(fd) && !f(fd, msg.Get(fd)) {
			return
		}
	}
}
