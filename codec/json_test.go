package codec_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/errsvc/errsvc/codec"
	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
)

func nested(depth int, inner string) string {
	return strings.Repeat(`{"a":`, depth) + inner + strings.Repeat("}", depth)
}

func TestCheckJSON(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		field      string // "" accepted
		sentinel   error
	}{
		{"golden shape", `{"labby_error":{"kind":"rate_limited","details":{"x":[1,{"y":null}]}}}`, "", nil},
		{"exactly the limit", nested(codec.MaxJSONDepth, "1"), "", nil},
		{"one past the limit", nested(codec.MaxJSONDepth+1, "1"), "a.a.a.a.a.a.a.a.…", codec.ErrTooDeep},
		{"arrays count too", `{"k":` + strings.Repeat("[", 70) + strings.Repeat("]", 70) + `}`, "k[0][0][0][0][0][0][0].…", codec.ErrTooDeep},
		{"brackets inside strings do not count", `{"s":"` + strings.Repeat("[{", 100) + `\"` + strings.Repeat("[", 100) + `"}`, "", nil},
		{"escaped backslash before the quote", `{"s":"\\","t":` + nested(3, "1") + `}`, "", nil},
		{"lone high surrogate", `{"labby_error":{"kind":"x","message":"\ud800"}}`, "labby_error.message", codec.ErrLoneSurrogate},
		{"lone low surrogate", `{"labby_error":{"message":"ok \uDC00"}}`, "labby_error.message", codec.ErrLoneSurrogate},
		{"high surrogate then a non-surrogate", `{"m":"\ud800\u0041"}`, "m", codec.ErrLoneSurrogate},
		{"a pair is fine", `{"m":"\ud83d\ude00 \u00e9"}`, "", nil},
		{"invalid UTF-8 value", "{\"labby_error\":{\"message\":\"a\xffb\"}}", "labby_error.message", codec.ErrInvalidUTF8},
		{"invalid UTF-8 key", "{\"labby_error\":{\"k\xc3\":1}}", "labby_error.k", codec.ErrInvalidUTF8},
		{"in an array element", `{"requests":[{},{"labby_error":{"message":"\udfff"}}]}`, "requests[1].labby_error.message", codec.ErrLoneSurrogate},
		{"top level", `"\ud800"`, "body", codec.ErrLoneSurrogate},
		{"broken JSON is left to the decoder", `{"a":[}}}]`, "", nil},
		{"unterminated string", `{"a":"\`, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := codec.CheckJSON([]byte(tc.body), codec.MaxJSONDepth)
			if tc.field == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var fe *codec.FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("got %v, want a FieldError", err)
			}
			if fe.Field != tc.field || !errors.Is(err, tc.sentinel) {
				t.Errorf("got field %q (%v), want %q (%v)", fe.Field, err, tc.field, tc.sentinel)
			}
		})
	}
}

// The gRPC wire check counts Struct and ListValue levels like JSON objects
// and arrays, and names the proto field holding the tree.
func TestCheckWireJSONDepth(t *testing.T) {
	build := func(depth int) *errsvcv1.TranslateRequest {
		v := structpb.NewNumberValue(1)
		for i := 1; i < depth; i++ {
			if i%2 == 0 {
				v = structpb.NewListValue(&structpb.ListValue{Values: []*structpb.Value{v}})
			} else {
				v = structpb.NewStructValue(&structpb.Struct{Fields: map[string]*structpb.Value{"k": v}})
			}
		}
		return &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_AgentError{AgentError: &errsvcv1.AgentError{
			Code: "TIMEOUT", Details: &structpb.Struct{Fields: map[string]*structpb.Value{"k": v}},
		}}}
	}
	for _, tc := range []struct {
		depth int
		ok    bool
	}{{codec.MaxJSONDepth, true}, {codec.MaxJSONDepth + 1, false}, {500, false}} {
		b, err := proto.Marshal(build(tc.depth))
		if err != nil {
			t.Fatal(err)
		}
		err = codec.Server.Unmarshal(mem.BufferSlice{mem.SliceBuffer(b)}, &errsvcv1.TranslateRequest{})
		var fe *codec.FieldError
		switch {
		case tc.ok && err != nil:
			t.Errorf("depth %d refused: %v", tc.depth, err)
		case !tc.ok && (!errors.As(err, &fe) || !errors.Is(err, codec.ErrTooDeep)):
			t.Errorf("depth %d: %v, want ErrTooDeep", tc.depth, err)
		case !tc.ok && fe.Field != "agent_error.details":
			t.Errorf("depth %d: field %q, want agent_error.details", tc.depth, fe.Field)
		}
	}
	// A bad string is named by its path, through oneofs and nested messages.
	bad := []byte{0x0a, 0x04, 0x12, 0x02, 0xff, 0xfe}
	err := codec.CheckWire(bad, (&errsvcv1.TranslateRequest{}).ProtoReflect().Descriptor())
	var fe *codec.FieldError
	if !errors.As(err, &fe) || fe.Field != "labby_error.kind" || !errors.Is(err, codec.ErrInvalidUTF8) {
		t.Errorf("got %v, want labby_error.kind: invalid UTF-8", err)
	}
}

// jsonDepth is encoding/json's view of a valid document's nesting.
func jsonDepth(b []byte) int {
	dec := json.NewDecoder(bytes.NewReader(b))
	depth, deepest := 0, 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return deepest
		}
		if d, ok := tok.(json.Delim); ok {
			if d == '{' || d == '[' {
				depth++
				deepest = max(deepest, depth)
			} else {
				depth--
			}
		}
	}
}

// FuzzCheckJSON: on any valid JSON, CheckJSON refuses for depth exactly
// when encoding/json counts more than the limit, and never panics on
// anything.
func FuzzCheckJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,{"b":"}"}]}`, nested(9, `"\ud800"`), `[[[[[]]]]]`, `{"s":"\\\"[["}`} {
		f.Add([]byte(s), 4)
	}
	f.Fuzz(func(t *testing.T, b []byte, limit int) {
		limit = 1 + (limit&0xff)%16
		err := codec.CheckJSON(b, limit)
		if !json.Valid(b) {
			return
		}
		deep := jsonDepth(b) > limit
		if errors.Is(err, codec.ErrTooDeep) != deep {
			t.Fatalf("limit %d, depth %d: CheckJSON says %v", limit, jsonDepth(b), err)
		}
	})
}

