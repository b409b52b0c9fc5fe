package errjson_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/testing/protocmp"

	"github.com/errsvc/errsvc/codec"
	"github.com/errsvc/errsvc/codec/errjson"
	"github.com/errsvc/errsvc/codec/openjson"
	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/internal/golden"
)

// goldenVectors are every request and answer of testdata/golden.
func goldenVectors(t testing.TB) []golden.Vector {
	t.Helper()
	dir, err := golden.Dir()
	if err != nil {
		t.Fatal(err)
	}
	vs, err := golden.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) == 0 {
		t.Fatal("no golden vectors")
	}
	return vs
}

var equalOpts = []cmp.Option{protocmp.Transform(), cmpopts.EquateNaNs()}

// sameMessage compares like proto.Equal, NaN equal to NaN.
func sameMessage(a, b proto.Message) string { return cmp.Diff(a, b, equalOpts...) }

// namesLeaf reports whether path ends with the field name leaf (list
// indices after it aside); member names may hold dots.
func namesLeaf(path, leaf string) bool {
	for strings.HasSuffix(path, "]") {
		i := strings.LastIndexByte(path, '[')
		if i < 0 {
			break
		}
		path = path[:i]
	}
	return path == leaf || strings.HasSuffix(path, "."+leaf)
}

// checkDecode decodes body with the new codec and with the reference
// (openjson.Unmarshal, protojson underneath) into fresh messages of m's
// type and reports how they differ. Bodies codec.CheckJSON refuses never
// reach either decoder in errsvc, so they are not compared.
func checkDecode(t *testing.T, body []byte, m proto.Message) {
	t.Helper()
	if codec.CheckJSON(body, codec.MaxJSONDepth) != nil {
		return
	}
	got := m.ProtoReflect().New().Interface()
	want := m.ProtoReflect().New().Interface()
	gotErr := errjson.Unmarshal(body, got)
	wantErr := openjson.Unmarshal(body, want)
	var fe *codec.FieldError
	if gotErr != nil && !errors.As(gotErr, &fe) {
		t.Fatalf("%s: the refusal is no FieldError: %v", body, gotErr)
	}
	checkShared(t, body, got, gotErr)
	switch {
	case gotErr == nil && wantErr == nil:
		if d := sameMessage(want, got); d != "" {
			t.Fatalf("%s: decoded differently (-openjson +errjson):\n%s", body, d)
		}
	case gotErr != nil && wantErr == nil:
		// openjson read a body with a duplicate member when it also had a
		// member to move (its rewrite went through a Go map, which keeps
		// the last); errjson refuses every duplicate, as protojson does.
		// (It may refuse another fault of a member openjson's map dropped.)
		if hasDuplicate(body) {
			return
		}
		t.Fatalf("%s: errjson refused what openjson reads: %v\nopenjson: %v", body, gotErr, want)
	case gotErr == nil && wantErr != nil:
		t.Fatalf("%s: errjson read what openjson refuses (%v): %v", body, wantErr, got)
	default:
		// Both refuse. Where protojson named a field on its own reading
		// (openjson did not rewrite the body: its error is protojson's),
		// errjson names the same one, now with its path.
		// On broken JSON openjson could not rewrite, and protojson's first
		// complaint may be a member openjson would have moved.
		plain := protojson.Unmarshal(body, m.ProtoReflect().New().Interface())
		if plain == nil || plain.Error() != wantErr.Error() || !json.Valid(body) {
			return
		}
		want := protojsonField(wantErr)
		if strings.HasPrefix(fe.Description, "invalid google.protobuf.Any value: ") {
			// An Any is read by protojson itself (answers only), whose
			// words the description quotes; the path ends at the Any.
			return
		}
		switch want {
		case "body":
			return
		case "key", "value":
			// protojson names a map entry's own fields; errjson names
			// the map and the key.
			return
		}
		if !namesLeaf(fe.Field, want) {
			t.Fatalf("%s: errjson names %q (%v), protojson %q (%v)", body, fe.Field, gotErr, want, wantErr)
		}
	}
}

// checkShared decodes body with UnmarshalShared (strings viewing the
// body) and requires what Unmarshal gave: got, or the same refusal.
func checkShared(t *testing.T, body []byte, got proto.Message, gotErr error) {
	t.Helper()
	shared := got.ProtoReflect().New().Interface()
	sharedErr := errjson.UnmarshalShared(bytes.Clone(body), shared)
	switch {
	case (sharedErr == nil) != (gotErr == nil) || sharedErr != nil && sharedErr.Error() != gotErr.Error():
		t.Fatalf("%s: UnmarshalShared: %v, Unmarshal: %v", body, sharedErr, gotErr)
	case sharedErr == nil:
		if d := sameMessage(got, shared); d != "" {
			t.Fatalf("%s: UnmarshalShared read differently (-Unmarshal +UnmarshalShared):\n%s", body, d)
		}
	}
}

// hasDuplicate reports whether some object of body has a member twice
// (in any spelling protojson reads as the same field, or exactly).
func hasDuplicate(body []byte) bool {
	return dupScan(body)
}

