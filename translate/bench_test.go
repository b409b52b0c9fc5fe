package translate

import (
	"testing"
	"time"

	"github.com/errsvc/errsvc/codec/openjson"
	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// Core benchmarks: one translation per source, and a batch of 1,000 mixed
// requests. Compare runs with benchstat; nothing here asserts a time.

func benchRequest(b testing.TB, js string) *errsvcv1.TranslateRequest {
	b.Helper()
	req := &errsvcv1.TranslateRequest{}
	// Open on read, as the REST face reads: golden requests carry members
	// the contract does not model.
	if err := openjson.Unmarshal([]byte(js), req); err != nil {
		b.Fatal(err)
	}
	return req
}

var benchSources = map[string]string{
	"labby":      `{"labby_error":{"kind":"rate_limited","message":"slow down"}}`,
	"agent":      `{"agent_error":{"code":"TIMEOUT","message":"timed out","retry":"no","details":{"timeoutMs":30000,"idempotent":false}}}`,
	"classified": `{"classified_error":{"code":"account_selection_refused","message":"no account","detail":{"routing_code":"account_hold","retry_after_secs":12}}}`,
	"mcp":        `{"mcp_tool_result":{"tool":"github::create_issue","is_error":true,"content":[{"type":"text","text":"{\"kind\":\"upstream_error\",\"message\":\"backend 502\"}"}]}}`,
	// A real-shaped OpenAI 429 (its documented body and headers).
	"provider":    `{"provider_response":{"provider":"openai","status":429,"headers":{"content-type":"application/json","retry-after":"20","x-ratelimit-remaining-requests":"0","x-ratelimit-reset-requests":"20s","x-request-id":"req_123"},"body":"{\"error\":{\"message\":\"Rate limit reached for gpt-4o in organization org-abc on requests per min (RPM): Limit 500, Used 500, Requested 1.\",\"type\":\"requests\",\"param\":null,\"code\":\"rate_limit_exceeded\"}}"}}`,
	"grpc_status": `{"grpc_status":{"code":8,"message":"quota exhausted"}}`,
	"jsonrpc":     `{"jsonrpc_error":{"code":-32603,"message":"Internal error","data":{"kind":"upstream_error","message":"backend 502"}}}`,
	"http_error":  `{"http_error":{"status":503,"headers":{"retry-after":"5"},"body":"{\"message\":\"service unavailable\"}"}}`,
}

// benchSourceNames lists every source, in the order benchmarks report them.
var benchSourceNames = []string{"labby", "agent", "classified", "mcp", "provider", "grpc_status", "jsonrpc", "http_error"}

// BenchmarkTranslate is a translation as the server makes it: into leased
// storage, released once the answer is encoded (TranslateLeased).
func BenchmarkTranslate(b *testing.B) {
	for _, name := range benchSourceNames {
		req := benchRequest(b, benchSources[name])
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, _, lease, err := TranslateLeased(req)
				if err != nil {
					b.Fatal(err)
				}
				lease.Release()
			}
		})
	}
}

// BenchmarkTranslateOwned is Translate, whose answer the caller keeps (the
// CLI, a Go program using the package): a fresh storage block each time.
func BenchmarkTranslateOwned(b *testing.B) {
	for _, name := range benchSourceNames {
		req := benchRequest(b, benchSources[name])
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Translate(req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkTranslateLabbyTargets is the typical Labby translation asking
// only for the class and the HTTP status, the cheapest useful answer.
func BenchmarkTranslateLabbyTargets(b *testing.B) {
	req := benchRequest(b, `{"labby_error":{"kind":"rate_limited","message":"slow down"},"targets":["classification","http_status"]}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Translate(req); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkTranslateBatch1000(b *testing.B) {
	var reqs []*errsvcv1.TranslateRequest
	for _, c := range goldenCases() {
		if _, bad := c.request.(errorCase); bad {
			continue
		}
		reqs = append(reqs, benchRequest(b, string(mustJSON(c.request))))
	}
	batch := make([]*errsvcv1.TranslateRequest, 1000)
	for i := range batch {
		batch[i] = reqs[i%len(reqs)]
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, req := range batch {
			if _, err := Translate(req); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkTranslateAfterIdle is BenchmarkTranslate with the core doing
// something else before each translation, as a server's is at one caller,
// and then one translation timed alone: idle/ sleeps for the gap (the
// machine's clock makes it about a millisecond), busy/ spins on the clock
// for it, evict/ writes 8 MiB (twice a core's L2) as other goroutines'
// work would. Against BenchmarkTranslate's back-to-back figure, its
// ns/translation is what the machine's state after the gap costs the same
// work: no syscall, timer or hand-off is inside the timed part
// (docs/BENCHMARKS-DETAIL.md, "Light load").
func BenchmarkTranslateAfterIdle(b *testing.B) {
	const gap = 200 * time.Microsecond
	scratch := make([]byte, 8<<20)
	for _, name := range []string{"labby", "provider"} {
		req := benchRequest(b, benchSources[name])
		for _, before := range []string{"idle", "busy", "evict"} {
			b.Run(before+"/"+name, func(b *testing.B) {
				var spent time.Duration
				n := 0
				for b.Loop() {
					switch before {
					case "idle":
						time.Sleep(gap)
					case "busy":
						for t := time.Now(); time.Since(t) < gap; {
						}
					case "evict":
						for i := 0; i < len(scratch); i += 64 {
							scratch[i]++
						}
					}
					t := time.Now()
					_, _, lease, err := TranslateLeased(req)
					spent += time.Since(t)
					if err != nil {
						b.Fatal(err)
					}
					lease.Release()
					n++
				}
				b.ReportMetric(float64(spent.Nanoseconds())/float64(n), "ns/translation")
			})
		}
	}
}
