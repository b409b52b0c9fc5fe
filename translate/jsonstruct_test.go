package translate

import (
	"encoding/json"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
)

// textErrorObjectReference is the reading textErrorObject replaces:
// json.Unmarshal into a map, structpb.NewStruct, then the same choice.
func textErrorObjectReference(text string) (*structpb.Struct, bool) {
	var obj map[string]any
	if json.Unmarshal([]byte(text), &obj) != nil {
		return nil, false
	}
	s, err := structpb.NewStruct(obj)
	if err != nil {
		return nil, false
	}
	if inner := s.GetFields()["error"].GetStructValue(); hasKindOrMessage(inner) {
		s = inner
	}
	if !hasKindOrMessage(s) {
		return nil, false
	}
	return s, true
}

var textObjectSeeds = []string{
	`{"kind":"upstream_error","message":"backend 502"}`,
	`  {"error":{"kind":"rate_limited","message":"slow","retry_after_ms":1500}}  `,
	`{"error":{"code":1},"message":"outer"}`,
	`{"kind":"k","kind":"second"}`,
	`{"kind":"","message":""}`,
	`{"kind":"k"} trailing`,
	`{"kind":"k"}{"kind":"l"}`,
	`null`,
	`[{"kind":"k"}]`,
	`{"kind":"k","n":1e400}`,
	`{"kind":"k","n":-0,"m":1.5e-300,"big":123456789012345678901234567890}`,
	`{"kind":"\u0000\ud83d\ude00\ud800 \xff\xfe","message":"\"esc\"\\/\n"}`,
	`{"message":"m","list":[1,"a",true,false,null,{"x":[]},[]],"obj":{}}`,
	`{"kind":"k",}`,
	`{"kind":01}`,
	`{"kind":"k","deep":[[[[[[[[[[{"a":"b"}]]]]]]]]]]}`,
	"{\"kind\":\"k\"}\n\t\r ",
	"{\"kind\":\"bad \xff\xfe utf8\", \"message\":\"\xc3\"}",
	`{"\u006bind":"escaped key"}`,
	``,
	`{`,
}

func TestTextObjectIsUnmarshalThenNewStruct(t *testing.T) {
	for _, text := range textObjectSeeds {
		checkTextObject(t, text)
	}
}

func FuzzTextObject(f *testing.F) {
	for _, s := range textObjectSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) { checkTextObject(t, text) })
}

func checkTextObject(t *testing.T, text string) {
	t.Helper()
	want, wantOK := textErrorObjectReference(text)
	got, gotValue, gotOK := textErrorObject(newModel(), text)
	if gotOK != wantOK {
		t.Fatalf("%q: read %v, encoding/json reads %v", text, gotOK, wantOK)
	}
	if !gotOK {
		return
	}
	if !proto.Equal(got, want) {
		t.Fatalf("%q:\n got %v\nwant %v", text, got, want)
	}
	if gotValue.GetStructValue() != got {
		t.Fatalf("%q: the Value does not hold the Struct", text)
	}
}
