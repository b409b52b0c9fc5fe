package main

import (
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
)

// TestParseCore reads go test -bench lines as the report does: the median
// of each benchmark's runs, the standard units and the sanitiser's own
// texts/op metric, whatever the order of the columns.
func TestParseCore(t *testing.T) {
	out := parseCore(`goos: linux
BenchmarkText64KiBAs1KiB-2   	 1640	 780000 ns/op	  84.00 MB/s	 69.00 texts/op	 67894 B/op	 69 allocs/op
BenchmarkText64KiBAs1KiB-2   	 1636	 740000 ns/op	  88.00 MB/s	 69.00 texts/op	 67895 B/op	 69 allocs/op
BenchmarkText64KiBAs1KiB-2   	 1671	 720000 ns/op	  91.00 MB/s	 69.00 texts/op	 67896 B/op	 69 allocs/op
BenchmarkTranslate/labby-2   	 1618232	 760.3 ns/op	 0 B/op	 0 allocs/op
PASS
`)
	p := out["BenchmarkText64KiBAs1KiB"]
	if p.ns != 740000 || p.mbs != 88 || p.texts != 69 || p.bytes != 67895 || p.allocs != 69 {
		t.Errorf("pieces: %+v, want the medians 740000 ns, 88 MB/s, 69 texts, 67895 B, 69 allocs", p)
	}
	if l := out["BenchmarkTranslate/labby"]; l.ns != 760.3 || l.texts != 0 {
		t.Errorf("labby: %+v, want 760.3 ns and no texts", l)
	}
	if len(out) != 2 {
		t.Errorf("%d benchmarks, want 2: %v", len(out), out)
	}
}

// TestMachineSpeed reads the reference workload's time back from the line
// the report writes, and compares the run with the report it replaces.
func TestMachineSpeed(t *testing.T) {
	md := "## Machine\n\n" + fmt.Sprintf(machineLine, 18000.0) + " The report this run replaced measured 9000 ns.\n"
	if got := previousMachine(md); got != 18000 {
		t.Fatalf("previousMachine = %v, want 18000 (the first figure of the line)", got)
	}
	if got := previousMachine("## Machine\n\nnproc: 2\n"); got != 0 {
		t.Errorf("previousMachine of a report without the line = %v, want 0", got)
	}
	core := map[string]coreBench{"BenchmarkMachine": {ns: 30000}}
	if got := machineSpeed(reportFiles{prev: previousRun{machine: 18000}}, core); got != 0.6 {
		t.Errorf("machineSpeed = %v, want 0.6 (18000 ns then, 30000 now)", got)
	}
	if got := machineSpeed(reportFiles{}, core); got != 0 {
		t.Errorf("machineSpeed without a previous run = %v, want 0", got)
	}
	if got := machineSpeed(reportFiles{prev: previousRun{machine: 18000}}, nil); got != 0 {
		t.Errorf("machineSpeed without this run's figure = %v, want 0", got)
	}
}

// prevReport is a report's rows as render writes them: the Machine block,
// the per-source table, the sanitiser's table and the goals.
const prevReport = "## Machine\n\n```\nnproc:      2\nGo:         go version go1.26.8 linux/amd64\n```\n\n" +
	"| source | GOGC=400 | allocs | GOGC=100 | allocs | B/op | owned, GOGC=400 | goal | verdict |\n|---|---:|---:|---:|---:|---:|---:|---|---|\n" +
	"| labby | 400 ns | 0 | 452 ns | 0 | 0 | 986 ns | ≤ 1 µs, ≤ 12 allocs | **met** |\n" +
	"| provider | 2500 ns | 1 | 2242 ns | 1 | 4 | 3193 ns | ≤ 3 µs, ≤ 12 allocs | **met** |\n\n" +
	"| input | MB/s | allocs |\n|---|---:|---:|\n| 1KiB | 196.3 | 1 |\n| 64KiB | 216.7 | 1 |\n" +
	"| a short clean line (119 B) | 243.0 | 0 (494 ns) |\n\n" +
	"| goal | result | verdict |\n|---|---|---|\n" +
	"| every source ≤ 3 µs and ≤ 12 allocs, Labby ≤ 1 µs (GOGC 400 and 100) | all within | **met** |\n" +
	"| sanitiser ≥ 200 MB/s, flat from 1 KiB to 1 MiB | 196–217 MB/s | **not met**; measured cause: x |\n"

