package codec

import (
	"bytes"
	"fmt"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/anypb"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/internal/golden"
	"github.com/errsvc/errsvc/translate"
)

// TestResponseEncoding: an answer whose google.rpc.Status the codec writes
// itself is byte for byte the generated code's (which hands the Status to
// protobuf-go), for every golden answer, for an answer with every field
// of every message set (unknown fields included), for Status edge cases,
// and for batches of them.
func TestResponseEncoding(t *testing.T) {
	answers := goldenAnswers(t)
	full := &errsvcv1.TranslateResponse{}
	fillAll(full.ProtoReflect(), 0)
	if full.GrpcStatus == nil || full.JsonrpcError == nil || len(full.GrpcStatus.Details) == 0 {
		t.Fatalf("the filled answer lacks fields: %v", full)
	}
	unknown := protowire.AppendString(protowire.AppendTag(nil, 999, protowire.BytesType), "unknown")
	full.ProtoReflect().SetUnknown(unknown)
	full.GrpcStatus.ProtoReflect().SetUnknown(unknown)
	full.GrpcStatus.Details[0].ProtoReflect().SetUnknown(unknown)
	answers = append(answers, full,
		&errsvcv1.TranslateResponse{GrpcStatus: &status.Status{}},
		&errsvcv1.TranslateResponse{GrpcStatus: &status.Status{Code: -3, Details: []*anypb.Any{nil, {}, {TypeUrl: "t"}, {Value: []byte{0}}}}},
		&errsvcv1.TranslateResponse{HttpStatus: proto.Int32(429), GrpcStatus: &status.Status{Code: 8, Message: "slow down"}, Notes: full.Notes})

	check := func(name string, m generated) {
		t.Helper()
		want, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if n := sizeOf(m); n != len(want) {
			t.Errorf("%s: size %d, protobuf-go writes %d bytes", name, n, len(want))
			return
		}
		got := make([]byte, len(want))
		if err := marshalTo(m, got); err != nil {
			t.Errorf("%s: %v", name, err)
			return
		}
		// The generated code writes maps (Struct fields included) in Go's
		// iteration order: such bytes can only decode to the same message.
		if !bytes.Equal(got, want) && !equalDecoded(got, want, m) {
			t.Errorf("%s: bytes decode to another message than protobuf-go's:\n got  %x\n want %x", name, got, want)
		}
		if r, ok := m.(*errsvcv1.TranslateResponse); ok {
			checkFieldOrder(t, name, got, r)
		}
	}
	for i, a := range answers {
		check(fmt.Sprintf("answer %d", i), a)
	}
	batch := &errsvcv1.TranslateBatchResponse{Responses: append([]*errsvcv1.TranslateResponse{nil, {}}, answers...)}
	check("batch", batch)
	batch.ProtoReflect().SetUnknown(unknown)
	check("batch with unknown fields", batch)
	check("empty batch", &errsvcv1.TranslateBatchResponse{})
	filled := &errsvcv1.TranslateBatchResponse{}
	fillAll(filled.ProtoReflect(), 0)
	check("batch with every field set", filled)

	// The split: fields 1 to 5 before the Status, every other field after.
	var p responseParts
	p.split(full)
	p.head.ProtoReflect().Range(func(fd protoreflect.FieldDescriptor, _ protoreflect.Value) bool {
		if fd.Number() > 5 {
			t.Errorf("head holds field %d", fd.Number())
		}
		return true
	})
	full.ProtoReflect().Range(func(fd protoreflect.FieldDescriptor, _ protoreflect.Value) bool {
		inHead, inTail := p.head.ProtoReflect().Has(fd), p.tail.ProtoReflect().Has(fd)
		switch {
		case fd.Number() == 6 && (inHead || inTail):
			t.Errorf("grpc_status is left in a part")
		case fd.Number() < 6 && (!inHead || inTail), fd.Number() > 6 && (inHead || !inTail):
			t.Errorf("field %d (%s): in head %v, in tail %v", fd.Number(), fd.Name(), inHead, inTail)
		}
		return true
	})
	if !bytes.Equal(p.unknown, unknown) {
		t.Error("the unknown fields are not kept for the end")
	}
}

