package translate

import (
	"fmt"
	"testing"
)

// policy1000 is a policy of 1,000 rules shaped as a large fleet's: 20
// provider families of 20 rules, 50 kinds, 50 agent codes, 310 overrides
// and 190 decisions, plus, with formats, two secret formats (which scan
// every string of a request: a cost of their own, reported apart). No
// rule matches the benchmark sources, so the difference is what holding
// the policy costs each translation.
func policy1000(b testing.TB, formats bool) *Policy {
	var spec PolicySpec
	for f := range 20 {
		fam := ProviderFamilySpec{Name: fmt.Sprintf("fleet%d", f), ReadsLike: "openai",
			Match: ProviderMatchSpec{Providers: []string{fmt.Sprintf("fleet-%d", f)}, BaseURLs: []string{fmt.Sprintf("https://llm%d.internal.example/v1", f)},
				Headers: map[string]string{"x-fleet": fmt.Sprint(f)}}}
		for r := range 20 {
			fam.Rules = append(fam.Rules, ProviderRuleSpec{Name: fmt.Sprintf("r%d", r), Status: []int32{int32(400 + r)}, Phrases: []string{fmt.Sprintf("phrase %d", r)}, Class: "transient"})
		}
		spec.Providers = append(spec.Providers, fam)
	}
	for k := range 50 {
		spec.Kinds = append(spec.Kinds, KindSpec{Kind: fmt.Sprintf("fleet_kind_%d", k), Meaning: "m", Class: "transient", HTTPStatus: 503, AgentCode: "EXECUTION_FAILED"})
		spec.AgentCodes = append(spec.AgentCodes, AgentCodeSpec{Code: fmt.Sprintf("FLEET_CODE_%d", k), Meaning: "m", SameAs: "EXECUTION_FAILED"})
	}
	for o := range 310 {
		spec.Overrides = append(spec.Overrides, OverrideSpec{Name: fmt.Sprintf("o%d", o), Term: fmt.Sprintf("fleet_term_%d", o), Decide: Decide{Retry: "never"}})
	}
	for d := range 190 {
		spec.Decisions = append(spec.Decisions, DecisionSpec{Name: fmt.Sprintf("d%d", d), Tool: fmt.Sprintf("fleet_tool_%d", d), Decide: Decide{Retry: "never"}})
	}
	if formats {
		spec.Secrets = &SecretsSpec{Redact: []PatternSpec{{Name: "itk", Regex: `itk_[A-Za-z0-9]{32}`}, {Name: "svc", Regex: `svc-[0-9a-f]{40}`}}}
	}
	p, err := NewPolicy(spec)
	if err != nil {
		b.Fatal(err)
	}
	if n := len(p.Rules()); n != 1000 {
		b.Fatalf("%d rules, want 1000", n)
	}
	if formats && len(p.redact) != 2 {
		b.Fatal("no secret formats")
	}
	return p
}

// BenchmarkTranslatePolicy is BenchmarkTranslate with no policy, under
// policy1000 and under policy1000 with two secret formats, in the same
// run: the goal is at most 10 % more per translation for the 1,000 rules
// (docs/BENCHMARKS.md reports the ratios, the formats' apart).
func BenchmarkTranslatePolicy(b *testing.B) {
	p, pf := policy1000(b, false), policy1000(b, true)
	for _, name := range benchSourceNames {
		req := benchRequest(b, benchSources[name])
		for _, c := range []struct {
			label string
			p     *Policy
		}{{"none", nil}, {"rules1000", p}, {"rules1000formats2", pf}} {
			b.Run(name+"/"+c.label, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					_, _, lease, err := c.p.TranslateLeased(req)
					if err != nil {
						b.Fatal(err)
					}
					lease.Release()
				}
			})
		}
	}
}