// TestSameCodeSpeed reads a report's rows back and compares errsvc's own
// benchmarks with them, only when both runs ran the same code and Go.
func TestSameCodeSpeed(t *testing.T) {
	prev := readPreviousRun(prevReport)
	if prev.goLine != "go version go1.26.8 linux/amd64" || !prev.coreMet {
		t.Fatalf("Go %q, core met %v: want the Machine block's Go and the goal's **met**", prev.goLine, prev.coreMet)
	}
	if len(prev.sourceNs) != 2 || prev.sourceNs["labby"] != 400 || prev.sourceNs["provider"] != 2500 {
		t.Errorf("sources %v, want labby 400 and provider 2500 (the GOGC=400 column)", prev.sourceNs)
	}
	if len(prev.sanMBs) != 2 || prev.sanMBs["1KiB"] != 196.3 || prev.sanMBs["64KiB"] != 216.7 {
		t.Errorf("sanitiser %v, want 1KiB 196.3 and 64KiB 216.7, not the clean line", prev.sanMBs)
	}
	core := map[string]coreBench{
		"BenchmarkTranslate/labby":    {ns: 1600},
		"BenchmarkTranslate/provider": {ns: 2500},
		"BenchmarkText1KiB":           {mbs: 98.15},
		"BenchmarkText64KiB":          {mbs: 108.35},
	}
	rf := reportFiles{sameCodeAs: "769861e", prev: prev}
	goLine := "go version go1.26.8 linux/amd64"
	cs, ss := sameCodeSpeed(rf, core, goLine)
	// labby ran at 1/4, provider at 1: the geometric mean is 1/2.
	if math.Abs(cs-0.5) > 1e-9 || math.Abs(ss-0.5) > 1e-9 {
		t.Errorf("speeds %v, %v, want 0.5 and 0.5", cs, ss)
	}
	coreCause, sanCause := slowerCauses(rf, core, goLine)
	if !strings.Contains(coreCause, "0.50") || !strings.Contains(coreCause, "769861e") || !strings.Contains(coreCause, "which met this goal") {
		t.Errorf("core cause %q: want the speed, the commit and that the previous run met it", coreCause)
	}
	if !strings.Contains(sanCause, "0.50") || !strings.Contains(sanCause, "196–217 MB/s") {
		t.Errorf("sanitiser cause %q: want the speed and the previous run's range", sanCause)
	}
	for _, c := range []struct {
		name   string
		rf     reportFiles
		goLine string
	}{
		{"code changed", reportFiles{prev: prev}, goLine},
		{"another Go", rf, "go version go1.27.0 linux/amd64"},
		{"no previous report", reportFiles{sameCodeAs: "769861e"}, goLine},
	} {
		if cs, ss := sameCodeSpeed(c.rf, core, c.goLine); cs != 0 || ss != 0 {
			t.Errorf("%s: speeds %v, %v, want none", c.name, cs, ss)
		}
	}
	// Same code on a machine as fast: no cause, and the reference workload,
	// which two processors can rank differently, does not overrule it.
	fast := map[string]coreBench{"BenchmarkTranslate/labby": {ns: 400}, "BenchmarkText1KiB": {mbs: 196.3}, "BenchmarkMachine": {ns: 30000}}
	rf.prev.machine = 18000
	if c, s := slowerCauses(rf, fast, goLine); c != "" || s != "" {
		t.Errorf("causes %q, %q on a machine as fast on errsvc's benchmarks, want none", c, s)
	}
}

// TestReadsCommittedReport reads the committed docs/BENCHMARKS.md and its
// appendix, which render wrote, as the next run will: the rows readPreviousRun looks for
// must be the rows render writes.
func TestReadsCommittedReport(t *testing.T) {
	md, err := os.ReadFile("../../../docs/BENCHMARKS.md")
	if err != nil {
		t.Skip("no committed report:", err)
	}
	detail, err := os.ReadFile(detailPath("../../../docs/BENCHMARKS.md"))
	if err != nil {
		t.Fatal("the report has no appendix:", err)
	}
	prev := readPreviousRun(string(md) + string(detail))
	if prev.goLine == "" || !strings.HasPrefix(prev.goLine, "go version go") {
		t.Errorf("Go line %q, want the Machine block's", prev.goLine)
	}
	for _, name := range []string{"labby", "agent", "classified", "mcp"} {
		if prev.sourceNs[name] <= 0 {
			t.Errorf("no GOGC=400 figure for %s: %v", name, prev.sourceNs)
		}
	}
	for _, size := range []string{"1KiB", "16KiB", "64KiB", "1MiB"} {
		if prev.sanMBs[size] <= 0 {
			t.Errorf("no MB/s for the sanitiser at %s: %v", size, prev.sanMBs)
		}
	}
}

// TestAfterIdleTable reads BenchmarkTranslateAfterIdle's ns/translation
// beside BenchmarkTranslate's ns/op, each variant as a multiple of the
// back-to-back figure; nothing is written when the benchmark did not run.
func TestAfterIdleTable(t *testing.T) {
	core := parseCore(`BenchmarkTranslate/labby-2   	 1618232	 700.0 ns/op	 0 B/op	 0 allocs/op
BenchmarkTranslateAfterIdle/busy/labby-2   	 3000	 201679 ns/op	 1050 ns/translation
BenchmarkTranslateAfterIdle/idle/labby-2   	 3000	 1096718 ns/op	 2800 ns/translation
BenchmarkTranslateAfterIdle/evict/labby-2  	 3000	 299710 ns/op	 4900 ns/translation
`)
	got := afterIdleTable(core)
	if want := "| labby | 700 ns | 1050 ns (1.5×) | 2800 ns (4.0×) | 4900 ns (7.0×) |"; !strings.Contains(got, want) {
		t.Errorf("table:\n%s\nwant the row %q", got, want)
	}
	if strings.Contains(got, "| provider |") {
		t.Errorf("a row for a source that did not run:\n%s", got)
	}
	for _, text := range []string{"", "BenchmarkTranslate/labby-2 1 700.0 ns/op"} {
		if got := afterIdleTable(parseCore(text)); got != "" {
			t.Errorf("without the benchmark (core %q): %q, want nothing", text, got)
		}
	}
}
