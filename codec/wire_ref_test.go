package codec_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/errsvc/errsvc/codec"
	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// checkWireRef is CheckWire as it was before its tables: the same walk,
// reading the descriptors at every field. The differential tests hold the
// tables to it.
func checkWireRef(b []byte, md protoreflect.MessageDescriptor, depth, jsonDepth int) error {
	if depth > codec.MaxDepth {
		return fmt.Errorf("%s: exceeds the maximum nesting depth of %d", md.FullName(), codec.MaxDepth)
	}
	if name := md.FullName(); name == "google.protobuf.Struct" || name == "google.protobuf.ListValue" {
		if jsonDepth++; jsonDepth > codec.MaxJSONDepth {
			return &codec.FieldError{Err: codec.ErrTooDeep,
				Description: "Struct/Value nested deeper than " + strconv.Itoa(codec.MaxJSONDepth) + " levels (JSON depth)"}
		}
	}
	fields := md.Fields()
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return fmt.Errorf("%s: %w", md.FullName(), protowire.ParseError(n))
		}
		if num > protowire.MaxValidNumber {
			return fmt.Errorf("%s: field number %d out of range", md.FullName(), num)
		}
		b = b[n:]
		if typ != protowire.BytesType {
			if n = protowire.ConsumeFieldValue(num, typ, b); n < 0 {
				return fmt.Errorf("%s: %w", md.FullName(), protowire.ParseError(n))
			}
			b = b[n:]
			continue
		}
		v, n := protowire.ConsumeBytes(b)
		if n < 0 {
			return fmt.Errorf("%s: %w", md.FullName(), protowire.ParseError(n))
		}
		b = b[n:]
		fd := fields.ByNumber(num)
		if fd == nil {
			continue
		}
		var err error
		switch fd.Kind() {
		case protoreflect.StringKind:
			if !utf8.Valid(v) {
				err = &codec.FieldError{Err: codec.ErrInvalidUTF8, Description: "string is not valid UTF-8"}
			}
		case protoreflect.MessageKind:
			err = checkWireRef(v, fd.Message(), depth+1, jsonDepth)
		}
		if err != nil {
			var fe *codec.FieldError
			switch name := md.FullName(); {
			case !errors.As(err, &fe), name == "google.protobuf.Struct", name == "google.protobuf.Struct.FieldsEntry",
				name == "google.protobuf.Value", name == "google.protobuf.ListValue", md.IsMapEntry():
			case fe.Field == "":
				fe.Field = string(fd.Name())
			default:
				fe.Field = string(fd.Name()) + "." + fe.Field
			}
			return err
		}
	}
	return nil
}

// sameCheck fails t when CheckWire and the reference walk part on b.
func sameCheck(t *testing.T, b []byte, md protoreflect.MessageDescriptor) {
	t.Helper()
	got, want := codec.CheckWire(b, md), checkWireRef(b, md, 0, 0)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("%s on %x: CheckWire %v, the descriptor walk %v", md.FullName(), b, got, want)
	}
}

// Every golden request and answer, and thousands of corruptions of each
// (a byte changed, a cut, a string made invalid UTF-8), get from the tables
// exactly the descriptor walk's verdict and error.
func TestWireTablesAreTheDescriptorWalk(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 9))
	var refused int
	for _, m := range goldenMessages(t) {
		b, err := proto.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		md := m.ProtoReflect().Descriptor()
		sameCheck(t, b, md)
		for range 40 {
			c := append([]byte(nil), b...)
			switch rng.IntN(3) {
			case 0:
				if len(c) > 0 {
					c[rng.IntN(len(c))] = byte(rng.IntN(256))
				}
			case 1:
				c = c[:rng.IntN(len(c)+1)]
			default:
				if len(c) > 0 {
					c[rng.IntN(len(c))] = 0xff
				}
			}
			if codec.CheckWire(c, md) != nil {
				refused++
			}
			sameCheck(t, c, md)
		}
	}
	if refused < 1000 {
		t.Fatalf("only %d corruptions refused: the test no longer reaches the refusals", refused)
	}
	// A deep Struct tree, past the JSON depth.
	v := structpb.NewStringValue("leaf")
	for range codec.MaxJSONDepth + 2 {
		v = structpb.NewListValue(&structpb.ListValue{Values: []*structpb.Value{v}})
	}
	req := &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_AgentError{AgentError: &errsvcv1.AgentError{
		Code: "TIMEOUT", Details: &structpb.Struct{Fields: map[string]*structpb.Value{"deep": v}}}}}
	b, _ := proto.Marshal(req)
	sameCheck(t, b, req.ProtoReflect().Descriptor())
	if codec.CheckWire(b, req.ProtoReflect().Descriptor()) == nil {
		t.Fatal("a Struct past the JSON depth passed")
	}
}

// FuzzWireTables: on any bytes, as a request and as an answer, the tables
// and the descriptor walk agree.
func FuzzWireTables(f *testing.F) {
	for _, m := range goldenMessages(f) {
		b, _ := proto.Marshal(m)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		sameCheck(t, b, (&errsvcv1.TranslateRequest{}).ProtoReflect().Descriptor())
		sameCheck(t, b, (&errsvcv1.TranslateResponse{}).ProtoReflect().Descriptor())
	})
}
