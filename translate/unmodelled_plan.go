package translate

import (
	"reflect"
	"slices"
	"strconv"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/translate/sanitize"
)

// The field_ignored walk runs on every request, so it does not go through
// protoreflect's per-field presence checks: it follows a plan per message
// type, built once from the descriptors and the generated Go structs, that
// lists only what can hold something unmodelled: the unknown fields,
// additional_fields, and the message-typed fields to descend into, in
// declaration order. Everything in the plan comes from the descriptors, so
// a field added to the contract is walked without an edit here;
// TestUnmodelledPlanMatchesReflection checks the plan's walk against the
// protoreflect walk on every golden request. The walk reads the generated
// structs with package reflect by field index (an unsafe walk at raw
// offsets was removed: it saved about 0.1 µs of a translation, far below
// what shows in the service-level figures; see issue 42).
//
// What the plan earns a caller, against the protoreflect walk it replaced
// (bench/ab.sh, 3 interleaved rounds, 2026-12-05): gRPC Translate cold (a)
// +3.8% at 16 callers and +4.4% at 64, REST (c) +4.3% and +5.8%; in the
// core about 0.9 µs and 1 to 2 allocations per translation (Labby 1.6 µs
// against 0.72).

type unmodelledPlan struct {
	// steps in declaration order: additional_fields and the message-typed
	// fields to descend into.
	steps      []planStep
	unknownIdx int // index of unknownFields in the struct
	hasUnknown bool
	md         protoreflect.MessageDescriptor
	// names[i] is steps[i]'s proto name, for the path.
	names []string
}

type planStep struct {
	// wrapper is, for a oneof member, the generated wrapper type the
	// oneof's interface holds when the member is set.
	wrapper reflect.Type
	plan    *unmodelledPlan
	// index is the Go field's index (of the oneof interface for a member).
	index int
	kind  stepKind
}

// stepKind is what a step's field holds.
type stepKind uint8

const (
	stepMessage    stepKind = iota // a singular message: a pointer
	stepList                       // a repeated message: a slice of pointers
	stepOneof                      // a oneof member: the oneof's interface
	stepAdditional                 // additional_fields: a *structpb.Struct
)

var unmodelledPlans = map[reflect.Type]*unmodelledPlan{}

var requestPlan = planFor(reflect.TypeFor[errsvcv1.TranslateRequest](), (&errsvcv1.TranslateRequest{}).ProtoReflect().Type())

// planFor builds (once per type) the plan of the generated struct t of
// message type mt.
func planFor(t reflect.Type, mt protoreflect.MessageType) *unmodelledPlan {
	if p, ok := unmodelledPlans[t]; ok {
		return p
	}
	md := mt.Descriptor()
	p := &unmodelledPlan{md: md}
	unmodelledPlans[t] = p
	byName := map[string]int{}
	oneofs := map[string]int{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		switch {
		case f.Name == "unknownFields":
			if f.Type.Kind() != reflect.Slice || f.Type.Elem().Kind() != reflect.Uint8 {
				panic("translate: unknownFields of " + t.String() + " is not a byte slice")
			}
			p.hasUnknown, p.unknownIdx = true, i
		case f.Tag.Get("protobuf_oneof") != "":
			oneofs[f.Tag.Get("protobuf_oneof")] = i
		case f.Tag.Get("protobuf") != "":
			byName[tagName(f.Tag.Get("protobuf"))] = i
		}
	}
	fields := md.Fields()
	add := func(name string, st planStep) {
		p.steps = append(p.steps, st)
		p.names = append(p.names, name)
	}
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		switch {
		case fd.Message() == nil || fd.IsMap():
		case fd.Name() == additionalFieldName:
			add("", planStep{kind: stepAdditional, index: byName[string(fd.Name())]})
		case fd.Message().ParentFile().Package() == "google.protobuf":
		case fd.ContainingOneof() != nil && !fd.ContainingOneof().IsSynthetic():
			wrapper := oneofWrapper(mt, fd)
			if wrapper.Elem().NumField() != 1 {
				panic("translate: oneof wrapper " + wrapper.String() + " is not one field")
			}
			child := wrapper.Elem().Field(0).Type.Elem()
			add(string(fd.Name()), planStep{kind: stepOneof, index: oneofs[string(fd.ContainingOneof().Name())], wrapper: wrapper, plan: planFor(child, messageTypeOf(child))})
		default:
			gi := byName[string(fd.Name())]
			gt := t.Field(gi).Type
			kind := stepMessage
			if fd.IsList() {
				gt, kind = gt.Elem(), stepList
			}
			add(string(fd.Name()), planStep{kind: kind, index: gi, plan: planFor(gt.Elem(), messageTypeOf(gt.Elem()))})
		}
	}
	return p
}

