package floors

import (
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// TestPoolsAreTheBodies holds the pools, whose requests share their
// source messages, to protojson's reading of the bodies they stand for,
// and to the same bytes on the wire.
func TestPoolsAreTheBodies(t *testing.T) {
	cold, err := ColdRequests()
	if err != nil {
		t.Fatal(err)
	}
	storm, err := StormRequests()
	if err != nil {
		t.Fatal(err)
	}
	mins := WithTargets(cold, "classification", "http_status")
	if len(cold) != ColdPool || len(storm) != ColdPool || len(mins) != ColdPool {
		t.Fatalf("pool sizes %d, %d, %d, want %d", len(cold), len(storm), len(mins), ColdPool)
	}
	check := func(name string, got *errsvcv1.TranslateRequest, body string, targets ...string) {
		t.Helper()
		want := &errsvcv1.TranslateRequest{}
		if err := protojson.Unmarshal([]byte(body), want); err != nil {
			t.Fatal(err)
		}
		want.Targets = targets
		if !proto.Equal(got, want) {
			t.Fatalf("%s: got %v, want %v", name, got, want)
		}
		gb, _ := proto.MarshalOptions{Deterministic: true}.Marshal(got)
		wb, _ := proto.MarshalOptions{Deterministic: true}.Marshal(want)
		if string(gb) != string(wb) {
			t.Fatalf("%s: wire bytes differ", name)
		}
	}
	for _, n := range []int{0, 1, 2, 3, 4, 9, 10, 19, 1234, ColdPool - 1} {
		check("cold", cold[n], ColdBody(n))
		check("storm", storm[n], StormBody(n))
		check("targets", mins[n], ColdBody(n), "classification", "http_status")
	}
	if cold[0].GetContext().GetService() == cold[4].GetContext().GetService() {
		t.Fatal("cold requests are not distinct")
	}
}
