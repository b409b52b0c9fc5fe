package policy

import (
	"fmt"
	"strings"
	"testing"
)

// bigPolicy is a policy of n provider rules and n overrides, the size the
// issue's performance bound speaks of (1,000 rules).
func bigPolicy(n int) []byte {
	var b strings.Builder
	b.WriteString("version: big\nproviders:\n  - name: fleet\n    match: {base_urls: [\"http://llm.internal/\"]}\n    rules:\n")
	for i := range n {
		fmt.Fprintf(&b, "      - {name: r%d, status: [%d], phrases: [\"phrase %d\"], class: transient, wait_secs: %d, limit: {kind: capacity}}\n", i, 400+i%200, i, i%60)
	}
	b.WriteString("overrides:\n")
	for i := range n {
		fmt.Fprintf(&b, "  - {name: o%d, term: term_%d, wait_floor_secs: 1, wait_ceiling_secs: 60}\n", i, i)
	}
	return []byte(b.String())
}

// BenchmarkPolicyParse1000: what a start or a reload of a 1,000-rule policy
// costs (parse, schema, compile).
func BenchmarkPolicyParse1000(b *testing.B) {
	data := bigPolicy(1000)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Parse("big.yaml", data); err != nil {
			b.Fatal(err)
		}
	}
}
