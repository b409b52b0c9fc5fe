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

// TestReleaseClearsReused: once a lease is released, every part a leased
// model keeps across leases is empty again (only the room of its maps and
// buffers stays), whatever the translation handed out, so the next
// translation starts from nothing another left behind.
func TestReleaseClearsReused(t *testing.T) {
	for i, req := range golden.Requests(t) {
		_, _, lease, err := TranslateLeased(req)
		if err != nil {
			continue
		}
		r := lease.m.reuse
		lease.Release()
		if r.arenaUsed || r.contextUsed || r.codeModeUsed || r.agentUsed || r.blocksUsed != 0 {
			t.Fatalf("request %d: a part is still marked handed out after release", i)
		}
		for name, msg := range map[string]proto.Message{
			"agent": &r.agent, "context": &r.context, "code mode": &r.codeMode.envelope, "code mode recovery": &r.codeMode.recovery,
			"block 0": &r.blocks[0], "block 1": &r.blocks[1], "arena root": &r.arena.root,
		} {
			if !proto.Equal(msg, msg.ProtoReflect().Type().New().Interface()) {
				t.Fatalf("request %d: the reused %s is not empty after release: %v", i, name, msg)
			}
		}
		if len(r.arena.rootFields) != 0 {
			t.Fatalf("request %d: the arena's root map keeps %d fields after release", i, len(r.arena.rootFields))
		}
		for slot, f := range r.maps {
			if len(f) != 0 {
				t.Fatalf("request %d: reused map %d keeps %d fields after release", i, slot, len(f))
			}
		}
	}
}

// Every source translates into leased storage with at most its bound of
// allocations once the storage has room (the server's steady state), and
// the four sources of bench/run.sh's load mix with none: anything
// allocated per call is garbage the collector pays for on every call.
// The others' bounds are what they allocate now (the provider classifier's
// wait pointer and, for a limit, its limit facet and the lower-cased
// message it reads kinds and scopes from; the gRPC and JSON-RPC sources'
// details).
func TestLeasedAllocations(t *testing.T) {
	bounds := map[string]float64{"labby": 0, "agent": 0, "classified": 0, "mcp": 0,
		"provider": 3, "http_error": 2, "grpc_status": 3, "jsonrpc": 6}
	for _, name := range benchSourceNames {
		req := benchRequest(t, benchSources[name])
		n := testing.AllocsPerRun(200, func() {
			_, _, lease, err := TranslateLeased(req)
			if err != nil {
				t.Fatal(err)
			}
			lease.Release()
		})
		if raceEnabled {
			t.Logf("%s: %v allocations (not checked under the race detector)", name, n)
			continue
		}
		if max, ok := bounds[name]; !ok || n > max {
			t.Errorf("%s: %v allocations per leased translation, want at most %v", name, n, bounds[name])
		}
	}
}

// A leased model keeps the last Agent Surface message with its wait: a
// second message in the same translation (another wait) is a string of its
// own, the first, already in the answer, reads as it did, and the same
// wait again gives the kept message.
func TestAgentMessageRoomOncePerTranslation(t *testing.T) {
	m := leaseModel()
	defer m.release(m.gen)
	m.agentCode, m.agentRetry = "RATE_LIMITED", "after-delay"
	m.setWait(20, 20000)
	first := renderAgentMessageFor(m)
	want := string([]byte(first))
	m.setWait(7, 7000)
	second := renderAgentMessageFor(m)
	if first != want || second == first {
		t.Fatalf("first message %q after a second (%q), want %q", first, second, want)
	}
	if again := renderAgentMessageFor(m); again != second {
		t.Fatalf("the same wait again gave %q, want %q", again, second)
	}
}
