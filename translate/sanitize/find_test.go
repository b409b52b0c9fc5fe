package sanitize

import (
	"math/rand"
	"slices"
	"strings"
	"testing"
)

// The walk in quarters gives find2's hits in find2's order (the
// candidates' sort is not stable, so the order counts): on the reference
// texts, on texts around the length where quarters start and of odd
// lengths, and on texts dense with keywords, whose hits cross every
// quarter's end.
func TestKeywordQuartersMatchHalves(t *testing.T) {
	rs := loadRules()
	d := rs.kw
	texts := refTexts(3000)
	rng := rand.New(rand.NewSource(41))
	for n := 0; n < 400; n++ {
		var sb strings.Builder
		for sb.Len() < find4Min-40+rng.Intn(2000) {
			kw := rs.keywords[rng.Intn(len(rs.keywords))]
			if rng.Intn(2) == 0 {
				kw = strings.ToUpper(kw)
			}
			sb.WriteString(kw)
			if rng.Intn(3) == 0 {
				sb.WriteString(engineGlue[rng.Intn(len(engineGlue))])
			}
		}
		texts = append(texts, sb.String())
	}
	long := 0
	for _, x := range texts {
		for _, v := range []string{x, x + " " + x} {
			if len(v) >= find4Min {
				long++
			}
			if got, want := d.find(v, nil), d.find2(v, nil); !slices.Equal(got, want) {
				t.Fatalf("hits in a text of %d bytes:\n got %v\nwant %v (halves)", len(v), got, want)
			}
		}
	}
	if long < 1000 {
		t.Fatalf("only %d texts long enough for quarters", long)
	}
}
