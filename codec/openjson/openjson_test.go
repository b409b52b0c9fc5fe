package openjson

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/testing/protocmp"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

func TestUnmarshalRoutesUnknownMembers(t *testing.T) {
	in := `{"labby_error":{"kind":"forbidden","required_scopes":["repo"],"trace_ref":"t1",
		"recovery":{"action":"do_not_retry","jitter_ms":5},"safety":{"title":"Create","read_only_hint":true},
		"evidence":{"content":[{"type":"text","text":"x","annotations":{"priority":1}}],"collected_at":"now"}},
		"request_tag":"top","context":{"service":"s","tenant":"acme"}}`
	var got errsvcv1.TranslateRequest
	if err := Unmarshal([]byte(in), &got); err != nil {
		t.Fatal(err)
	}
	want := &errsvcv1.TranslateRequest{}
	canonical := `{"labby_error":{"kind":"forbidden","required_scopes":["repo"],"additional_fields":{"trace_ref":"t1"},
		"recovery":{"action":"do_not_retry","additional_fields":{"jitter_ms":5}},"safety":{"read_only_hint":true,"additional_fields":{"title":"Create"}},
		"evidence":{"content":[{"type":"text","text":"x","additional_fields":{"annotations":{"priority":1}}}],"additional_fields":{"collected_at":"now"}}},
		"additional_fields":{"request_tag":"top"},"context":{"service":"s","additional_fields":{"tenant":"acme"}}}`
	if err := protojson.Unmarshal([]byte(canonical), want); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, &got, protocmp.Transform()); d != "" {
		t.Errorf("(-want +got)\n%s", d)
	}

	// And Marshal puts them back where they came from.
	out, err := Marshal(protojson.MarshalOptions{UseProtoNames: true}, &got)
	if err != nil {
		t.Fatal(err)
	}
	var a, b any
	_ = json.Unmarshal(out, &a)
	_ = json.Unmarshal([]byte(in), &b)
	if d := cmp.Diff(b, a); d != "" {
		t.Errorf("Marshal does not restore the producer's shape (-in +out)\n%s", d)
	}
	if strings.Contains(string(out), FieldName) {
		t.Errorf("additional_fields leaked into the JSON: %s", out)
	}
}

func TestUnmarshalWaitOfAnotherType(t *testing.T) {
	for _, tc := range []struct{ in, key string }{
		{`{"labby_error":{"kind":"x","classification":{"class":"transient","retry_after_secs":2.5}}}`, "retry_after_secs"},
		{`{"labby_error":{"kind":"x","recovery":{"retry_after_ms":"1.5s"}}}`, "retry_after_ms"},
	} {
		var got errsvcv1.TranslateRequest
		if err := Unmarshal([]byte(tc.in), &got); err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		e := got.GetLabbyError()
		extra := e.GetClassification().GetAdditionalFields()
		if extra == nil {
			extra = e.GetRecovery().GetAdditionalFields()
		}
		if _, ok := extra.GetFields()[tc.key]; !ok {
			t.Errorf("%s: %s not moved to additional_fields: %v", tc.in, tc.key, &got)
		}
	}
	// A whole number, or a string of one, is protojson's to read.
	var ok errsvcv1.TranslateRequest
	if err := Unmarshal([]byte(`{"labby_error":{"kind":"x","recovery":{"retry_after_ms":"1500"}}}`), &ok); err != nil || ok.GetLabbyError().GetRecovery().GetRetryAfterMs() != 1500 {
		t.Errorf("a numeric string: %v %v", err, &ok)
	}
}

func TestUnmarshalStillRefusesWhatIsMalformed(t *testing.T) {
	for _, in := range []string{
		`{"labby_error":{"kind":5}}`,        // wrong type of a modelled field
		`{"labby_error":`,                   // bad JSON
		`{"labby_error":{"kind":"\ud800"}}`, // a lone surrogate
		`{"labby_error":{},"agent_error":{}}`,
		`[]`,
	} {
		var m errsvcv1.TranslateRequest
		if err := Unmarshal([]byte(in), &m); err == nil {
			t.Errorf("%s: accepted", in)
		}
	}
}

func TestUnmarshalBatchIsolatesItems(t *testing.T) {
	in := `{"requests":[{"labby_error":{"kind":"a"}},{"labby_error":{"kind":5}},{"labby_error":{"kind":"c","extra":1}}],"batch_id":"b1"}`
	var b errsvcv1.TranslateBatchRequest
	if err := UnmarshalBatch([]byte(in), &b, nil); err != nil {
		t.Fatal(err)
	}
	if len(b.GetRequests()) != 3 {
		t.Fatalf("%d items", len(b.GetRequests()))
	}
	if ItemError(b.Requests[0]) != nil || ItemError(b.Requests[2]) != nil {
		t.Errorf("good items marked")
	}
	if err := ItemError(b.Requests[1]); err == nil || !strings.Contains(err.Error(), "kind") {
		t.Errorf("bad item: %v", err)
	}
	if b.Requests[2].GetLabbyError().GetAdditionalFields().GetFields()["extra"] == nil {
		t.Errorf("unknown member of an item not routed")
	}
	if b.GetAdditionalFields().GetFields()["batch_id"] == nil {
		t.Errorf("unknown top-level member not routed")
	}
	if err := UnmarshalBatch([]byte(`{"requests":5}`), &b, nil); err == nil {
		t.Errorf("a batch whose requests is no list was accepted")
	}
}
