package sanitize

import (
	"math/rand"
	"strings"
	"testing"
)

// laterInputs are raw texts for the later pass: long mixes of benchmark
// lines, corpus secrets, rule and hand fragments and bytes the filter
// drops or markers it removes, glued or spaced, so that edits fall next to,
// inside and between rules' reads; escapes are left out (the later pass
// runs a full pass on text that has one) in most of them.
func laterInputs(n int, rng *rand.Rand) []string {
	rs := loadRules()
	var pieces []string
	for _, p := range append(append(append(append([]string{}, benchLines...), engineSecrets()...), fragments...), handFragments...) {
		pieces = append(pieces, p)
	}
	drops := []string{"\x00", "\x1b", "\t", "\r", "\u200b", "\u202e", "\xff", "<system>", "</system>", "[INST]", "###", "<<", "\r\n", "\x7f"}
	var texts []string
	for k := 0; k < n; k++ {
		var sb strings.Builder
		size := 200 + rng.Intn(3000)
		for sb.Len() < size {
			switch rng.Intn(6) {
			case 0, 1:
				p := pieces[rng.Intn(len(pieces))]
				if rng.Intn(3) == 0 && len(p) > 1 {
					a := rng.Intn(len(p))
					p = p[a : a+1+rng.Intn(len(p)-a)]
				}
				sb.WriteString(p)
			case 2:
				sb.WriteString(drops[rng.Intn(len(drops))])
			case 3:
				sb.WriteString(engineText(rng, rs))
			case 4:
				sb.WriteString(handText(rng))
			default:
				sb.WriteString([]string{" ", "\n", ": ", "=", "\"", " = ", ","}[rng.Intn(7)])
			}
		}
		s := sb.String()
		if rng.Intn(4) != 0 {
			s = strings.NewReplacer("\\", "/", "%", "#").Replace(s)
		}
		texts = append(texts, s)
	}
	for _, size := range []int{1 << 10, 16 << 10, 64 << 10} {
		texts = append(texts, benchInput(size), benchMix(proseLines, size))
	}
	return texts
}

// checkLaterPass requires laterPass over the filtered first pass to give
// what a full pass gives; it reports whether it took a stretch from the
// first pass.
func checkLaterPass(t *testing.T, in string) (reused bool) {
	t.Helper()
	rec := new(passRec)
	s1, red := redactPassRec(in, rec)
	s2, st, rm := filterMap(s1, &rec.pieces)
	if !red && !st && !rm {
		return false
	}
	wantS, wantC := redactPass(s2)
	gotS, gotC, n := laterPassCount(s2, rec, len(in))
	if gotS != wantS || gotC != wantC {
		t.Fatalf("later pass over %q (raw %q):\n got %q %v\nwant %q %v (full pass)", s2, in, gotS, gotC, wantS, wantC)
	}
	// The parts S holds from R are copies.
	for _, g := range rec.segs {
		if s2[g.s:g.s+g.n] != in[g.r:g.r+g.n] {
			t.Fatalf("segment %+v of %q is not R's %q", g, s2[g.s:g.s+g.n], in[g.r:g.r+g.n])
		}
	}
	return n > 0
}

func TestLaterPassMatchesFullPass(t *testing.T) {
	n := 6000
	if testing.Short() {
		n = 800
	}
	rng := rand.New(rand.NewSource(31))
	reused := 0
	texts := laterInputs(n, rng)
	for _, in := range texts {
		if checkLaterPass(t, in) {
			reused++
		}
	}
	if reused < len(texts)/3 {
		t.Fatalf("only %d of %d texts took a stretch from the first pass: the test does not test the shortcut", reused, len(texts))
	}
	t.Logf("%d of %d texts reused stretches", reused, len(texts))
}

func FuzzLaterPass(f *testing.F) {
	rng := rand.New(rand.NewSource(37))
	for _, s := range laterInputs(40, rng)[:40] {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 1<<16 {
			s = s[:1<<16]
		}
		checkLaterPass(t, s)
	})
}
