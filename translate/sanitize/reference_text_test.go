package sanitize

import (
	"math/rand"
	"slices"
	"strings"
	"testing"
)

// checkTextRef requires Text and TextReport to give exactly what the
// reference pipeline (reference_pass_test.go) gives.
func checkTextRef(t *testing.T, in string, cap int) {
	t.Helper()
	got, grep := TextReport(in, cap)
	want, wrep := textReportRef(in, cap)
	if got != want || grep != wrep {
		t.Fatalf("TextReport(%q, %d):\n got %q %+v\nwant %q %+v (reference)", in, cap, got, grep, want, wrep)
	}
}

// refTexts are the inputs of the differential test: every text case, the
// secret corpus, the benchmark mixes at several sizes, and random
// concatenations of benchmark lines, corpus texts and secrets, cut
// anywhere (so a fragment starts or ends inside a secret or an escape).
func refTexts(n int) []string {
	var texts []string
	for _, tc := range textCases {
		texts = append(texts, tc.in)
	}
	texts = append(texts, engineSecrets()...)
	for _, size := range []int{100, 1 << 10, 4 << 10, 16 << 10, 64 << 10} {
		texts = append(texts, benchInput(size), benchMix(proseLines, size))
	}
	pieces := append(append([]string{}, engineSecrets()...), proseLines...)
	pieces = append(pieces, fragments...)
	pieces = append(pieces, handFragments...)
	rng := rand.New(rand.NewSource(18))
	rs := loadRules()
	for i := 0; i < n; i++ {
		var sb strings.Builder
		for k := rng.Intn(6); k >= 0; k-- {
			p := pieces[rng.Intn(len(pieces))]
			if rng.Intn(3) == 0 && len(p) > 1 {
				a := rng.Intn(len(p))
				b := a + rng.Intn(len(p)-a) + 1
				p = p[a:b]
			}
			sb.WriteString(p)
			switch rng.Intn(5) {
			case 0:
				sb.WriteByte('\n')
			case 1:
				sb.WriteByte(' ')
			}
		}
		texts = append(texts, sb.String(), randomText(rng), handText(rng), engineText(rng, rs))
	}
	return texts
}

func TestTextMatchesReference(t *testing.T) {
	n := 25000
	if testing.Short() {
		n = 3000
	}
	rng := rand.New(rand.NewSource(5))
	for _, in := range refTexts(n) {
		checkTextRef(t, in, len(in)+1)
		checkTextRef(t, in, rng.Intn(len(in)+20))
	}
}

// The benchmark inputs, whole and at the sizes the benchmarks use.
func TestTextMatchesReferenceOnBenchInputs(t *testing.T) {
	for _, size := range []int{1 << 10, 16 << 10, 64 << 10, 1 << 20} {
		for _, in := range []string{benchInput(size), benchMix(proseLines, size)} {
			checkTextRef(t, in, len(in))
			checkTextRef(t, in, CauseCap)
		}
	}
}

func FuzzTextMatchesReference(f *testing.F) {
	for _, tc := range textCases {
		f.Add(tc.in, min(tc.cap, 1<<16))
	}
	for _, s := range engineSecrets() {
		f.Add(s, len(s))
	}
	f.Add(benchInput(2<<10), 2<<10)
	f.Fuzz(func(t *testing.T, s string, cap int) {
		if cap > 1<<16 {
			cap %= 1 << 16
		}
		checkTextRef(t, s, cap)
	})
}

// secretKey's quick reject changes no answer: keys built from the secret
// names, their pieces and separators, in any case.
func TestSecretKeyMatchesReference(t *testing.T) {
	var pieces []string
	for _, n := range secretSuffixes {
		pieces = append(pieces, n.name, n.name[1:], n.name[:len(n.name)-1])
	}
	pieces = append(pieces, secretExact...)
	pieces = append(pieces, publicKeyNames...)
	pieces = append(pieces, "-", "_", ".", " ", "x", "S", "key", "id", "A", "")
	rng := rand.New(rand.NewSource(9))
	for n := 0; n < 200000; n++ {
		var sb strings.Builder
		for k := rng.Intn(4); k >= 0; k-- {
			p := pieces[rng.Intn(len(pieces))]
			if rng.Intn(3) == 0 {
				p = strings.ToUpper(p)
			}
			sb.WriteString(p)
		}
		key := sb.String()
		if got, want := secretKey(key), secretKeyRef(key); got != want {
			t.Fatalf("secretKey(%q) = %v, reference %v", key, got, want)
		}
	}
}

