package main

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

func TestIdleSeconds(t *testing.T) {
	for stat, want := range map[string]float64{
		"cpu  100 0 50 1200 34 0 7 0 0 0\ncpu0 50 0 25 600 17 0 3 0 0 0\n": 12.34,
		"cpu0 50 0 25 600 17 0 3 0 0 0\n":                                  -1, // not the total line
		"cpu  100 0 50\n":                                                  -1,
		"":                                                                 -1,
	} {
		if got := idleSeconds(stat); got != want {
			t.Errorf("idleSeconds(%q) = %v, want %v", stat, got, want)
		}
	}
}

// TestWriteCosts holds the cost table to numbers worked out by hand: the
// machine's time is cores ÷ items/s, the rest is what server, client and
// idle leave of it, a category is its share of its process's CPU, and the
// last column is the first less the second, "–" where either is missing.
func TestWriteCosts(t *testing.T) {
	cores := float64(runtime.NumCPU())
	a := &Result{Tool: "grpc-go harness", ItemsPerSec: cores * 1e6 / 60, ServerCPUus: 30, ClientCPUus: 20, IdleCores: 6 * cores / 60}
	b := &Result{Tool: "grpc-go harness", ItemsPerSec: cores * 1e6 / 50, ServerCPUus: 24, ClientCPUus: 19, IdleCores: 5 * cores / 50}
	cols := []costColumn{
		{name: "a", r: a, server: []share{{"core", 10}, {"transport", 50}}, client: []share{{"decode", 25}}},
		{name: "b*", r: b, server: []share{{"core", 0}, {"transport", 50}}},
	}
	var w strings.Builder
	writeCosts(func(f string, args ...any) { fmt.Fprintf(&w, f, args...) }, "per call", cols, "a − b*")
	got := w.String()
	for _, row := range []string{
		"| machine time, µs per call | a | b* | a − b* |",
		"| machine (cores ÷ translations/s) | 60.0 | 50.0 | +10.0 |",
		"| server CPU | 30.0 | 24.0 | +6.0 |",
		"| client CPU (grpc-go harness) | 20.0 | 19.0 | +1.0 |",
		"| idle | 6.0 | 5.0 | +1.0 |",
		"| the rest (kernel threads, other processes) | 4.0 | 2.0 | +2.0 |",
		"| core | 3.0 | 0.0 | +3.0 |",
		"| transport | 15.0 | 12.0 | +3.0 |",
		"| decode | 5.0 | – | – |",
	} {
		if !strings.Contains(got, row+"\n") {
			t.Errorf("missing row %q in:\n%s", row, got)
		}
	}
	if top := largestCosts(cols[0], 2); strings.Join(top, "; ") != "server: transport 15.0 µs; client: decode 5.0 µs" {
		t.Errorf("largestCosts = %q", top)
	}
}

// TestWorkPerCall counts the translate core and the JSON codec of the
// server's profile, as shares of its CPU per call, and nothing else.
func TestWorkPerCall(t *testing.T) {
	c := costColumn{name: "c", r: &Result{ServerCPUus: 120}, server: []share{
		{catCore, 10}, {catCodec, 15}, {"transport (grpc-go, x/net/http2, net/http)", 50},
		{"errsvc server layers (interceptors, call record, limits, logging)", 5},
	}}
	if got, ok := workPerCall(c); !ok || got != 30 {
		t.Errorf("workPerCall = %v, %v, want 30 µs (25 %% of 120)", got, ok)
	}
	if _, ok := workPerCall(costColumn{r: &Result{ServerCPUus: 120}}); ok {
		t.Error("workPerCall without a profile says it knows")
	}
}