// tagName is the name= entry of a protobuf struct tag.
func tagName(tag string) string {
	for part := range strings.SplitSeq(tag, ",") {
		if n, ok := strings.CutPrefix(part, "name="); ok {
			return n
		}
	}
	return ""
}

func messageTypeOf(t reflect.Type) protoreflect.MessageType {
	return reflect.New(t).Interface().(proto.Message).ProtoReflect().Type()
}

// oneofWrapper is the generated wrapper type that holds oneof member fd.
func oneofWrapper(mt protoreflect.MessageType, fd protoreflect.FieldDescriptor) reflect.Type {
	m := mt.New()
	m.Set(fd, m.NewField(fd))
	v := reflect.ValueOf(m.Interface()).Elem()
	for i := 0; i < v.NumField(); i++ {
		if v.Type().Field(i).Tag.Get("protobuf_oneof") == string(fd.ContainingOneof().Name()) {
			return v.Field(i).Elem().Type()
		}
	}
	panic("no oneof field for " + string(fd.FullName()))
}

// planPath is the path to the message being walked, kept as segments so
// that no string is built unless something is named.
type planPath struct {
	inline [12]pathSeg
	n      int
	deeper []pathSeg // past len(inline) (a pointer to inline would move the path to the heap)
}

// pathSeg is a field of the path: step of plan, whose name is only looked
// up when the path is written out.
type pathSeg struct {
	plan  *unmodelledPlan
	step  int
	index int // -1 for a singular field
}

func (p *planPath) push(plan *unmodelledPlan, step, index int) bool {
	if p.n < len(p.inline) {
		p.inline[p.n] = pathSeg{plan, step, index}
	} else {
		p.deeper = append(p.deeper[:p.n-len(p.inline)], pathSeg{plan, step, index})
	}
	p.n++
	return true
}

func (p *planPath) pop() { p.n-- }

func (p *planPath) seg(i int) pathSeg {
	if i < len(p.inline) {
		return p.inline[i]
	}
	return p.deeper[i-len(p.inline)]
}

// prefix renders the path as "a.b[2].", the form the notes use.
func (p *planPath) prefix() string {
	var b strings.Builder
	for i := range p.n {
		s := p.seg(i)
		b.WriteString(s.plan.names[s.step])
		if s.index >= 0 {
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(s.index))
			b.WriteByte(']')
		}
		b.WriteByte('.')
	}
	return b.String()
}

// walk appends the paths of what the generated struct v (of p's type, not
// a pointer) holds unmodelled, in the order collectUnmodelled's
// protoreflect walk gives: an unknownFields is a []byte,
// additional_fields a *structpb.Struct, a singular message a pointer, a
// repeated one a slice of pointers and a oneof an interface.
func (p *unmodelledPlan) walk(v reflect.Value, path *planPath, paths *[]string, total *int) {
	if p.hasUnknown {
		if raw := v.Field(p.unknownIdx).Bytes(); len(raw) > 0 {
			appendUnknown(raw, path.prefix(), paths, total)
		}
	}
	for i := range p.steps {
		st := &p.steps[i]
		f := v.Field(st.index)
		switch st.kind {
		case stepAdditional:
			if f.IsNil() {
				continue
			}
			s := f.Interface().(*structpb.Struct)
			if len(s.GetFields()) == 0 {
				continue
			}
			keys := make([]string, 0, len(s.GetFields()))
			for k := range s.GetFields() {
				if !lenientWait(p.md, k) {
					keys = append(keys, k)
				}
			}
			slices.Sort(keys)
			prefix := path.prefix()
			for _, k := range keys {
				*total++
				*paths = append(*paths, prefix+sanitize.Identifier(k, shortCap))
			}
		case stepOneof:
			if f.IsNil() {
				continue
			}
			w := f.Elem()
			if w.Type() != st.wrapper || w.IsNil() {
				continue
			}
			if e := w.Elem().Field(0); !e.IsNil() && path.push(p, i, -1) {
				st.plan.walk(e.Elem(), path, paths, total)
				path.pop()
			}
		case stepList:
			for j := range f.Len() {
				if e := f.Index(j); !e.IsNil() && path.push(p, i, j) {
					st.plan.walk(e.Elem(), path, paths, total)
					path.pop()
				}
			}
		default:
			if !f.IsNil() && path.push(p, i, -1) {
				st.plan.walk(f.Elem(), path, paths, total)
				path.pop()
			}
		}
	}
}
