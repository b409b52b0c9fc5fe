package sanitize

import "testing"

func BenchmarkZZHand(b *testing.B) {
	in := benchInput(64 << 10)
	b.SetBytes(int64(len(in)))
	var sp []span
	for i := 0; i < b.N; i++ {
		r := redactor{s: in, spans: sp[:0]}
		handScan(&r)
		sp = r.spans
	}
}
func BenchmarkZZRules(b *testing.B) {
	in := benchInput(64 << 10)
	b.SetBytes(int64(len(in)))
	sc := new(scratch)
	r := redactor{s: in}
	handScan(&r)
	hand := r.spans
	var sp []span
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sp = append(sp[:0], hand...)
		sp = ruleSpans(in, sc, sp)
	}
}
func BenchmarkZZFilter(b *testing.B) {
	in := benchInput(64 << 10)
	s, _ := redactPass(in)
	b.SetBytes(int64(len(in)))
	for i := 0; i < b.N; i++ {
		filter(s)
	}
}
func BenchmarkZZView(b *testing.B) {
	in := benchInput(64 << 10)
	b.SetBytes(int64(len(in)))
	for i := 0; i < b.N; i++ {
		escapeView(in)
	}
}

func walkOnly(s string) int {
	n := 0
	i := 0
	for i < len(s) {
		switch byteClass[s[i]] {
		case classOther, classDash, classColon:
			i++
			for i < len(s) && byteClass[s[i]] == classOther {
				i++
			}
		case classWord:
			e := i + 1
			for e < len(s) && byteClass[s[e]] == classWord {
				e++
			}
			n++
			i = e
		}
	}
	return n
}

func BenchmarkZZWalk(b *testing.B) {
	in := benchInput(64 << 10)
	b.SetBytes(int64(len(in)))
	for i := 0; i < b.N; i++ {
		walkOnly(in)
	}
	b.ReportMetric(float64(walkOnly(in)), "words")
}
