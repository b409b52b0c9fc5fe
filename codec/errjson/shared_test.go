package errjson_test

import (
	"bytes"
	"testing"

	"github.com/errsvc/errsvc/codec/errjson"
	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// TestUnmarshalShared: strings decoded with UnmarshalShared that the body
// holds as they are view the body's bytes; escaped ones are decoded into
// the decoder's scratch buffer, which every escaped string reuses, and
// must come out as copies of their own (several escaped strings in one
// body, in fields, Struct keys and values, and a string map).
func TestUnmarshalShared(t *testing.T) {
	body := []byte(`{"agent_error":{"code":"TIME\u004fUT","message":"line\none","retry":"no",` +
		`"details":{"k\t1":"v\"1","k\\2":["a\/b","plain",{"n\u00e9":"\u00fc"}],"plain":"as is"}},` +
		`"context":{"service":"svc-\"q\"","labels":{"t\u00e9am":"p\u00e4y","env":"prod"}}}`)
	want := &errsvcv1.TranslateRequest{}
	if err := errjson.Unmarshal(body, want); err != nil {
		t.Fatal(err)
	}
	data := bytes.Clone(body)
	got := &errsvcv1.TranslateRequest{}
	if err := errjson.UnmarshalShared(data, got); err != nil {
		t.Fatal(err)
	}
	if d := sameMessage(want, got); d != "" {
		t.Fatalf("UnmarshalShared read differently (-Unmarshal +UnmarshalShared):\n%s", d)
	}
	// The unescaped strings are views: writing over the body changes them
	// (and nothing else may, which is the contract's other half).
	i := bytes.Index(data, []byte(`as is`))
	copy(data[i:], "AS IS")
	if got.GetAgentError().GetDetails().GetFields()["plain"].GetStringValue() != "AS IS" {
		t.Errorf("an unescaped Struct value is a copy, not a view of the body")
	}
	// The escaped ones are not: only that one value differs now.
	got.GetAgentError().GetDetails().GetFields()["plain"].Kind = want.GetAgentError().GetDetails().GetFields()["plain"].GetKind()
	if d := sameMessage(want, got); d != "" {
		t.Errorf("writing over an unescaped value changed more (-before +after):\n%s", d)
	}
}
