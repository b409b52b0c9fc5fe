package sanitize

import (
	"math/rand"
	"slices"
	"strings"
	"testing"
)

// diffTexts are the texts the differential tests compare the fast code and
// its reference on: the secret corpus, the benchmark mixes, random
// fragments of what the hand rules react to and random keyword text.
func diffTexts(n int) []string {
	texts := slices.Clone(engineSecrets())
	for _, size := range []int{1 << 10, 16 << 10} {
		texts = append(texts, benchInput(size), benchMix(proseLines, size))
	}
	texts = append(texts, handFragmentsSeeds...)
	rng := rand.New(rand.NewSource(17))
	rs := loadRules()
	for i := 0; i < n; i++ {
		texts = append(texts, randomText(rng), engineText(rng, rs), handText(rng))
	}
	return texts
}

// handFragments are pieces around which handScan's fast paths decide: word
// starts after '_', '\\' escapes, key runs with '.' and '-', separators,
// bearer words and token prefixes.
var handFragments = []string{
	"_", "__", "a_", "_sk-abcdefghij", "key_", "id_eyJhbGciOi", "\\t", "\\n", "\\r", "\\b", "\\f", "\\\\", "\\u0022",
	"\\tsk-proj-abcdefgh", "b", "B", "bearer", "Bearer", "bearerx", "BEARER\t", " ", "\n", ".", "-", "x.y-z",
	":", "=", "==", "=>", "\uff1a", "\uff1d", "\"", "'", "\\\"", "token", "api_key", "pass", "pwd", "Authorization",
	"ghp_", "sk-", "AKIA", "eyJ", "SG.", "1//0", "hvs.", "MII", "ABCDEFGHIJKLMNOPQRSTUVWXYZ012345", "0123456789abcdef0123456789abcdef",
	"xoxb-1", "://", "u:p@", "-----BEGIN PRIVATE KEY-----", "-----END PRIVATE KEY-----", "[REDACTED]", "é", "\u00a0",
}

var handFragmentsSeeds = []string{
	"_sk-abcdefghijklmnop", "key__sk-abcdefghijk", "failed\\tsk-abcdefghijk", "x\\bearer abcdefgh12345",
	"a.b-c_password: hunter2x", "_token=abc", "__Bearer abcdefgh1234", "b_eyJabc", "Bearer\u00a0abcdefgh123",
	// A value that starts with a byte that ends one, and a URL value.
	"token:&000000", "password=;Xy9Zq8 x", "secret: https://u:;pw9x@h/a;b c", "Pwd=%7B&x", "Pwd=%257B&x",
}

func handText(rng *rand.Rand) string {
	var sb strings.Builder
	for n := rng.Intn(16); n >= 0; n-- {
		if rng.Intn(4) == 0 {
			sb.WriteString(fragments[rng.Intn(len(fragments))])
			continue
		}
		sb.WriteString(handFragments[rng.Intn(len(handFragments))])
	}
	return sb.String()
}

// checkHandScan requires handScan to find exactly the spans handScanRef
// finds, on s and on its escape view (what the pipeline runs it on).
func checkHandScan(t *testing.T, s string) {
	t.Helper()
	for _, v := range []string{s, escapeView(s)} {
		fast := redactor{s: v}
		handScan(&fast)
		ref := redactor{s: v}
		handScanRef(&ref)
		if !slices.Equal(fast.spans, ref.spans) {
			t.Fatalf("handScan(%q):\n got %v\nwant %v (reference)", v, fast.spans, ref.spans)
		}
	}
}

func TestHandScanMatchesReference(t *testing.T) {
	n := 30000
	if testing.Short() {
		n = 5000
	}
	for _, s := range diffTexts(n) {
		checkHandScan(t, s)
	}
}

// The check can fail: a handScan that skips the glued-token path finds
// fewer spans than the reference on a text that needs it.
func TestHandScanReferenceCatchesADifference(t *testing.T) {
	s := "key_sk-abcdefghijklmnop"
	ref := redactor{s: s}
	handScanRef(&ref)
	plain := redactor{s: s}
	if _, ok := plain.word(0); ok || len(ref.spans) != 1 {
		t.Fatalf("fixture: word %v, reference spans %v", plain.spans, ref.spans)
	}
}

func FuzzHandScan(f *testing.F) {
	for _, s := range handFragmentsSeeds {
		f.Add(s)
	}
	for _, s := range benchLines {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkHandScan(t, s)
	})
}

// proseLine walks the words strings.Fields finds and decides as the
// reference does, Unicode spaces and invalid UTF-8 included.
func TestProseLineMatchesReference(t *testing.T) {
	pieces := []string{"a", "Bearer", "basic", "token", "missing", "in", "request", " ", "  ", "\t", "\n", "\v", "\u00a0",
		"\u0085", "\u2003", "\u3000", "\xff", "é", "x1", "don't", "a-b", "-a", ".", "expired.", "abcdefghijklmnopqrstuvwxyz"}
	rng := rand.New(rand.NewSource(3))
	for n := 0; n < 50000; n++ {
		var sb strings.Builder
		for k := rng.Intn(6); k >= 0; k-- {
			sb.WriteString(pieces[rng.Intn(len(pieces))])
		}
		line := sb.String()
		if got, want := proseLine(line), proseLineRef(line); got != want {
			t.Fatalf("proseLine(%q) = %v, reference %v", line, got, want)
		}
	}
}

