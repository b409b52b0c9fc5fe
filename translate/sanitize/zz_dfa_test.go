package sanitize

import "testing"

func BenchmarkZZFind(b *testing.B) {
	in := benchInput(64 << 10)
	d := loadRules().kw
	var h []kwHit
	b.SetBytes(int64(len(in)))
	for i := 0; i < b.N; i++ {
		h = d.find(in, h[:0])
	}
}