func BenchmarkCheckJSON(b *testing.B) {
	body := []byte(`{"labby_error":{"kind":"rate_limited","message":"slow down \u00e9 \ud83d\ude00","details":{"retry_after_ms":1200,"scope":["a","b",{"c":null}]}}}`)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if err := codec.CheckJSON(body, codec.MaxJSONDepth); err != nil {
			b.Fatal(err)
		}
	}
}

// The value limit counts containers and the commas between members and
// elements: a body at the limit passes, one value more is refused naming
// where, and a batch's items share one count.
func TestCheckJSONCountsValues(t *testing.T) {
	wide := func(n int) []byte {
		// An object of n-1 members is one container and n-2 commas: n-1
		// values; the outer object adds one.
		var b strings.Builder
		b.WriteString(`{"d":{`)
		for i := 0; i < n-1; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`"k":1`)
		}
		b.WriteString(`}}`)
		return []byte(b.String())
	}
	if err := codec.CheckJSON(wide(codec.MaxJSONValues), codec.MaxJSONDepth); err != nil {
		t.Fatalf("at the limit: %v", err)
	}
	err := codec.CheckJSON(wide(codec.MaxJSONValues+1), codec.MaxJSONDepth)
	var fe *codec.FieldError
	if !errors.As(err, &fe) || !errors.Is(err, codec.ErrTooWide) || fe.Field != "d.k" {
		t.Fatalf("one value past the limit: %v, want codec.ErrTooWide on d.k", err)
	}
}
