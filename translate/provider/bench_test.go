package provider

import (
	"testing"
	"time"
)

// benchOpenAI429 is the OpenAI 429 of the translate benchmark: OpenAI's
// documented rate-limit body with the headers its API sends.
var benchOpenAI429 = Answer{
	Provider: "openai",
	Status:   429,
	Headers: map[string]string{
		"content-type":                   "application/json",
		"retry-after":                    "20",
		"x-ratelimit-remaining-requests": "0",
		"x-ratelimit-reset-requests":     "20s",
		"x-request-id":                   "req_123",
	},
	Body: `{"error":{"message":"Rate limit reached for gpt-4o in organization org-abc on requests per min (RPM): Limit 500, Used 500, Requested 1.","type":"requests","param":null,"code":"rate_limit_exceeded"}}`,
}

// benchFixtures are the real-shaped answers of testdata/providers the
// benchmark classifies, beside benchOpenAI429.
var benchFixtures = []struct{ name, fixture string }{
	{"anthropic_529_overloaded", "anthropic-529-overloaded"},
	{"gemini_429_retry_info", "gemini-429-requests-per-day-retry-info"},
	{"sse_error_event", "anthropic-stream-overloaded"},
	{"sse_chat_error_after_output", "openai-stream-chat-rate-limit-after-output"},
}

// BenchmarkClassify is Classify alone on the answers of a rate-limit storm.
// Nothing here asserts a time; compare runs with benchstat.
func BenchmarkClassify(b *testing.B) {
	cases := []struct {
		name string
		a    Answer
	}{{"openai_429", benchOpenAI429}}
	byName := map[string]fixture{}
	for _, f := range loadFixtures(b) {
		byName[f.Name] = f
	}
	for _, c := range benchFixtures {
		f, ok := byName[c.fixture]
		if !ok {
			b.Fatalf("no fixture %s", c.fixture)
		}
		cases = append(cases, struct {
			name string
			a    Answer
		}{c.name, f.answer(b)})
	}
	cases[0].a.Now = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			if r := Classify(c.a); r.Class == "" {
				b.Fatalf("%s: not classified", c.name)
			}
			b.ReportAllocs()
			for b.Loop() {
				Classify(c.a)
			}
		})
	}
}

// maxClassifyAllocs is issue 18's bound for Classify on a storm's answers:
// the wait's pointer and little else.
const maxClassifyAllocs = 3

func TestClassifyAllocs(t *testing.T) {
	byName := map[string]fixture{}
	for _, f := range loadFixtures(t) {
		byName[f.Name] = f
	}
	answers := map[string]Answer{"openai_429": benchOpenAI429}
	for _, c := range benchFixtures {
		f := byName[c.fixture]
		answers[c.name] = f.answer(t)
	}
	for name, a := range answers {
		n := testing.AllocsPerRun(200, func() { Classify(a) })
		if raceEnabled {
			t.Logf("%s: %v allocations (not checked under the race detector)", name, n)
			continue
		}
		if n > maxClassifyAllocs {
			t.Errorf("%s: %v allocations per Classify, want at most %d", name, n, maxClassifyAllocs)
		}
	}
}
