package sanitize

import (
	"testing"
	stdregexp "regexp"
	re2 "github.com/wasilibs/go-re2"
	"github.com/zricethezav/gitleaks/v8/config"
)

var zzcfg, _ = readConfig(config.DefaultConfig)
const zzGen = "config: OPENAI_API_KEY=sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_abcdefghijklmnop rejected"
const zzJWT = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U\n"

func BenchmarkZZGenRE2(b *testing.B) {
	re := re2.MustCompile(zzcfg.Rules["generic-api-key"].Regex.String())
	b.ReportAllocs()
	for i := 0; i < b.N; i++ { re.FindAllStringIndex(zzGen, -1) }
}
func BenchmarkZZGenRE2Sub(b *testing.B) {
	re := re2.MustCompile(zzcfg.Rules["generic-api-key"].Regex.String())
	b.ReportAllocs()
	for i := 0; i < b.N; i++ { re.FindAllStringSubmatchIndex(zzGen, -1) }
}
func BenchmarkZZGenStd(b *testing.B) {
	re := stdregexp.MustCompile(zzcfg.Rules["generic-api-key"].Regex.String())
	b.ReportAllocs()
	for i := 0; i < b.N; i++ { re.FindAllStringSubmatchIndex(zzGen, -1) }
}
func BenchmarkZZJwtStd(b *testing.B) {
	re := stdregexp.MustCompile(zzcfg.Rules["jwt"].Regex.String())
	b.ReportAllocs()
	for i := 0; i < b.N; i++ { re.FindAllStringSubmatchIndex(zzJWT, -1) }
}
func BenchmarkZZJwtRE2(b *testing.B) {
	re := re2.MustCompile(zzcfg.Rules["jwt"].Regex.String())
	b.ReportAllocs()
	for i := 0; i < b.N; i++ { re.FindAllStringSubmatchIndex(zzJWT, -1) }
}
func BenchmarkZZJwtRE2Idx(b *testing.B) {
	re := re2.MustCompile(zzcfg.Rules["jwt"].Regex.String())
	b.ReportAllocs()
	for i := 0; i < b.N; i++ { re.FindAllStringIndex(zzJWT, -1) }
}
func BenchmarkZZRE2Tiny(b *testing.B) {
	re := re2.MustCompile(`abc`)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ { re.MatchString("xyz") }
}
