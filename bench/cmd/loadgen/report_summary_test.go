package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// sampleRun is a run with every scenario the report reads: a–g at 16 and
// 64, a stream, a batch and the light load at 1, 2 and 4 callers (the
// server's CPU per call falls as the callers rise).
func sampleRun() Results {
	res := Results{Started: time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC), Warmup: 2, Duration: 10}
	add := func(id, name, tool string, c int, calls, cpu float64) {
		res.Scenarios = append(res.Scenarios, Result{ID: id, Name: name, Tool: tool, Concurrency: c, Conns: min(c, 4),
			ItemsPer: 1, CallsPerSec: calls, ItemsPerSec: calls, P50us: 100, P99us: 900, ServerCPUus: cpu, ClientCPUus: cpu, IdleCores: 0.2})
	}
	for _, c := range []int{16, 64} {
		add("a", "gRPC Translate, cold", "grpc-go harness", c, 26000, 34)
		add("b", "gRPC EmptyCall (floor)", "grpc-go harness", c, 39000, 21)
		add("b*", "gRPC canned answer (floor)", "grpc-go harness", c, 30000, 27)
		add("f", "gRPC Translate, storm", "grpc-go harness", c, 30000, 27)
		add("c", "REST POST /v1/translate, cold", "wrk", c, 41000, 31)
		add("d", "REST POST /v1/bench/empty (floor)", "wrk", c, 60000, 18)
		add("d*", "REST canned answer (floor)", "wrk", c, 60000, 18)
		add("g", "REST POST /v1/translate, storm", "wrk", c, 58000, 19)
	}
	for _, c := range []int{1, 2, 4} {
		f := float64(c)
		add("la", "gRPC Translate, cold", "grpc-go harness", c, 3000*f, 160/f)
		add("lb", "gRPC EmptyCall (floor)", "grpc-go harness", c, 4000*f, 120/f)
		add("lc", "REST POST /v1/translate, cold", "wrk", c, 5000*f, 150/f)
		add("ld", "REST POST /v1/bench/empty (floor)", "wrk", c, 7000*f, 100/f)
	}
	// A lone caller's waits, each its own, so the first screen's sentence
	// cannot swap two routes unseen.
	for i := range res.Scenarios {
		if r := &res.Scenarios[i]; r.Concurrency == 1 {
			r.P50us = map[string]float64{"la": 100, "lb": 90, "lc": 60, "ld": 50}[r.ID]
		}
	}
	add("e", "gRPC TranslateStream", "grpc-go harness", 16, 110000, 9)
	res.Scenarios[len(res.Scenarios)-1].Window = 32
	return res
}

