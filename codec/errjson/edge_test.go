package errjson_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/errsvc/errsvc/codec"
	"github.com/errsvc/errsvc/codec/errjson"
	"github.com/errsvc/errsvc/codec/openjson"
	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// edgeBodies seed the fuzz targets with the corners of protojson's reading
// (edge_test.go checks each against openjson and pins errjson's answer).
var edgeBodies = []string{
	`{"labby_error":{"kind":"x","message":"a\u0000b \ud83d\ude00 \u00e9 \/"}}`,
	`{"labby_error":{"kind":"x","message":"\ud800"}}`,
	`{"labby_error":{"kind":"x","kind":"y"}}`,
	`{"labby_error":{"kind":"x","kind":"y"},"extra":1}`,
	`{"labbyError":{"kind":"x"},"labby_error":{"kind":"y"}}`,
	`{"labby_error":{"kind":"x","recovery":{"retry_after_ms":"1.5s"}}}`,
	`{"labby_error":{"kind":"x","recovery":{"retry_after_ms":"1500"}}}`,
	`{"labby_error":{"kind":"x","recovery":{"retryAfterMs":1e3}}}`,
	`{"labby_error":{"kind":"x","recovery":{"retry_after_ms":-0}}}`,
	`{"labby_error":{"kind":"x","recovery":{"retry_after_ms":4294967296}}}`,
	`{"labby_error":{"kind":"x","recovery":{"retry_after_ms":2.5}}}`,
	`{"labby_error":{"kind":"x","classification":{"retry_after_secs":true}}}`,
	`{"classified_error":{"code":"x","retry_after_secs":"1.5"}}`,
	`{"classified_error":{"code":"x","retry_after_secs":"1.5","other":1}}`,
	`{"classified_error":{"code":"x","retry_after_secs":"NaN"}}`,
	`{"classified_error":{"code":"x","retry_after_secs":1e400}}`,
	`{"classified_error":{"code":"x","retry_after_secs":"soon"}}`,
	`{"classified_error":{"code":"x","status":"404"}}`,
	`{"classified_error":{"code":"x","status":" 404"}}`,
	`{"classified_error":{"code":"x","status":2147483648}}`,
	`{"agent_error":{"code":"X","details":{"n":-0,"big":1e308,"huge":1e400}}}`,
	`{"agent_error":{"code":"X","details":{"a":null,"b":[null,1,"s",true,{}]}}}`,
	`{"agent_error":{"code":"X","details":null}}`,
	`{"agent_error":{"code":"X","details":{"k":1,"k":2}}}`,
	// A malformed value inside a Struct, at each kind a Value can start.
	`{"agent_error":{"code":"X","details":{"a":{"b":tru}}}}`,
	`{"agent_error":{"code":"X","details":{"a":[1,]}}}`,
	`{"agent_error":{"code":"X","details":{"a":[1 2]}}}`,
	`{"agent_error":{"code":"X","details":{"a":"\q"}}}`,
	`{"agent_error":{"code":"X","details":{"a":"open}}}`,
	`{"agent_error":{"code":"X","details":{"a":nul}}}`,
	`{"agent_error":{"code":"X","details":{"a":fals}}}`,
	`{"agent_error":{"code":"X","details":{"a":-}}}`,
	`{"agent_error":{"code":"X","details":{"a":01}}}`,
	`{"agent_error":{"code":"X","details":{"a":`,
	`{"agent_error":{"code":"X","details":{"a":[{"b":[nul]}]}}}`,
	`{"agent_error":{"code":"X","details":{"a":{,"b":2}}}`,
	`{"agent_error":{"code":"X","details":{"a":[,"b"],"c":1}}}`,
	`{"agent_error":{"code":"X","details":{"a":{"b":[,]},"c":1}}}`,
	`{"agent_error":null,"labby_error":{"kind":"x"}}`,
	`{"agent_error":{},"labby_error":{"kind":"x"}}`,
	`{"mcp_tool_result":{"tool":"t","is_error":true,"structured_content":null,"content":[null]}}`,
	`{"mcp_tool_result":{"tool":"t","is_error":true,"structured_content":null}}`,
	`{"grpc_status":{"code":14,"status_bin":"AAE="}}`,
	`{"grpc_status":{"code":14,"status_bin":"AA-_"}}`,
	`{"grpc_status":{"code":14,"status_bin":"not base64!"}}`,
	`{"provider_response":{"provider":"openai","status":429,"received_at":"2024-01-01T00:00:00.123Z"}}`,
	`{"provider_response":{"provider":"openai","status":429,"received_at":"2024-01-01T00:00:00.1234567891Z"}}`,
	`{"provider_response":{"provider":"openai","status":429,"received_at":"yesterday"}}`,
	`{"http_error":{"status":503,"headers":{"Retry-After":"5","retry-after":"6"}}}`,
	`{"http_error":{"status":503,"headers":{"a":"1","a":"2"}}}`,
	`{"http_error":{"status":503,"headers":{"a":null}}}`,
	`{"labby_error":{"kind":"x","additional_fields":5}}`,
	`{"labby_error":{"kind":"x","additional_fields":5,"extra":1}}`,
	`{"labby_error":{"kind":"x","additional_fields":{"extra":2},"extra":1}}`,
	`{"labby_error":{"kind":"x","required_scopes":["a",null]}}`,
	`{"targets":"x"}`,
	`{"targets":["a"],"labby_error":{"kind":5}}`,
	`{"labby_error":{"kind":"x"}} x`,
	`{"labby_error":{"kind":"x"},}`,
	`{"labby_error":{"kind":tru}}`,
	`{"labby_error":{"kind":"x","contract_version":01}}`,
	`[]`,
	`null`,
	``,
	`{"requests":[{"labby_error":{"kind":"a"}},{"labby_error":{"kind":5}},5,null,{"labby_error":{"kind":"c","extra":1}}],"batch_id":"b1"}`,
	`{"requests":5}`,
	`{"requests":null}`,
}

