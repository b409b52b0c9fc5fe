package main

import "testing"

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
