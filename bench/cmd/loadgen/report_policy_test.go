package main

import (
	"strings"
	"testing"
)

func TestPolicyOverhead(t *testing.T) {
	core := parseCore(`BenchmarkTranslatePolicy/labby/none-2         	 1000000	       600.0 ns/op	       0 B/op	       0 allocs/op
BenchmarkTranslatePolicy/labby/rules1000-2    	 1000000	       630.0 ns/op	       0 B/op	       0 allocs/op
BenchmarkTranslatePolicy/provider/none-2      	  100000	      7000 ns/op	     580 B/op	       2 allocs/op
BenchmarkTranslatePolicy/provider/rules1000-2 	  100000	      8400 ns/op	     906 B/op	      19 allocs/op
`)
	res, ok, found := policyOverhead(core)
	if !found || ok || !strings.Contains(res, "worst +20% (provider)") {
		t.Errorf("got %q ok=%v found=%v", res, ok, found)
	}
	if _, _, found := policyOverhead(parseCore("")); found {
		t.Error("found in an empty run")
	}
}
