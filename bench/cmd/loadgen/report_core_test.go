package main

import (
	"fmt"
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
	if got := machineSpeed(reportFiles{prevMachine: 18000}, core); got != 0.6 {
		t.Errorf("machineSpeed = %v, want 0.6 (18000 ns then, 30000 now)", got)
	}
	if got := machineSpeed(reportFiles{}, core); got != 0 {
		t.Errorf("machineSpeed without a previous run = %v, want 0", got)
	}
	if got := machineSpeed(reportFiles{prevMachine: 18000}, nil); got != 0 {
		t.Errorf("machineSpeed without this run's figure = %v, want 0", got)
	}
}