// Every edge body reads as openjson reads it (or both refuse).
func TestEdgeBodiesMatchOpenJSON(t *testing.T) {
	for _, b := range edgeBodies {
		checkDecode(t, []byte(b), &errsvcv1.TranslateRequest{})
		checkDecode(t, []byte(b), &errsvcv1.TranslateBatchRequest{})
		checkBatch(t, []byte(b))
	}
}

// Refusals name the field with its full path, in proto names whatever
// spelling the body used; broken syntax names the body.
func TestRefusalsNameTheFullPath(t *testing.T) {
	for _, tc := range []struct{ body, field, desc string }{
		{`{"labby_error":{"kind":"x","recovery":{"action":5}}}`, "labby_error.recovery.action", "invalid value for string field"},
		{`{"labbyError":{"kind":"x","recovery":{"sameArguments":true}}}`, "labby_error.recovery.same_arguments", "invalid value for string field"},
		{`{"labby_error":{"kind":"x","evidence":{"content":[{},{"type":7}]}}}`, "labby_error.evidence.content[1].type", "invalid value"},
		{`{"labby_error":{"kind":"x","kind":"y"}}`, "labby_error.kind", "duplicate field"},
		{`{"labby_error":{"kind":"x","originalKind":"a","original_kind":"b"}}`, "labby_error.original_kind", "duplicate field"},
		{`{"labby_error":{},"agent_error":{}}`, "source", "oneof source is already set"},
		{`{"agent_error":{"code":"X","details":{"k":1,"k":2}}}`, "agent_error.details.k", "duplicate map key"},
		{`{"agent_error":{"code":"X","details":{"a":{"b":[1,1e400]}}}}`, "agent_error.details.a.b[1]", "out of the range"},
		{`{"classified_error":{"code":"x","status":2147483648}}`, "classified_error.status", "invalid value for int32 field"},
		{`{"http_error":{"status":503,"headers":{"a":null}}}`, "http_error.headers.a", "invalid value for string field"},
		{`{"provider_response":{"provider":"p","received_at":"yesterday"}}`, "provider_response.received_at", "Timestamp"},
		{`{"grpc_status":{"code":14,"status_bin":"not base64!"}}`, "grpc_status.status_bin", "base64"},
		{`{"labby_error":{"kind":"x","additional_fields":5}}`, "labby_error.additional_fields", "google.protobuf.Struct"},
		{`{"targets":"x"}`, "targets", "invalid value for repeated string field"},
		{`{"labby_error":{"kind":"x"}} x`, "body", "syntax error"},
		{`{"labby_error":{"kind":tru}}`, "body", "syntax error"},
		{`{"labby_error":{"kind":"\ud800"}}`, "body", "surrogate"},
		{"{\"labby_error\":{\"kind\":\"a\xffb\"}}", "body", "UTF-8"},
		{`{"labby_error":`, "body", "unexpected end"},
		{`[]`, "body", "message"},
		{``, "body", "unexpected end"},
	} {
		err := errjson.Unmarshal([]byte(tc.body), &errsvcv1.TranslateRequest{})
		var fe *codec.FieldError
		if !errors.As(err, &fe) {
			t.Errorf("%s: %v, want a FieldError", tc.body, err)
			continue
		}
		if fe.Field != tc.field || !strings.Contains(fe.Description, tc.desc) {
			t.Errorf("%s: %q: %q, want %q: …%s…", tc.body, fe.Field, fe.Description, tc.field, tc.desc)
		}
	}
}