// The literal cursor gives inWindow's answer for every window run asks
// about, in run's order, on the keyword texts of the rule engine's tests.
func TestLitCursorMatchesInWindow(t *testing.T) {
	rs := loadRules()
	sc := new(scratch)
	asked, yes := 0, 0
	for _, text := range diffTexts(3000) {
		view := escapeView(text)
		cands := rs.candidates(view, sc)
		for i := 0; i < len(cands); {
			j := i + 1
			for j < len(cands) && cands[j].rule == cands[i].rule {
				j++
			}
			r := &rs.rules[cands[i].rule]
			if r.kind == kindWindow {
				var lc litCursor
				lc.reset(r, sc)
				for _, c := range cands[i:j] {
					cw := keywordWindow(view, c.pos, c.pos+c.kwLen)
					if c.whole {
						cw = span{0, len(view)}
					}
					got, want := lc.inWindow(r, view, cw), r.inWindow(view[cw.from:cw.to])
					if got != want {
						t.Fatalf("rule %s, window %v of %q: cursor %v, inWindow %v", r.id, cw, view, got, want)
					}
					asked++
					if want {
						yes++
					}
				}
			}
			i = j
		}
	}
	if yes < 100 || asked-yes < 100 {
		t.Fatalf("%d windows asked, %d with a literal: too few of either to compare", asked, yes)
	}
}

// filter keeps, drops and replaces exactly what the reference does.
func TestFilterMatchesReference(t *testing.T) {
	for _, s := range diffTexts(20000) {
		checkFilter(t, s)
	}
}

func checkFilter(t *testing.T, s string) {
	t.Helper()
	out, st, rm := filter(s)
	rout, rst, rrm := filterRef(s)
	if out != rout || st != rst || rm != rrm {
		t.Fatalf("filter(%q) = %q %v %v, reference %q %v %v", s, out, st, rm, rout, rst, rrm)
	}
}

func FuzzFilter(f *testing.F) {
	for _, s := range []string{"é<system>\u202e#", "\xff\xfeé\u200b[INST]", "a\r\nb\x1b[0m", benchLines[5]} {
		f.Add(s)
	}
	f.Fuzz(checkFilter)
}

// The first pass and the filter in one (redactFilter) give what the first
// pass and then the filter give: the same text and the same changes.
func TestRedactFilterIsTwoSteps(t *testing.T) {
	texts := append(diffTexts(6000), editedTexts(2000, rand.New(rand.NewSource(53)))...)
	for _, s := range texts {
		checkRedactFilter(t, s)
	}
}

func FuzzRedactFilter(f *testing.F) {
	for _, s := range []string{benchLines[3] + "\x1b", "password=\xe2\x82 x\u200b", "a<sys" + "tem>token: sk-abcdefgh12345678\xff"} {
		f.Add(s)
	}
	f.Fuzz(checkRedactFilter)
}

func checkRedactFilter(t *testing.T, s string) {
	t.Helper()
	r1, red := redactPass(s)
	want, st, rm := filter(r1)
	got, gred, gst, grm := redactFilter(s)
	if got != want || gred != red || gst != st || grm != rm {
		t.Fatalf("redactFilter(%q) = %q %v %v %v, two steps %q %v %v %v", s, got, gred, gst, grm, want, red, st, rm)
	}
}

// editedTexts are n texts of secrets, engine and hand-rule text, prose and
// bytes the filter drops or markers it deletes, 200 to 3,200 bytes each
// (most without an escape byte), and the benchmarks' mixes.
func editedTexts(n int, rng *rand.Rand) []string {
	rs := loadRules()
	pieces := append(append(append(append([]string{}, benchLines...), engineSecrets()...), fragments...), handFragments...)
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

// The second layer's quick reject (also plainWords' check for prose)
// answers as the plain loops it replaced, on the differential texts and
// on texts made of the words themselves, cut, in mixed case, against the
// bytes that end or continue a key run. Its words decide only where no
// token run or markup does: enough texts of that kind must hold a word and
// enough none.
func TestWordChecksMatchReference(t *testing.T) {
	var pieces []string
	for _, w := range transcriptWords {
		pieces = append(pieces, w, strings.ToUpper(w), w[:len(w)-1], w[1:])
	}
	for _, w := range credentialWords {
		pieces = append(pieces, w.word, strings.ToUpper(w.word[:1])+w.word[1:], w.word[:2], w.word[2:])
		// Split by a separator: after the third letter the reject reads
		// through it (sms_code), within the first three it does not.
		for k := 1; k < len(w.word); k++ {
			sep := "_"
			if k%2 == 0 {
				sep = "-"
			}
			pieces = append(pieces, w.word[:k]+sep+w.word[k:])
		}
	}
	pieces = append(pieces, " ", "_", "-", ".", "7", "Z", "x", "é", "\n", ":", "=", "`", "@", "[", "{")
	texts := diffTexts(1000)
	rng := rand.New(rand.NewSource(29))
	for n := 0; n < 50000; n++ {
		var sb strings.Builder
		for k := rng.Intn(6); k >= 0; k-- {
			sb.WriteString(pieces[rng.Intn(len(pieces))])
		}
		texts = append(texts, sb.String())
	}
	found := [3]int{} // by words alone: a transcript word, a credential word, neither
	for _, s := range texts {
		if got, want := mayHoldContextSecret(s), mayHoldContextSecretRef(s); got != want {
			t.Fatalf("mayHoldContextSecret(%q) = %v, reference %v", s, got, want)
		}
		if tokenRunOrMarkupRef(s) {
			continue
		}
		tw, cw := hasTranscriptWordRef(s), hasCredentialWordRef(s)
		switch {
		case tw:
			found[0]++
		case cw:
			found[1]++
		default:
			found[2]++
		}
	}
	if found[0] < 1000 || found[1] < 1000 || found[2] < 1000 {
		t.Fatalf("of %d texts without a token run or markup, %d hold a transcript word, %d a credential word (and no transcript word), %d neither: too few of one",
			len(texts), found[0], found[1], found[2])
	}
}