// separatorAhead never rejects a place where pairSeparator finds a
// separator.
func TestSeparatorAheadRejectsOnlyNone(t *testing.T) {
	pieces := []string{"\"", "'", "\\", "\\\\\"", " ", "\t", ":", "=", "\uff1a", "\uff1d", "\u00a0", "\u3000", "\u202f",
		"\u205f", "\u2003", "\u200a", "é", "\u00a1", "\xef", "\xe2", "a", "\n", "}", ","}
	rng := rand.New(rand.NewSource(11))
	for n := 0; n < 200000; n++ {
		var sb strings.Builder
		for k := rng.Intn(5); k >= 0; k-- {
			sb.WriteString(pieces[rng.Intn(len(pieces))])
		}
		s := sb.String()
		if _, sep, _ := pairSeparator(s, 0); sep != 0 && !separatorAhead(s, 0) {
			t.Fatalf("separatorAhead(%q) rejects what pairSeparator accepts", s)
		}
	}
}

// The keyword pass finds the rules' keywords in the order the old
// automaton did (candidates' sort is not stable, so the order counts),
// with the windowed rules' literals among them.
func TestKeywordHitsMatchReference(t *testing.T) {
	rs := loadRules()
	refDFAOnce.Do(func() { refDFA = newKeywordDFARef(rs.keywords[:rs.ruleKeywords]) })
	for _, text := range refTexts(3000) {
		view := escapeView(text)
		var got []kwHit
		for _, h := range rs.kw.find(view, nil) {
			if int(h.kw) < rs.ruleKeywords {
				got = append(got, h)
			}
		}
		if want := refDFA.find(view, nil); !slices.Equal(got, want) {
			t.Fatalf("hits in %q:\n got %v\nwant %v (reference)", view, got, want)
		}
	}
}

// The literal cursor answers as inWindow does on windows that start at,
// just before and just after a literal and end right at its end or one
// byte short, in the non-decreasing order of starts run asks in.
func TestLitCursorAtLiteralEdges(t *testing.T) {
	rs := loadRules()
	sc := new(scratch)
	rng := rand.New(rand.NewSource(29))
	var windowed []*leakRule
	var lits []string
	for ri := range rs.rules {
		if r := &rs.rules[ri]; r.kind == kindWindow && litCursorOn(r.lits) {
			windowed = append(windowed, r)
			for _, l := range r.lits {
				lits = append(lits, l.s, strings.ToUpper(l.s))
			}
		}
	}
	if len(windowed) == 0 {
		t.Fatal("no windowed rule with a literal cursor")
	}
	asked, yes := 0, 0
	for n := 0; n < 2000; n++ {
		var sb strings.Builder
		for k := rng.Intn(8); k >= 0; k-- {
			if rng.Intn(2) == 0 {
				sb.WriteString(lits[rng.Intn(len(lits))])
			} else {
				sb.WriteString(fragments[rng.Intn(len(fragments))])
			}
		}
		view := escapeView(sb.String())
		rs.collect(view, sc)
		for _, r := range windowed {
			var starts []int
			for _, l := range r.lits {
				for p := l.next(view, 0); p <= len(view)-len(l.s); p = l.next(view, p+1) {
					starts = append(starts, max(0, p-1), p, p+1)
				}
			}
			for k := 0; k < 4; k++ {
				starts = append(starts, rng.Intn(len(view)+1))
			}
			slices.Sort(starts)
			var lc litCursor
			lc.reset(r, sc)
			for _, from := range starts {
				from = min(from, len(view))
				ends := []int{from, len(view), from + rng.Intn(len(view)-from+1)}
				for _, l := range r.lits {
					if p := l.next(view, from); p <= len(view)-len(l.s) {
						ends = append(ends, p+len(l.s), p+len(l.s)-1)
					}
				}
				for _, to := range ends {
					to = max(from, min(to, len(view)))
					got, want := lc.inWindow(r, view, span{from, to}), r.inWindow(view[from:to])
					if got != want {
						t.Fatalf("rule %s, window [%d,%d) of %q: cursor %v, inWindow %v", r.id, from, to, view, got, want)
					}
					asked++
					if want {
						yes++
					}
				}
			}
		}
	}
	if yes < 1000 || asked-yes < 1000 {
		t.Fatalf("%d windows, %d with a literal: too few of either", asked, yes)
	}
}

// handScan's inlined first look rejects only what separatorAhead rejects.
func TestSepStartRejectsOnlyNone(t *testing.T) {
	for a := 0; a < 256; a++ {
		for b := 0; b < 257; b++ {
			s := string([]byte{byte(a)})
			if b < 256 {
				s += string([]byte{byte(b)}) + ":"
			}
			inline := sepStart[s[0]] && (s[0] != ' ' || (1 < len(s) && sepAfterBlank[s[1]]))
			if !inline && separatorAhead(s, 0) {
				t.Fatalf("the first look rejects %q, separatorAhead accepts it", s)
			}
		}
	}
}

// emit's division by reciprocal gives every state of the automaton back.
func TestKeywordRowDivision(t *testing.T) {
	d := loadRules().kw
	for row := 0; row < len(d.next); row += d.nclass {
		if st := int(uint64(row) * d.recip >> 32); st != row/d.nclass {
			t.Fatalf("row %d: state %d, want %d", row, st, row/d.nclass)
		}
	}
}