// The corners of protojson's reading, pinned.
func TestReadsLikeProtojson(t *testing.T) {
	read := func(body string) *errsvcv1.TranslateRequest {
		t.Helper()
		m := &errsvcv1.TranslateRequest{}
		if err := errjson.Unmarshal([]byte(body), m); err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		return m
	}
	if got := read(`{"labby_error":{"kind":"x","message":"a\u0000b \ud83d\ude00 \/"}}`).GetLabbyError().GetMessage(); got != "a\x00b 😀 /" {
		t.Errorf("escapes: %q", got)
	}
	d := read(`{"agent_error":{"code":"X","details":{"z":-0,"n":null,"big":1e308,"i":"9007199254740993"}}}`).GetAgentError().GetDetails().GetFields()
	if z := d["z"].GetNumberValue(); z != 0 || !math.Signbit(z) {
		t.Errorf("-0 read as %v", z)
	}
	if _, ok := d["n"].GetKind().(*structpb.Value_NullValue); !ok {
		t.Errorf("null in a Struct: %v", d["n"])
	}
	if d["big"].GetNumberValue() != 1e308 || d["i"].GetStringValue() != "9007199254740993" {
		t.Errorf("numbers: %v", d)
	}
	// null leaves a message field unset; a Value field holds null.
	if m := read(`{"agent_error":null,"labby_error":{"kind":"x","recovery":null}}`); m.GetLabbyError().Recovery != nil || m.GetAgentError() != nil {
		t.Errorf("null message fields set: %v", m)
	}
	if v := read(`{"mcp_tool_result":{"tool":"t","structured_content":null}}`).GetMcpToolResult().GetStructuredContent(); v == nil {
		t.Errorf("a null Value field is unset, want null")
	}
	// Integers from numbers in any whole spelling and from numeric strings.
	if r := read(`{"labby_error":{"kind":"x","contractVersion":"1","recovery":{"retry_after_ms":1.5e3}}}`).GetLabbyError(); r.GetContractVersion() != 1 || r.GetRecovery().GetRetryAfterMs() != 1500 {
		t.Errorf("integers: %v", r)
	}
	// A wait field's numeric string stays a double while nothing else is
	// moved, and goes to additional_fields with the rest when something is
	// (openjson read such a body twice).
	if c := read(`{"classified_error":{"code":"x","retry_after_secs":"1.5"}}`).GetClassifiedError(); c.GetRetryAfterSecs() != 1.5 || c.AdditionalFields != nil {
		t.Errorf("numeric string wait: %v", c)
	}
	if c := read(`{"classified_error":{"code":"x","retry_after_secs":"1.5","other":1}}`).GetClassifiedError(); c.RetryAfterSecs != nil || c.GetAdditionalFields().GetFields()["retry_after_secs"].GetStringValue() != "1.5" {
		t.Errorf("numeric string wait beside a moved member: %v", c)
	}
}

// The writer refuses what protojson refuses to write.
func TestWriteRefusals(t *testing.T) {
	for name, m := range map[string]*errsvcv1.TranslateResponse{
		"NaN in a Value": {LabbyError: &errsvcv1.LabbyError{Detail: &structpb.Struct{Fields: map[string]*structpb.Value{"x": structpb.NewNumberValue(math.NaN())}}}},
		"Inf in a Value": {LabbyError: &errsvcv1.LabbyError{Detail: &structpb.Struct{Fields: map[string]*structpb.Value{"x": structpb.NewNumberValue(math.Inf(-1))}}}},
		"empty Value":    {LabbyError: &errsvcv1.LabbyError{Detail: &structpb.Struct{Fields: map[string]*structpb.Value{"x": {}}}}},
		"invalid UTF-8":  {LabbyError: &errsvcv1.LabbyError{Kind: "a\xffb"}},
	} {
		if _, err := errjson.Marshal(errjson.Options{ProtoNames: true}, m); err == nil {
			t.Errorf("%s: written", name)
		}
		if _, err := openjson.Marshal(protojson.MarshalOptions{}, m); err == nil {
			t.Errorf("%s: protojson writes it: the test is wrong", name)
		}
	}
}

// The writer's shape: additional fields lifted, -0 and int64 as protojson
// writes them, the empty top-level lists on request, indented output that
// reads back.
func TestWriteShape(t *testing.T) {
	m := &errsvcv1.TranslateResponse{
		LabbyError: &errsvcv1.LabbyError{Kind: "x", AdditionalFields: &structpb.Struct{Fields: map[string]*structpb.Value{
			"trace_ref": structpb.NewStringValue("t1"), "kind": structpb.NewStringValue("shadow"), "z": structpb.NewNumberValue(math.Copysign(0, -1)),
		}}},
	}
	out, err := errjson.Marshal(errjson.Options{ProtoNames: true, TopLevelLists: true}, m)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"labby_error":{"kind":"x","trace_ref":"t1","z":-0,"additional_fields":{"kind":"shadow"}},"notes":[]}`
	if string(out) != want {
		t.Errorf("got  %s\nwant %s", out, want)
	}
	ind, err := errjson.Marshal(errjson.Options{ProtoNames: true, Indent: "  "}, m)
	if err != nil || !strings.Contains(string(ind), "\n  \"labby_error\": {\n") {
		t.Errorf("indented: %v\n%s", err, ind)
	}
	back := &errsvcv1.TranslateResponse{}
	if err := openjson.Unmarshal(ind, back); err != nil || sameMessage(m, back) != "" {
		t.Errorf("indented output reads back as %v (%v)", back, err)
	}
}
