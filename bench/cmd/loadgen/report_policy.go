package main

import (
	"fmt"
	"sort"
	"strings"
)

// policyOverhead reads BenchmarkTranslatePolicy/<source>/<variant>
// (translate/policy_bench_test.go: the same requests with no policy, under
// a 1,000-rule one, and under the same with two secret formats, in the
// same run) into the goal's result: the 1,000 rules' median and worst
// ratio against none (the goal), then the formats' median apart. found is
// false when the run has no such benchmark.
func policyOverhead(core map[string]coreBench) (result string, ok, found bool) {
	rules := policyRatios(core, "rules1000")
	if len(rules) == 0 {
		return "", false, false
	}
	worst, median := rules[len(rules)-1], rules[len(rules)/2]
	result = fmt.Sprintf("median %+.0f%%, worst %+.0f%% (%s), over %d sources", (median.r-1)*100, (worst.r-1)*100, worst.source, len(rules))
	if f := policyRatios(core, "rules1000formats2"); len(f) > 0 {
		result += fmt.Sprintf("; with two secret formats (every string scanned), median %+.0f%%, worst %+.0f%% (%s)",
			(f[len(f)/2].r-1)*100, (f[len(f)-1].r-1)*100, f[len(f)-1].source)
	}
	return result, worst.r <= 1.10, true
}

type policyRatio struct {
	source string
	r      float64
}

// policyRatios are the variant's ratios against none, per source, lowest
// first.
func policyRatios(core map[string]coreBench, variant string) []policyRatio {
	var rs []policyRatio
	for name, b := range core {
		src, ok := strings.CutPrefix(name, "BenchmarkTranslatePolicy/")
		if !ok || !strings.HasSuffix(src, "/"+variant) {
			continue
		}
		src = strings.TrimSuffix(src, "/"+variant)
		none, has := core["BenchmarkTranslatePolicy/"+src+"/none"]
		if !has || none.ns == 0 {
			continue
		}
		rs = append(rs, policyRatio{src, b.ns / none.ns})
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].r < rs[j].r })
	return rs
}
