package main

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// A run is compared with the run of the report it replaces in two ways.
// The reference workload (bench/internal/machine) is the same code in every
// run, but it is not errsvc's code: a processor can run it as fast as
// another and a translation slower. When the code the core benchmarks run has not changed
// since the report's commit (bench/run.sh asks git), errsvc's own benchmarks
// are the better measure, and an absolute goal missed on a slower machine is
// then measured to be the machine's.

// machineLine is how the report writes the reference workload's time;
// machineRE reads it back from the report a run replaces.
const machineLine = "Reference workload (`bench/internal/machine`, the standard library only, unchanged between runs): %.0f ns."

var machineRE = regexp.MustCompile(regexp.QuoteMeta(strings.TrimSuffix(machineLine, "%.0f ns.")) + `([0-9.]+) ns`)

// The rows of the report this file reads back: the Machine block's Go
// line, the per-source table (source, GOGC=400 ns), the sanitiser's table
// (input, MB/s) and the two absolute goals' verdicts.
var (
	goLineRE    = regexp.MustCompile(`(?m)^Go:\s+(.+?)\s*$`)
	sourceRowRE = regexp.MustCompile(`(?m)^\| ([a-z_]+) \| ([0-9.]+) ns \| [0-9.]+ \| [0-9.]+ ns \|`)
	sanRowRE    = regexp.MustCompile(`(?m)^\| (1KiB|16KiB|64KiB|1MiB) \| ([0-9.]+) \| [0-9]+ \|\s*$`)
	coreMetRE   = regexp.MustCompile(`(?m)^\| every source .*\| \*\*met\*\* \|\s*$`)
)

// previousRun is what the report a run replaces measured.
type previousRun struct {
	machine  float64            // the reference workload, ns (0: not there)
	goLine   string             // the Go that built it
	sourceNs map[string]float64 // per source, ns at GOGC=400
	sanMBs   map[string]float64 // per sanitiser input, MB/s
	coreMet  bool               // its per-source goal was met
}

func readPreviousRun(md string) previousRun {
	p := previousRun{machine: previousMachine(md), sourceNs: map[string]float64{}, sanMBs: map[string]float64{}}
	if m := goLineRE.FindStringSubmatch(md); m != nil {
		p.goLine = m[1]
	}
	for _, m := range sourceRowRE.FindAllStringSubmatch(md, -1) {
		if v, err := strconv.ParseFloat(m[2], 64); err == nil && v > 0 {
			p.sourceNs[m[1]] = v
		}
	}
	for _, m := range sanRowRE.FindAllStringSubmatch(md, -1) {
		if v, err := strconv.ParseFloat(m[2], 64); err == nil && v > 0 {
			p.sanMBs[m[1]] = v
		}
	}
	p.coreMet = coreMetRE.MatchString(md)
	return p
}

// previousMachine is the reference workload's time in the report md.
func previousMachine(md string) float64 {
	m := machineRE.FindStringSubmatch(md)
	if m == nil {
		return 0
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	return v
}

// machineSpeed is this machine's speed on the reference workload against
// the run of the report it replaces (1: as fast; 0: not known).
func machineSpeed(rf reportFiles, core map[string]coreBench) float64 {
	b, ok := core["BenchmarkMachine"]
	if !ok || b.ns <= 0 || rf.prev.machine <= 0 {
		return 0
	}
	return rf.prev.machine / b.ns
}

// sameCodeSpeed is this machine's speed on errsvc's own benchmarks against
// the run of the report it replaces, when both ran the same code built by
// the same Go: the geometric mean over the per-source translations (core)
// and over the sanitiser's inputs (san) that both runs measured (0: not
// known).
func sameCodeSpeed(rf reportFiles, core map[string]coreBench, goLine string) (coreSpeed, san float64) {
	if rf.sameCodeAs == "" || rf.prev.goLine == "" || rf.prev.goLine != goLine {
		return 0, 0
	}
	var then, now []float64
	for name, ns := range rf.prev.sourceNs {
		if b, ok := core["BenchmarkTranslate/"+name]; ok && b.ns > 0 {
			then, now = append(then, ns), append(now, b.ns)
		}
	}
	coreSpeed = geomeanRatio(then, now)
	then, now = nil, nil
	for size, mbs := range rf.prev.sanMBs {
		if b, ok := core["BenchmarkText"+size]; ok && b.mbs > 0 {
			then, now = append(then, b.mbs), append(now, mbs)
		}
	}
	return coreSpeed, geomeanRatio(then, now)
}

// geomeanRatio is the geometric mean of num[i]/den[i] (0 for none).
func geomeanRatio(num, den []float64) float64 {
	if len(num) == 0 {
		return 0
	}
	var sum float64
	for i := range num {
		sum += math.Log(num[i] / den[i])
	}
	return math.Exp(sum / float64(len(num)))
}

// goLineOf is the Go line of the machine description the report prints.
func goLineOf(machine string) string {
	if m := goLineRE.FindStringSubmatch(machine); m != nil {
		return m[1]
	}
	return ""
}

// slowerCauses are the measured causes an absolute goal's verdict names
// when it misses on a machine more than 15 % slower than the previous
// report's run: for the per-source goal and for the sanitiser's ("" when
// the machine was not measured to be slower).
func slowerCauses(rf reportFiles, core map[string]coreBench, goLine string) (coreCause, sanCause string) {
	cs, ss := sameCodeSpeed(rf, core, goLine)
	if cs > 0 && cs < 0.85 {
		coreCause = fmt.Sprintf("the same code ran these translations at %.2f of the speed of the previous report's run (%s)", cs, rf.sameCodeAs)
		if rf.prev.coreMet {
			coreCause += ", which met this goal"
		}
		coreCause += " (\"Machine\")"
	}
	if ss > 0 && ss < 0.85 {
		lo, hi := minMax(rf.prev.sanMBs)
		sanCause = fmt.Sprintf("the same code ran the sanitiser at %.2f of the speed of the previous report's run (%s), which measured %.0f–%.0f MB/s (\"Machine\")", ss, rf.sameCodeAs, lo, hi)
	}
	if sp := machineSpeed(rf, core); sp > 0 && sp < 0.85 {
		ref := fmt.Sprintf("this machine ran at %.2f of the previous run's speed (\"Machine\")", sp)
		// Only where errsvc's own benchmarks could not be compared.
		if cs == 0 {
			coreCause = ref
		}
		if ss == 0 {
			sanCause = ref
		}
	}
	return coreCause, sanCause
}

func minMax(m map[string]float64) (lo, hi float64) {
	for _, v := range m {
		if lo == 0 || v < lo {
			lo = v
		}
		hi = max(hi, v)
	}
	return lo, hi
}

// joinCause appends a cause to another ("" adds nothing).
func joinCause(cause, more string) string {
	if more == "" {
		return cause
	}
	return cause + "; " + more
}
