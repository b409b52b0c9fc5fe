package sanitize

import (
	"math/bits"
	"strings"
	"testing"
	"unsafe"
)

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

func BenchmarkZZPass2Whole(b *testing.B) {
	in := benchInput(64 << 10)
	t1, _ := redactPass(in)
	t2, _, _ := filter(t1)
	b.SetBytes(int64(len(in)))
	for i := 0; i < b.N; i++ {
		redactPass(t2)
	}
}

func BenchmarkZZPass2Dirty(b *testing.B) {
	in := benchInput(64 << 10)
	t1, _ := redactPass(in)
	t2, _, _ := filter(t1)
	clean := map[string]bool{}
	for _, l := range strings.Split(in, "\n") {
		clean[l] = true
	}
	var sb strings.Builder
	for _, l := range strings.Split(t2, "\n") {
		if !clean[l] {
			sb.WriteString(l + "\n")
		}
	}
	d := sb.String()
	b.ReportMetric(float64(len(d))/float64(len(t2)), "dirtyfrac")
	b.SetBytes(int64(len(in)))
	for i := 0; i < b.N; i++ {
		redactPass(d)
	}
}

const ones = 0x0101010101010101

func inRange(y uint64, lo, hi byte) uint64 {
	return (y + (0x80-uint64(lo))*ones) &^ (y + (0x7f-uint64(hi))*ones)
}

// wordEndSWAR returns the end of the run of word bytes at e.
func wordEndSWAR(s string, e int) int {
	for e+8 <= len(s) {
		x := *(*uint64)(unsafe.Add(unsafe.Pointer(unsafe.StringData(s)), e))
		hi := x & (0x80 * ones)
		y := x &^ (0x80 * ones)
		w := (inRange(y, '0', '9') | inRange(y, 'A', 'Z') | inRange(y, 'a', 'z') | inRange(y, '_', '_')) &^ hi
		non := ^w & (0x80 * ones)
		if non != 0 {
			return e + bits.TrailingZeros64(non)/8
		}
		e += 8
	}
	for e < len(s) && byteClass[s[e]] == classWord {
		e++
	}
	return e
}

func walkSWAR(s string) int {
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
			e := wordEndSWAR(s, i+1)
			n++
			i = e
		}
	}
	return n
}

func BenchmarkZZWalkSWAR(b *testing.B) {
	in := benchInput(64 << 10)
	if walkSWAR(in) != walkOnly(in) {
		b.Fatal("differ")
	}
	b.SetBytes(int64(len(in)))
	for i := 0; i < b.N; i++ {
		walkSWAR(in)
	}
}
