package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// A ratio goal's verdict is its median over the rounds, not its first
// round; the tables show the first round only.
func TestRatioVerdictIsTheMedianOfRounds(t *testing.T) {
	res := sampleRun()
	// Round 0 has a/b* 26000/30000 = 0.87 at both counts (not met); rounds
	// 1 and 2 give 0.93 and 0.92, so the median, 0.92, is met. Round 2 is
	// written first: the table lists the rounds in their order.
	for _, rr := range []struct {
		round int
		a     float64
	}{{2, 27500}, {1, 28000}} {
		round, a := rr.round, rr.a
		for _, c := range []int{16, 64} {
			for _, r := range []Result{
				{ID: "a", Name: "gRPC Translate, cold", CallsPerSec: a},
				{ID: "b*", Name: "gRPC canned answer (floor)", CallsPerSec: 30000},
			} {
				r.Round, r.Concurrency, r.ItemsPerSec = round, c, r.CallsPerSec
				res.Scenarios = append(res.Scenarios, r)
			}
		}
	}
	dir := t.TempDir()
	core := sampleCore(t)
	first, detail := render(reportFiles{core: core, coreGOGC100: core, out: filepath.Join(dir, "BENCHMARKS.md")}, res)
	for _, want := range []string{
		"| gRPC Translate, cold / canned answer (a/b*) ≥ 0.90 at 16 and 64 | 0.92 (c=16), 0.92 (c=64), medians of 3 rounds | **met** |",
		// c/d* ran once: its verdict is that round's.
		"| REST Translate, cold / canned answer (c/d*) ≥ 0.80 at 16 and 64 | 0.68 (c=16), 0.68 (c=64) | **not met** |",
	} {
		if !strings.Contains(first, want) {
			t.Errorf("first screen lacks %q:\n%s", want, first)
		}
	}
	if want := "| gRPC Translate, cold / canned answer (a/b*) | 16 | 0.92 (median of 3 rounds: 0.87, 0.93, 0.92) | ≥ 0.90 |"; !strings.Contains(detail, want) {
		t.Errorf("ratio table lacks %q", want)
	}
	load := detail[strings.Index(detail, "## Load"):strings.Index(detail, "## Light load")]
	if n := strings.Count(load, "| a | gRPC Translate, cold |"); n != 2 {
		t.Errorf("load table has %d rows of a, want the first round's 2", n)
	}
}

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		in   []float64
		want float64
	}{{nil, 0}, {[]float64{3}, 3}, {[]float64{3, 1, 2}, 2}, {[]float64{4, 1, 3, 2}, 2.5}} {
		in := append([]float64(nil), tc.in...)
		if got := median(tc.in); got != tc.want {
			t.Errorf("median(%v) = %v, want %v", in, got, tc.want)
		}
		for i := range in {
			if in[i] != tc.in[i] {
				t.Errorf("median reordered its input: %v", tc.in)
			}
		}
	}
}