// sampleCore is go test -bench output for every source and the
// sanitiser's sizes.
func sampleCore(t *testing.T) string {
	var b strings.Builder
	for _, name := range []string{"labby", "agent", "classified", "mcp", "provider", "grpc_status", "jsonrpc", "http_error"} {
		fmt.Fprintf(&b, "BenchmarkTranslate/%s-2 1000 900 ns/op 0 B/op 0 allocs/op\n", name)
	}
	for _, size := range []string{"1KiB", "16KiB", "64KiB", "1MiB"} {
		fmt.Fprintf(&b, "BenchmarkText%s-2 100 5000 ns/op 210.0 MB/s 10 B/op 1 allocs/op\n", size)
	}
	path := filepath.Join(t.TempDir(), "core.txt")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// The first screen is one screen: the machine, every goal, the peer and
// light-load lines, the core table and the link to the appendix; the
// appendix has the light-load table, each route against its floor.
func TestSummaryOneScreen(t *testing.T) {
	dir := t.TempDir()
	machine := filepath.Join(dir, "machine.txt")
	if err := os.WriteFile(machine, []byte("nproc:      2\nCPU:        Test CPU\nmemory:     23.5 GiB\nkernel:     Linux 6.18\nGo:         go version go1.26.8 linux/amd64\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	core := sampleCore(t)
	rf := reportFiles{core: core, coreGOGC100: core, machine: machine, out: filepath.Join(dir, "BENCHMARKS.md")}
	first, detail := render(rf, sampleRun())
	if n := strings.Count(first, "\n"); n > summaryMaxLines {
		t.Errorf("first screen has %d lines, want at most %d:\n%s", n, summaryMaxLines, first)
	}
	for _, want := range []string{
		"**Machine:** 2 cores (Test CPU), 23.5 GiB, Linux 6.18, go1.26.8 linux/amd64",
		"| REST Translate, cold / canned answer (c/d*) ≥ 0.80 at 16 and 64 | 0.68 (c=16), 0.68 (c=64) | **not met** |",
		"| TranslateStream ≥ 5× unary translations/s | 4.23× | **not met** |",
		"| sanitiser ≥ 200 MB/s, flat from 1 KiB to 1 MiB | 210–210 MB/s | **met** |",
		"**Peer figure:** not run",
		"**Light load**, server CPU per call at 1/2/4 callers: gRPC Translate 160/80/40 µs (EmptyCall 120/60/30 µs), 34 µs at 16; REST Translate 150/75/38 µs (the empty route 100/50/25 µs), 31 µs at 16. At 1 caller, p50: gRPC Translate 100 µs, REST Translate 60 µs (EmptyCall 90 µs, the empty route 50 µs).",
		"| labby | 900 ns | 0 | 900 ns | ≤ 1 µs, ≤ 12 allocs | **met** |",
		"[BENCHMARKS-DETAIL.md](BENCHMARKS-DETAIL.md)",
	} {
		if !strings.Contains(first, want) {
			t.Errorf("first screen lacks %q:\n%s", want, first)
		}
	}
	for _, want := range []string{
		"# errsvc benchmarks: detail",
		"## Light load",
		"| 1 | gRPC Translate, cold | 3000 | 100 µs | 900 µs | 160.0 µs | +40.0 µs | 4.71× | 160.0 µs | 0.20 |",
		"| 4 | REST POST /v1/bench/empty (floor) | 28000 | 100 µs | 900 µs | 25.0 µs | – | 1.39× | 25.0 µs | 0.20 |",
		"## Goals",
	} {
		if !strings.Contains(detail, want) {
			t.Errorf("appendix lacks %q", want)
		}
	}
	// The light-load scenarios are in their own table, not the load table.
	load := detail[strings.Index(detail, "## Load"):strings.Index(detail, "## Light load")]
	if strings.Contains(load, "| la |") || strings.Contains(load, "| lc |") {
		t.Errorf("the load table lists the light-load scenarios:\n%s", load)
	}
	if light := lightSummary(Results{}); !strings.Contains(light, "not measured") {
		t.Errorf("light-load line without the scenarios: %q", light)
	}
}

// The committed report is one screen and links to its appendix.
func TestCommittedReportOneScreen(t *testing.T) {
	md, err := os.ReadFile("../../../docs/BENCHMARKS.md")
	if err != nil {
		t.Skip("no committed report:", err)
	}
	if n := strings.Count(string(md), "\n"); n > summaryMaxLines {
		t.Errorf("docs/BENCHMARKS.md has %d lines, want at most %d", n, summaryMaxLines)
	}
	if !strings.Contains(string(md), "(BENCHMARKS-DETAIL.md)") {
		t.Error("docs/BENCHMARKS.md does not link to its appendix")
	}
	if _, err := os.Stat("../../../docs/BENCHMARKS-DETAIL.md"); err != nil {
		t.Error(err)
	}
}

// The best stream ran at fewer streams than the profiled run: the split
// of a streamed translation is the profiled run's, and the report says so,
// rather than a column of dashes (the bound shown with its profile).
func TestStreamSplitUsesTheProfiledRun(t *testing.T) {
	res := sampleRun()
	res.Scenarios = append(res.Scenarios, Result{ID: "e", Name: "gRPC TranslateStream", Tool: "grpc-go harness",
		Concurrency: 4, Conns: 4, ItemsPer: 1, CallsPerSec: 120000, ItemsPerSec: 120000, ServerCPUus: 8, ClientCPUus: 8, Window: 32})
	core := sampleCore(t)
	rf := reportFiles{core: core, coreGOGC100: core, out: filepath.Join(t.TempDir(), "BENCHMARKS.md")}
	_, detail := render(rf, res)
	if want := "The profiles were taken at 16 streams (110000 translations/s, server 9.0 µs per translation): the e column is that run's."; !strings.Contains(detail, want) {
		i := strings.Index(detail, "### Streaming against unary")
		t.Errorf("appendix lacks %q:\n%s", want, detail[max(0, i):min(len(detail), max(0, i)+1200)])
	}
}
