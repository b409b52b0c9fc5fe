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
	mins := cold.WithTargets("classification", "http_status")
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
		check("cold", cold.Request(n), ColdBody(n))
		check("storm", storm.Request(n), StormBody(n))
		check("targets", mins.Request(n), ColdBody(n), "classification", "http_status")
		check("cold, wrapped", cold.Request(n+ColdPool), ColdBody(n))
	}
	// Every cold request is distinct, and the pool as long as it says.
	seen := map[string]bool{}
	for n := range ColdPool {
		b, _ := proto.MarshalOptions{Deterministic: true}.Marshal(cold.Request(n))
		if seen[string(b)] {
			t.Fatalf("cold request %d repeats an earlier one", n)
		}
		seen[string(b)] = true
	}
}
