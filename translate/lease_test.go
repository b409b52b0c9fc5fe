package translate

import (
	"math/rand/v2"
	"testing"

	"google.golang.org/protobuf/proto"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/internal/golden"
)

// TestLeasedIsTranslate holds TranslateLeased to TranslateCacheable on
// every golden request that answers (the refusals are the same code path
// before any storage is filled), in a shuffled order, so that each leased
// translation reuses storage another source filled: the encoded answer,
// the cacheable flag and the error are the same, whatever ran before.
func TestLeasedIsTranslate(t *testing.T) {
	reqs := golden.Requests(t)
	// And refusals, one before the model is touched and one after the
	// source is partly read: an error comes without a lease.
	reqs = append(reqs, &errsvcv1.TranslateRequest{},
		&errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_ProviderResponse{
			ProviderResponse: &errsvcv1.ProviderResponse{Provider: "openai", Status: 200, Body: `{"ok":true}`}}})
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 3 {
		rng.Shuffle(len(reqs), func(i, j int) { reqs[i], reqs[j] = reqs[j], reqs[i] })
		for i, req := range reqs {
			want, wantCacheable, wantErr := TranslateCacheable(req)
			got, cacheable, lease, err := TranslateLeased(req)
			if (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
				t.Fatalf("round %d, request %d: error %v, want %v", round, i, err, wantErr)
			}
			if err != nil {
				if lease != (Lease{}) {
					t.Fatalf("round %d, request %d: an error came with a lease", round, i)
				}
				continue
			}
			wb, _ := proto.MarshalOptions{Deterministic: true}.Marshal(want)
			gb, _ := proto.MarshalOptions{Deterministic: true}.Marshal(got)
			if string(wb) != string(gb) || cacheable != wantCacheable {
				t.Fatalf("round %d, request %d (%v): the leased answer differs from the owned one", round, i, req.GetSource())
			}
			lease.Release()
		}
	}
}

// TestLeaseRelease shows what Release promises: the answer's storage is
// cleared (no reference to the request or the answer survives in the
// pool), a second Release of the same lease does nothing, and a stale
// lease cannot release the storage once another translation holds it.
func TestLeaseRelease(t *testing.T) {
	req := &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_LabbyError{
		LabbyError: &errsvcv1.LabbyError{Kind: "rate_limited", Message: "slow down"}}}
	resp, _, lease, err := TranslateLeased(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.GetLabbyError().GetMessage() != "slow down" {
		t.Fatalf("answer %v", resp)
	}
	m := lease.m
	lease.Release()
	if m.leased || m.message != "" || m.store.resp.LabbyError != nil || m.memo.entries[0].in != "" {
		t.Fatal("a released model still holds its translation")
	}
	if proto.Size(resp) != 0 {
		t.Fatal("a released answer still reads as an answer")
	}
	// The pool may hand the same storage to the next translation; a stale
	// lease must then leave it alone.
	var next Lease
	for range 100 {
		if _, _, next, err = TranslateLeased(req); err != nil {
			t.Fatal(err)
		}
		if next.m == m {
			break
		}
		next.Release()
	}
	if next.m != m {
		t.Skip("the pool did not hand the storage back (a collection emptied it)")
	}
	lease.Release()
	if !m.leased || m.store.resp.LabbyError == nil {
		t.Fatal("a stale lease released another translation's storage")
	}
	next.Release()
	next.Release()
	Lease{}.Release()

	// The maps a leased model keeps are emptied too.
	provider := benchRequest(t, benchSources["provider"])
	_, _, lease, err = TranslateLeased(provider)
	if err != nil {
		t.Fatal(err)
	}
	m = lease.m
	if len(m.reuse.maps[agentDetailFields]) == 0 || len(m.reuse.maps[providerDetailFields]) == 0 {
		t.Fatal("a provider answer's details did not use the leased model's maps")
	}
	lease.Release()
	for slot, f := range m.reuse.maps {
		if len(f) != 0 {
			t.Fatalf("map %d of a released model still holds %d members", slot, len(f))
		}
	}

	// So are an MCP result's parsed object and envelopes.
	_, _, lease, err = TranslateLeased(benchRequest(t, benchSources["mcp"]))
	if err != nil {
		t.Fatal(err)
	}
	m = lease.m
	r := m.reuse
	if !r.arenaUsed || !r.contextUsed || !r.codeModeUsed || r.arena.root.Fields == nil || r.codeMode.envelope.Kind == "" {
		t.Fatal("an MCP result did not use the leased model's arena and envelopes")
	}
	lease.Release()
	if r.arenaUsed || r.contextUsed || r.codeModeUsed || r.arena.root.Fields != nil || r.arena.nValues != 0 ||
		r.context.Tool != "" || r.codeMode.envelope.Kind != "" || r.codeMode.recovery.Action != "" {
		t.Fatal("a released model still holds an MCP result's parts")
	}
}