// checkFieldOrder: got's fields are in number order, and its grpc_status
// is byte for byte protobuf-go's encoding of the Status.
func checkFieldOrder(t *testing.T, name string, got []byte, r *errsvcv1.TranslateResponse) {
	t.Helper()
	last := protowire.Number(0)
	for b := got; len(b) > 0; {
		num, typ, n := protowire.ConsumeTag(b)
		size := protowire.ConsumeFieldValue(num, typ, b[n:])
		if n < 0 || size < 0 {
			t.Errorf("%s: malformed at %d", name, len(got)-len(b))
			return
		}
		if num < last {
			t.Errorf("%s: field %d after field %d", name, num, last)
		}
		last = num
		if num == 6 {
			value, _ := protowire.ConsumeBytes(b[n:])
			if want, _ := proto.Marshal(r.GrpcStatus); !bytes.Equal(value, want) {
				t.Errorf("%s: grpc_status\n got  %x\n want %x", name, value, want)
			}
		}
		b = b[n+size:]
	}
}

// goldenAnswers are the answers to every golden request that answers.
func goldenAnswers(t testing.TB) []*errsvcv1.TranslateResponse {
	var answers []*errsvcv1.TranslateResponse
	for _, req := range golden.Requests(t) {
		resp, err := translate.Translate(req)
		if err != nil {
			t.Fatal(err)
		}
		answers = append(answers, resp)
	}
	return answers
}

// equalDecoded reports whether got and want decode to the same message.
func equalDecoded(got, want []byte, m proto.Message) bool {
	a, b := m.ProtoReflect().New().Interface(), m.ProtoReflect().New().Interface()
	if proto.Unmarshal(got, a) != nil || proto.Unmarshal(want, b) != nil {
		return false
	}
	return proto.Equal(a, b)
}

// fillAll sets every field of m: scalars to a non-zero value, one element
// per list and map, messages filled in turn (to depth 3).
func fillAll(m protoreflect.Message, depth int) {
	fields := m.Descriptor().Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if fd.ContainingOneof() != nil && !fd.ContainingOneof().IsSynthetic() && m.WhichOneof(fd.ContainingOneof()) != nil {
			continue
		}
		switch {
		case fd.IsMap():
			mp := m.Mutable(fd).Map()
			v := mp.NewValue()
			if fd.MapValue().Message() != nil {
				if depth < 3 {
					fillAll(v.Message(), depth+1)
				}
			} else {
				v = scalar(fd.MapValue())
			}
			mp.Set(scalar(fd.MapKey()).MapKey(), v)
		case fd.IsList():
			l := m.Mutable(fd).List()
			if fd.Message() != nil {
				v := l.NewElement()
				if depth < 3 {
					fillAll(v.Message(), depth+1)
				}
				l.Append(v)
			} else {
				l.Append(scalar(fd))
			}
		case fd.Message() != nil:
			if depth < 3 {
				fillAll(m.Mutable(fd).Message(), depth+1)
			}
		default:
			m.Set(fd, scalar(fd))
		}
	}
}

func scalar(fd protoreflect.FieldDescriptor) protoreflect.Value {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return protoreflect.ValueOfBool(true)
	case protoreflect.EnumKind:
		return protoreflect.ValueOfEnum(1)
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return protoreflect.ValueOfInt32(-7)
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return protoreflect.ValueOfInt64(-7)
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return protoreflect.ValueOfUint32(7)
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return protoreflect.ValueOfUint64(7)
	case protoreflect.FloatKind:
		return protoreflect.ValueOfFloat32(1.5)
	case protoreflect.DoubleKind:
		return protoreflect.ValueOfFloat64(1.5)
	case protoreflect.StringKind:
		return protoreflect.ValueOfString("x-" + string(fd.Name()))
	case protoreflect.BytesKind:
		return protoreflect.ValueOfBytes([]byte{1, 2})
	}
	panic("kind " + fd.Kind().String())
}
