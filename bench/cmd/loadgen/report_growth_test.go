package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestGrowthGoal(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	on := write("on.txt", "BenchmarkTranslate/labby-2 1 900 ns/op 0 B/op 0 allocs/op\n"+
		"BenchmarkTranslate/provider-2 1 3400 ns/op 0 B/op 0 allocs/op\n")
	offWithin := write("off.txt", "BenchmarkTranslate/labby-2 1 800 ns/op 0 B/op 0 allocs/op\n"+
		"BenchmarkTranslate/provider-2 1 2900 ns/op 0 B/op 0 allocs/op\n")
	ab := func(abOn, abOff []float64) string {
		s := abSummary{Rounds: len(abOn), Rows: []abRow{
			{Callers: 16, Revision: "changed", AB: abOn, CD: []float64{0.7, 0.72, 0.74}},
			{Callers: 16, Revision: "base", AB: abOff, CD: []float64{0.71, 0.73, 0.75}},
		}}
		b, _ := json.Marshal(s)
		return write("ab.json", string(b))
	}

	rf := reportFiles{growthCoreOn: on, growthCoreOff: offWithin, growthAB: ab([]float64{0.80, 0.82, 0.81}, []float64{0.81, 0.83, 0.84})}
	res, ok, found, section := growthGoal(rf)
	if !found || ok {
		t.Fatalf("provider pushed over 3 µs: found=%v ok=%v (%s)", found, ok, res)
	}
	if !strings.Contains(res, "provider 3400 ns (2900 without)") || !strings.Contains(res, "every ratio within the noise") {
		t.Errorf("result %q", res)
	}
	if !strings.Contains(section, "| provider | 3400 ns | 2900 ns | +500 ns (+17%) | ≤ 3000 ns | **pushed over** |") {
		t.Errorf("section:\n%s", section)
	}

	// Within every goal, but a/b* at 16: every round with it below every round without.
	rf.growthCoreOn = offWithin
	rf.growthAB = ab([]float64{0.78, 0.79, 0.77}, []float64{0.80, 0.83, 0.84})
	res, ok, _, section = growthGoal(rf)
	if ok || !strings.Contains(res, "down by more than the noise: a/b* at 16 0.78 (0.83 without)") {
		t.Errorf("a/b* down: ok=%v %q", ok, res)
	}
	if !strings.Contains(section, "c/d* at 16 callers: 0.720 with the growth, 0.730 without (-1.4%): within the noise.") {
		t.Errorf("section:\n%s", section)
	}

	// Overlapping rounds are the noise.
	rf.growthAB = ab([]float64{0.78, 0.81, 0.77}, []float64{0.80, 0.83, 0.84})
	if res, ok, _, _ = growthGoal(rf); !ok {
		t.Errorf("overlapping rounds: %q", res)
	}

	// One round measures no noise.
	rf.growthAB = ab([]float64{0.81}, []float64{0.80})
	if res, ok, _, _ = growthGoal(rf); ok || !strings.Contains(res, "noise not measured") {
		t.Errorf("one round: ok=%v %q", ok, res)
	}

	if _, _, found, _ := growthGoal(reportFiles{}); found {
		t.Error("found in a run without the ablation")
	}
}
