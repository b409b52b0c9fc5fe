package main

import (
	"fmt"
	"sort"
	"strings"
)

// policyOverhead reads BenchmarkTranslatePolicy/<source>/{none,rules1000}
// (translate/policy_bench_test.go: the same requests with no policy and
// under a 1,000-rule one, in the same run) into the goal's result: the
// worst source's ratio and the median's. found is false when the run has
// no such benchmark.
func policyOverhead(core map[string]coreBench) (result string, ok, found bool) {
	type ratio struct {
		source string
		r      float64
	}
	var rs []ratio
	for name, b := range core {
		src, ok := strings.CutPrefix(name, "BenchmarkTranslatePolicy/")
		if !ok || !strings.HasSuffix(src, "/rules1000") {
			continue
		}
		src = strings.TrimSuffix(src, "/rules1000")
		none, has := core["BenchmarkTranslatePolicy/"+src+"/none"]
		if !has || none.ns == 0 {
			continue
		}
		rs = append(rs, ratio{src, b.ns / none.ns})
	}
	if len(rs) == 0 {
		return "", false, false
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].r < rs[j].r })
	worst, median := rs[len(rs)-1], rs[len(rs)/2]
	return fmt.Sprintf("median %+.0f%%, worst %+.0f%% (%s), over %d sources", (median.r-1)*100, (worst.r-1)*100, worst.source, len(rs)),
		worst.r <= 1.10, true
}
