package server

import (
	"testing"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"google.golang.org/protobuf/encoding/protojson"
)

// TestDecodeErrorField runs real protojson errors through the parser, so a
// change in their wording shows up here rather than as a vague "body".
func TestDecodeErrorField(t *testing.T) {
	for _, tc := range []struct{ body, field string }{
		{`{"foo":1}`, "foo"},
		{`{"labby_error":{"nope":1}}`, "nope"},
		{`{"labby_error":{},"labby_error":{}}`, "labby_error"},
		{`{"labby_error":{},"mcp_tool_result":{}}`, "source"},
		{`{"labby_error":{"kind":5}}`, "kind"},
		{`{"labby_error":{"sideEffects":true}}`, "side_effects"},
		{`{"targets":"x"}`, "body"},
		{`[]`, "body"},
	} {
		err := protojson.Unmarshal([]byte(tc.body), &errsvcv1.TranslateRequest{})
		if err == nil {
			t.Fatalf("%s decoded", tc.body)
		}
		st := decodeErrorStatus(err.Error())
		if got := violation(t, st.Proto()).GetField(); got != tc.field {
			t.Errorf("%s: field %q, want %q (from %q)", tc.body, got, tc.field, err)
		}
	}
}
