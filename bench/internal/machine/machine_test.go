package machine

import (
	"encoding/json"
	"regexp"
	"slices"
	"testing"
)

// body is a provider's rate-limit error, the shape errsvc reads most.
const body = `{"error":{"message":"Rate limit reached for gpt-4o in organization org-abc on tokens per min (TPM): Limit 30000, Used 29876, Requested 512. Please try again in 1.248s.","type":"tokens","param":null,"code":"rate_limit_exceeded"},"headers":{"retry-after":"2","x-ratelimit-remaining-requests":"0","x-request-id":"req_0123456789abcdef"}}`

var wait = regexp.MustCompile(`try again in ([0-9.]+)(ms|s)`)

// work is one unit of the reference workload; it returns a value that
// depends on all of it, so that none of it is optimised away.
func work(keys []string) int {
	var v map[string]any
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		panic(err)
	}
	out, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	m := wait.FindStringSubmatch(body)
	keys = keys[:0]
	for k := range v["error"].(map[string]any) {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return len(out) + len(m[1]) + len(keys[0])
}

func BenchmarkMachine(b *testing.B) {
	keys := make([]string, 0, 8)
	n := 0
	for b.Loop() {
		n += work(keys)
	}
	if n == 0 {
		b.Fatal("no work done")
	}
}

// TestWork pins the workload: the body re-encoded (333 bytes), the wait's
// digits ("1.248") and the first key ("code").
func TestWork(t *testing.T) {
	if got := work(nil); got != 333+5+4 {
		t.Errorf("work() = %d", got)
	}
}
