package translate

import (
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/errsvc/errsvc/codec/openjson"
	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// labbyFromStrings gives what the JSON round trip gives, or declines.
func TestLabbyFromStringsIsTheRoundTrip(t *testing.T) {
	for _, js := range []string{
		`{"kind":"upstream_error","message":"backend 502"}`,
		`{"kind":"k","contract_version":"1","contractVersion":"1"}`,
		`{"kind":"k","contract_version":"","contractVersion":"1"}`,
		`{"kind":"k","contractVersion":"labby.agent_error.v1","message":""}`,
		`{"kind":"k","origin":"tool"}`,
		`{"kind":"k","message":"m","x_extra":"y"}`,
		`{"kind":"k","message":"m","recovery":{"action":"retry_later"}}`,
		`{"kind":"k","retry_after_ms":"5"}`,
	} {
		s := &structpb.Struct{}
		if err := protojson.Unmarshal([]byte(js), s); err != nil {
			t.Fatal(err)
		}
		got, ok := labbyFromStrings(s)
		if !ok {
			continue
		}
		b, _ := protojson.Marshal(s)
		want := &errsvcv1.LabbyError{}
		if err := openjson.Unmarshal(b, want); err != nil {
			t.Errorf("%s: the fast path read what the round trip refuses (%v)", js, err)
			continue
		}
		if !proto.Equal(got, want) {
			t.Errorf("%s: fast path %v, round trip %v", js, got, want)
		}
	}
}
