package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/pprof/profile"
)

// TestProfileShares splits a profile whose stacks are those of errsvc's
// server (leaf first): each sample goes to the first category that claims
// one of its frames, a leaf category only its innermost frame outside the
// runtime and the standard library's helpers.
func TestProfileShares(t *testing.T) {
	stacks := []struct {
		frames []string
		want   string
	}{
		{[]string{"internal/runtime/syscall/linux.Syscall6", "syscall.write", "net.(*netFD).Write", "bufio.(*Writer).Flush",
			"net/http.(*response).finishRequest", "net/http.(*conn).serve"}, "syscalls (reads, writes, the poller)"},
		{[]string{"runtime.mapassign_faststr", "google.golang.org/grpc/metadata.Pairs",
			"github.com/grpc-ecosystem/grpc-gateway/v2/runtime.AnnotateIncomingContext",
			"github.com/errsvc/errsvc/gen/errsvc/v1.RegisterTranslationServiceHandlerServer.func1",
			"github.com/grpc-ecosystem/grpc-gateway/v2/runtime.(*ServeMux).ServeHTTP",
			"github.com/errsvc/errsvc/server.(*restHandler).ServeHTTP", "net/http.(*conn).serve"}, "grpc-gateway"},
		{[]string{"runtime.memmove", "context.WithValue", "github.com/errsvc/errsvc/server.(*recvGuard).unary",
			"google.golang.org/grpc.(*Server).processUnaryRPC"}, "errsvc server layers"},
		{[]string{"net/http.(*conn).readRequest", "net/http.(*conn).serve"}, "transport"},
		{[]string{"github.com/errsvc/errsvc/translate.decode", "github.com/errsvc/errsvc/server.(*Service).Translate",
			"google.golang.org/grpc.(*Server).processUnaryRPC"}, "translate core"},
	}
	p := &profile.Profile{SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}}}
	fns := map[string]*profile.Function{}
	for _, st := range stacks {
		var locs []*profile.Location
		for _, name := range st.frames {
			fn, ok := fns[name]
			if !ok {
				fn = &profile.Function{ID: uint64(len(fns) + 1), Name: name}
				fns[name] = fn
				p.Function = append(p.Function, fn)
			}
			loc := &profile.Location{ID: uint64(len(p.Location) + 1), Line: []profile.Line{{Function: fn}}}
			p.Location = append(p.Location, loc)
			locs = append(locs, loc)
		}
		p.Sample = append(p.Sample, &profile.Sample{Location: locs, Value: []int64{1, 10_000_000}})
	}
	path := filepath.Join(t.TempDir(), "cpu.pprof")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Write(f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	shares, err := profileShares(path, serverCategories)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, sh := range shares {
		for _, st := range stacks {
			if len(sh.name) >= len(st.want) && sh.name[:len(st.want)] == st.want {
				got[st.want] += sh.pct
			}
		}
	}
	for _, st := range stacks {
		if got[st.want] != 20 {
			t.Errorf("%s: %.0f %%, want 20 %% (one sample of five: %s)", st.want, got[st.want], st.frames[0])
		}
	}
}