// checkEncode writes m with the new encoder and requires that openjson
// reads it back to m (fields protojson does not write, unknown fields,
// left out), and that it fails exactly when openjson.Marshal fails.
func checkEncode(t *testing.T, m proto.Message) {
	t.Helper()
	ref, refErr := openjson.Marshal(protojson.MarshalOptions{UseProtoNames: true}, m)
	for _, protoNames := range []bool{true, false} {
		out, err := errjson.Marshal(errjson.Options{ProtoNames: protoNames}, m)
		if (err != nil) != (refErr != nil) {
			t.Fatalf("errjson: %v, openjson: %v, for %v", err, refErr, m)
		}
		if err != nil {
			return
		}
		back := m.ProtoReflect().New().Interface()
		if err := openjson.Unmarshal(out, back); err != nil {
			t.Fatalf("openjson refuses errjson's %s: %v", out, err)
		}
		want := stripUnknown(proto.Clone(m))
		if d := sameMessage(want, back); d != "" {
			// openjson's own round trip is the reference when it is not
			// the identity either (it drops an empty additional_fields
			// beside a lifted one).
			refBack := m.ProtoReflect().New().Interface()
			if openjson.Unmarshal(ref, refBack) == nil && sameMessage(refBack, back) == "" {
				continue
			}
			t.Fatalf("errjson wrote %s\nwhich reads back differently (-want +got):\n%s", out, d)
		}
	}
}

func stripUnknown(m proto.Message) proto.Message {
	var walk func(protoreflect.Message)
	walk = func(r protoreflect.Message) {
		r.SetUnknown(nil)
		r.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			switch {
			case fd.IsMap():
				if fd.MapValue().Message() != nil {
					v.Map().Range(func(_ protoreflect.MapKey, mv protoreflect.Value) bool { walk(mv.Message()); return true })
				}
			case fd.IsList() && fd.Message() != nil:
				for i := 0; i < v.List().Len(); i++ {
					walk(v.List().Get(i).Message())
				}
			case fd.Message() != nil:
				walk(v.Message())
			}
			return true
		})
	}
	walk(m.ProtoReflect())
	return m
}

// Every golden request and answer decodes as openjson decodes it, and
// every answer is written so that openjson reads it back.
func TestGoldenVectorsMatchOpenJSON(t *testing.T) {
	for _, v := range goldenVectors(t) {
		checkDecode(t, v.Request, &errsvcv1.TranslateRequest{})
		if v.Response != nil {
			checkDecode(t, v.Response, &errsvcv1.TranslateResponse{})
			resp := &errsvcv1.TranslateResponse{}
			if err := openjson.Unmarshal(v.Response, resp); err != nil {
				t.Fatalf("%s: %v", v.Name, err)
			}
			checkEncode(t, resp)
			req := &errsvcv1.TranslateRequest{}
			if err := openjson.Unmarshal(v.Request, req); err == nil {
				checkEncode(t, req)
			}
		}
	}
}

// dupScan walks body with encoding/json's tokenizer and reports whether an
// object holds two members whose names are equal once underscores are
// dropped and case folded (protojson's proto and lowerCamel spellings of
// one field are such a pair).
func dupScan(body []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(body))
	type frame struct {
		object bool
		names  map[string]bool
		expect bool // an object expects a name next
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.object && top.expect {
			if s, ok := tok.(string); ok {
				k := strings.ToLower(strings.ReplaceAll(s, "_", ""))
				if top.names[k] {
					return true
				}
				top.names[k] = true
				top.expect = false
				continue
			}
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{object: true, names: map[string]bool{}, expect: true})
			continue
		case json.Delim('['):
			stack = append(stack, &frame{})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		if len(stack) > 0 && stack[len(stack)-1].object {
			stack[len(stack)-1].expect = true
		}
	}
}

// protojsonField is the field a protojson error names, as the REST face
// read them before errjson (server.JSONErrorField; copied so that the
// fuzz binary stays small): the oneof, the quoted member, or the field of
// a bad value (lowerCamel turned snake_case); "body" when it names none.
func protojsonField(err error) string {
	msg := err.Error()
	if m := oneofTakenRE.FindStringSubmatch(msg); m != nil {
		return m[1]
	}
	if m := namedFieldRE.FindStringSubmatch(msg); m != nil && m[1] != "" {
		return m[1]
	}
	if m := badValueRE.FindStringSubmatch(msg); m != nil {
		var b strings.Builder
		for _, r := range m[1] {
			if 'A' <= r && r <= 'Z' {
				b.WriteByte('_')
				r += 'a' - 'A'
			}
			b.WriteRune(r)
		}
		return b.String()
	}
	return "body"
}

var (
	oneofTakenRE = regexp.MustCompile(`oneof [\w.]*?\.?(\w+) is already set`)
	namedFieldRE = regexp.MustCompile(`(?:unknown|duplicate) field "([^"]*)"`)
	badValueRE   = regexp.MustCompile(`invalid value for \w+ field (\w+):`)
)
