package floors

import (
	"net/http/httptest"
	"slices"
	"strings"
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

// With the provider mix (ProviderMixEnv), each source, the provider
// answer included, gets its own canned answer, over gRPC and REST.
func TestCannedAnswersEachSourceOfTheProviderMix(t *testing.T) {
	sources, keys := Sources, sourceKeys
	defer func() { Sources, sourceKeys = sources, keys }()
	Sources, sourceKeys = slices.Clone(sources), slices.Clone(keys)
	if len(Sources) == 4 {
		addProviderSource()
	}
	c, err := NewCanned(protojson.MarshalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	reqs, err := Requests()
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range reqs {
		if got := c.answer(r); got != c.answers[i] {
			t.Errorf("source %d: gRPC canned answer %v, want its own %v", i, got, c.answers[i])
		}
		w := httptest.NewRecorder()
		c.ServeREST(w, httptest.NewRequest("POST", CannedPath, strings.NewReader(Sources[i])), nil)
		if w.Body.String() != string(c.json[i]) {
			t.Errorf("source %d: REST canned answer %s, want its own %s", i, w.Body.String(), c.json[i])
		}
	}
	if len(reqs) != 5 || reqs[4].GetProviderResponse() == nil {
		t.Fatalf("the provider mix has %d sources, the last %T", len(reqs), reqs[len(reqs)-1].GetSource())
	}
}
