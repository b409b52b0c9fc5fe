package server

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/translate"
	"google.golang.org/protobuf/encoding/protojson"
)

// gpuPolicy makes gpu_out_of_memory known, transient (503) under v1 and
// permanent (409) under v2: an answer says which policy made it in its
// class, its status and its note, so one that mixes two is seen.
func gpuPolicy(t testing.TB, version string) *translate.Policy {
	t.Helper()
	class, status, code := "transient", int32(503), "EXECUTION_FAILED"
	if version == "v2" {
		class, status, code = "permanent", 409, "INVOCATION_CONFLICT"
	}
	p, err := translate.NewPolicy(translate.PolicySpec{Version: version, Kinds: []translate.KindSpec{
		{Kind: "gpu_out_of_memory", Meaning: "The model server ran out of GPU memory.", Class: class, HTTPStatus: status, AgentCode: code},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// whichPolicy is the policy an answer was made under, or an error when
// its parts disagree.
func whichPolicy(resp *errsvcv1.TranslateResponse) (string, error) {
	v := ""
	for _, n := range resp.GetNotes() {
		if n.GetCode() == "policy_rule" {
			switch {
			case strings.Contains(n.GetMessage(), "(policy v1)"):
				v = "v1"
			case strings.Contains(n.GetMessage(), "(policy v2)"):
				v = "v2"
			}
		}
	}
	want := map[string]struct {
		class  string
		status int32
	}{"v1": {"transient", 503}, "v2": {"permanent", 409}}[v]
	if v == "" || resp.GetClassification().GetClass() != want.class || resp.GetHttpStatus() != want.status {
		return "", errors.New("mixed answer: " + protojson.Format(resp))
	}
	return v, nil
}

const gpuRequest = `{"labby_error":{"kind":"gpu_out_of_memory","message":"CUDA out of memory"}}`

// A swap under load loses no call and no answer mixes two policies, on
// gRPC and REST with their answer caches on; once Swap returns, every
// answer is the new policy's.
func TestPolicySwapUnderLoadMixesNoPolicies(t *testing.T) {
	holder := NewPolicyHolder(gpuPolicy(t, "v1"))
	r := start(t, Options{Policy: holder, Metrics: NewMetrics()})
	policies := map[string]*translate.Policy{"v1": gpuPolicy(t, "v1"), "v2": gpuPolicy(t, "v2")}
	req := &errsvcv1.TranslateRequest{}
	if err := protojson.Unmarshal([]byte(gpuRequest), req); err != nil {
		t.Fatal(err)
	}
	var calls, failed, mixed atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				var resp *errsvcv1.TranslateResponse
				if i%2 == 0 {
					var err error
					resp, err = r.client.Translate(context.Background(), req)
					if err != nil {
						failed.Add(1)
						continue
					}
				} else {
					code, body := r.post(t, "/v1/translate", gpuRequest)
					resp = &errsvcv1.TranslateResponse{}
					if code != 200 || protojson.Unmarshal(body, resp) != nil {
						failed.Add(1)
						continue
					}
				}
				calls.Add(1)
				if _, err := whichPolicy(resp); err != nil {
					mixed.Add(1)
					t.Log(err)
				}
			}
		}()
	}
	for i := range 40 {
		time.Sleep(25 * time.Millisecond)
		v := []string{"v2", "v1"}[i%2]
		holder.Swap(policies[v])
		// Once Swap returns, the answer is the new policy's on both
		// transports, from the cache or not.
		resp, err := r.client.Translate(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := whichPolicy(resp); err != nil || got != v {
			t.Fatalf("gRPC after swap %d to %s: answered %s (%v)", i, v, got, err)
		}
		_, body := r.post(t, "/v1/translate", gpuRequest)
		rest := &errsvcv1.TranslateResponse{}
		decodeJSON(t, body, rest)
		if got, err := whichPolicy(rest); err != nil || got != v {
			t.Fatalf("REST after swap %d to %s: answered %s (%v)", i, v, got, err)
		}
	}
	close(stop)
	wg.Wait()
	t.Logf("%d calls during 40 swaps: %d failed, %d mixed", calls.Load(), failed.Load(), mixed.Load())
	if failed.Load() != 0 || mixed.Load() != 0 || calls.Load() < 100 {
		t.Errorf("%d calls: %d failed, %d mixed", calls.Load(), failed.Load(), mixed.Load())
	}
	// The series say which policy serves and what its rules matched.
	_, metrics := r.get(t, "/metrics")
	for _, want := range []string{
		`errsvc_policy_info{hash="` + policies["v1"].Hash() + `",version="v1"} 1`,
		`errsvc_policy_rule_matches_total{rule="kind.gpu_out_of_memory"}`,
		`errsvc_policy_reloads_total 40`,
	} {
		if !strings.Contains(string(metrics), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	// A refused reload keeps the policy before it, and readiness says why.
	holder.Refused(errors.New("policy.yaml:3:5: /kinds/0/class: \"transiant\" is not an Error Class Contract class"))
	code, body := r.get(t, "/readyz")
	if code != 200 || !strings.Contains(string(body), "transiant") {
		t.Errorf("/readyz after a refused reload: %d %s", code, body)
	}
	resp, err := r.client.Translate(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := whichPolicy(resp); got != "v1" {
		t.Errorf("after a refused reload the answer is %s's, want v1's", got)
	}
	_, metrics = r.get(t, "/metrics")
	if !strings.Contains(string(metrics), "errsvc_policy_reload_errors_total 1") {
		t.Error("the refused reload is not counted")
	}
}

// ListVocabularies serves the operator's terms beside the built-in ones.
func TestListVocabulariesServesThePolicysTerms(t *testing.T) {
	r := start(t, Options{Policy: NewPolicyHolder(gpuPolicy(t, "v1"))})
	resp, err := r.client.ListVocabularies(context.Background(), &errsvcv1.ListVocabulariesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, v := range resp.GetVocabularies() {
		for _, term := range v.GetTerms() {
			if term.GetTerm() == "gpu_out_of_memory" {
				found = v.GetName() == "LabbyKind" && term.GetDefinedBy() == "policy" && term.GetKind().GetHttpStatus() == 503
			}
		}
	}
	if !found {
		t.Error("gpu_out_of_memory is not served as a LabbyKind defined by the policy")
	}
	plain := start(t, Options{})
	resp, err = plain.client.ListVocabularies(context.Background(), &errsvcv1.ListVocabulariesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(protojson.Format(resp), "gpu_out_of_memory") {
		t.Error("a server without a policy serves the policy's term")
	}
}

// A batch translates every item under one policy, swaps or not.
func TestPolicyBatchReadsOnePolicy(t *testing.T) {
	holder := NewPolicyHolder(gpuPolicy(t, "v1"))
	r := start(t, Options{Policy: holder})
	policies := []*translate.Policy{gpuPolicy(t, "v1"), gpuPolicy(t, "v2")}
	item := &errsvcv1.TranslateRequest{}
	if err := protojson.Unmarshal([]byte(gpuRequest), item); err != nil {
		t.Fatal(err)
	}
	batch := &errsvcv1.TranslateBatchRequest{}
	for range 500 {
		batch.Requests = append(batch.Requests, item)
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
				holder.Swap(policies[i%2])
			}
		}
	}()
	seen := map[string]bool{}
	for range 20 {
		resp, err := r.client.TranslateBatch(context.Background(), batch)
		if err != nil {
			t.Fatal(err)
		}
		first, err := whichPolicy(resp.GetResponses()[0])
		if err != nil {
			t.Fatal(err)
		}
		seen[first] = true
		for i, item := range resp.GetResponses() {
			if v, err := whichPolicy(item); err != nil || v != first {
				t.Fatalf("item %d answered under %s, item 0 under %s (%v)", i, v, first, err)
			}
		}
	}
	close(stop)
	<-done
	t.Logf("batches answered under %v", seen)
}
