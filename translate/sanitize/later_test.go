package sanitize

import (
	"cmp"
	"math/rand"
	"slices"
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
	for k, p := range laterProbes() {
		if k%4 == 0 {
			f.Add("upstream said " + p[:len(p)/2] + "\x1b" + p[len(p)/2:] + " <system> then")
		}
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 1<<16 {
			s = s[:1<<16]
		}
		checkLaterPass(t, s)
	})
}

// laterProbes are texts whose answer turns on one byte: prefix tokens one
// character short of their format and just long enough, key-value prose
// a glued byte makes a credential, Bearer and header values, URLs.
func laterProbes() []string {
	probes := []string{
		"token: expired", "password: must contain a digit", "token: 400 Bad", "secret=abc", "Bearer abcdefgh",
		"Authorization: Bearer", "Authorization: missing in request", "cookie: expired", "api_key = \"x y\"",
		"postgres://app:pw@db", "https://user:pass@host/x", "PWD=/home/x", "key_sk-abcdefgh", "sk-SK sk-learn",
		"-----BEGIN PRIVATE KEY-----\nMIIabc\n-----END PRIVATE KEY-----", "\"password\": \"hunter2\"",
	}
	for b := range prefixRules {
		for _, r := range prefixRules[b] {
			fill := "a1B2c3D4e5F6a7b8C9d0E1f2A3b4c5d6e7f8a9B0c1d2e3f4a5b6c7d8e9f0A1b2C3d4E5f6a7b8c9d0E1F2A3b4c5d6e7"
			if r.class != nil {
				var sb strings.Builder
				for k := 0; sb.Len() < 100; k++ {
					if c := byte("aB3f9ZqR0_-x"[k%12]); r.class(c) {
						sb.WriteByte(c)
					} else if r.class('7') {
						sb.WriteByte('7')
					} else {
						sb.WriteByte('A')
					}
				}
				fill = sb.String()
			}
			n := max(r.min, 1)
			if n > len(fill) {
				continue
			}
			probes = append(probes, r.prefix+fill[:n-1], r.prefix+fill[:n])
		}
	}
	return probes
}

// Every edit the filter makes (a dropped byte, a removed marker) at every
// place in and around a probe, inside enough text for checkpoints on both
// sides: the later pass gives what a full pass gives, and the pipeline what
// the reference gives.
func TestLaterPassAtEdits(t *testing.T) {
	edits := []string{"\x1b", "\u200b", "<system>", "###", "\r"}
	before, after := "error while calling upstream service x1 ", " then retried twice and gave up for now"
	reused := 0
	probes := laterProbes()
	for pi, p := range probes {
		for k := 0; k <= len(p); k++ {
			e := edits[(pi+k)%len(edits)]
			in := before + p[:k] + e + p[k:] + after
			if checkLaterPass(t, in) {
				reused++
			}
			if k%3 == 0 {
				checkTextRef(t, in, len(in))
			}
		}
	}
	if reused < len(probes) {
		t.Fatalf("only %d texts took a stretch from the first pass", reused)
	}
}

// laterPassInput runs in's first pass (recorded) and its filter, and
// returns the record, mapped onto the filtered text, and that text; ok is
// false when the later pass would not use the record (it is unusable, or
// the filtered text holds an escape).
func laterPassInput(in string) (rec *passRec, s2 string, ok bool) {
	rec = new(passRec)
	s1, _ := redactPassRec(in, rec)
	s2, _, _ = filterMap(s1, &rec.pieces)
	if !rec.usable(len(in)) || escapeView(s2) != s2 {
		return nil, "", false
	}
	rec.mapSegs()
	return rec, s2, true
}

// The later pass's keyword hits are the keyword pass's over the filtered
// text (as sets: their order is not kept), wherever it uses them.
func TestLaterHitsMatchKeywordPass(t *testing.T) {
	rng := rand.New(rand.NewSource(43))
	d := loadRules().kw
	texts := laterInputs(1500, rng)
	for _, p := range laterProbes() {
		texts = append(texts, "some words "+p[:len(p)/2]+"\x1b"+p[len(p)/2:]+" and more")
	}
	key := func(a, b kwHit) int {
		if a.pos != b.pos {
			return int(a.pos - b.pos)
		}
		return int(a.kw) - int(b.kw)
	}
	used := 0
	for _, in := range texts {
		rec, s2, ok := laterPassInput(in)
		if !ok {
			continue
		}
		used++
		got := laterHits(s2, rec, len(in), nil, nil)
		want := d.find(s2, nil)
		slices.SortFunc(got, key)
		slices.SortFunc(want, key)
		if !slices.Equal(got, want) {
			t.Fatalf("hits in %q:\n got %v\nwant %v (keyword pass)", s2, got, want)
		}
	}
	if used < len(texts)/2 {
		t.Fatalf("only %d of %d texts without escapes", used, len(texts))
	}
}

// The pipeline with the later pass on texts of every length (it records
// only from recordMin bytes on) gives what the reference gives.
func TestTextMatchesReferenceRecordingAll(t *testing.T) {
	defer func(n int) { recordMin = n }(recordMin)
	recordMin = 0
	n := 6000
	if testing.Short() {
		n = 1000
	}
	rng := rand.New(rand.NewSource(47))
	for _, in := range refTexts(n) {
		checkTextRef(t, in, len(in)+1)
		checkTextRef(t, in, rng.Intn(len(in)+20))
	}
	for _, p := range laterProbes() {
		for k := 0; k <= len(p); k += 2 {
			in := "retry " + p[:k] + "\x1b" + p[k:] + " failed"
			checkTextRef(t, in, len(in))
		}
	}
}

// kvProbes are key-value secrets in every form keyValue reads a value in
// (double, single and escaped quotes, bare after '=', ':' and "=>",
// headers to the end of the line and on to the next, Unicode blanks and a
// fullwidth sign), each with what may follow a value.
func kvProbes() []string {
	var probes []string
	for _, kv := range []string{
		`"password":"hunter2"`, `'secret': 'abc def'`, `\"api_key\":\"sk-x1\"`, `\\\"token\\\":\\\"t0k3n\\\"`,
		"OPENAI_API_KEY=sk-proj-abcdefgh", "password: hunter2x9", "db.password => s3cr3t", "pwd=p4ss",
		"Authorization: Bearer eyJabc.def", "Authorization: Basic\n  dXNlcjpwYXNz", "Cookie: a=b; c=d",
		"x-api-key:\u00a0k3y-v4lue", "token\uff1d abc123x", "auth = 'x' ", "session=abc;sig=def",
		"password=", "token: expired", "password=\"unterminated",
	} {
		for _, after := range []string{"", " ", "\n", ",", "}", "\"", ";x=1", " next=2", "\\n"} {
			probes = append(probes, kv+after)
		}
	}
	return probes
}

// The later pass takes a stretch whose only change is a value keyValue
// redacted (kvImage) as a full pass would see it: each key-value probe
// with each filter edit at every place in and around it, and with none.
func TestLaterPassAtKeyValues(t *testing.T) {
	edits := []string{"", "\x1b", "\u200b", "<system>", "\r"}
	before, after := "upstream call failed with config ", " while retrying the request later on"
	taken := 0
	for pi, p := range kvProbes() {
		for k := 0; k <= len(p); k++ {
			for ei, e := range edits {
				in := before + p[:k] + e + p[k:] + after
				taken += laterKVTaken(t, in)
				if (pi+k+ei)%8 == 0 {
					checkTextRef(t, in, len(in))
				}
			}
		}
	}
	for _, n := range []int{1 << 10, 16 << 10} {
		taken += laterKVTaken(t, benchInput(n))
	}
	if taken < len(kvProbes()) {
		t.Fatalf("the later pass took only %d stretches by a redacted value: the test does not test it", taken)
	}
	t.Logf("%d stretches taken by a redacted value", taken)
}

// laterKVTaken is checkLaterPass, returning how many stretches the later
// pass took by a redacted value.
func laterKVTaken(t *testing.T, in string) int {
	t.Helper()
	rec := new(passRec)
	s1, red := redactPassRec(in, rec)
	s2, st, rm := filterMap(s1, &rec.pieces)
	if !red && !st && !rm {
		return 0
	}
	wantS, wantC := redactPass(s2)
	gotS, gotC, _ := laterPassCount(s2, rec, len(in))
	if gotS != wantS || gotC != wantC {
		t.Fatalf("later pass over %q (raw %q):\n got %q %v\nwant %q %v (full pass)", s2, in, gotS, gotC, wantS, wantC)
	}
	return rec.kvTaken
}

// The later pass's candidates, taken from the first pass where a hit's
// checks read only what S holds unchanged (collectLater), are the checks'
// own on S (collectHits), as sets: on mixed texts with edits, and on
// texts whose edits fall next to a checked key, at the end of the text
// included, where a candidate's end is cut at the text's end.
func TestLaterCandidatesMatchChecks(t *testing.T) {
	rs := loadRules()
	rng := rand.New(rand.NewSource(59))
	texts := laterInputs(1500, rng)
	for _, p := range laterProbes() {
		for k := 0; k <= len(p); k += 3 {
			texts = append(texts,
				strings.Repeat("retry the call ", 40)+p[:k]+"\x1b"+p[k:],
				strings.Repeat("retry the call ", 40)+p+" \x1b"[:1+k%2],
				p[:k]+"\x1b"+p[k:]+strings.Repeat(" then failed", 50))
		}
	}
	// An edit inside the part of an anchor's literal before its keyword
	// (the check of a hit reads before the hit), and texts that end just
	// after a secret or an edit (a candidate's end cut at the text's end).
	for _, r := range rs.rules {
		for _, a := range r.anchors {
			for j := 0; j <= a.off; j++ {
				l := a.lit.s
				texts = append(texts, "retry "+l[:j]+"\x1b"+l[j:]+"Ab3dEfGh1jKlMn0pQrStUvWxYz012345 failed",
					strings.Repeat("retry the call ", 40)+l[:j]+"\x1b"+l[j:]+"Ab3dEfGh1jKlMn0pQrStUvWxYz012345")
			}
		}
	}
	for _, p := range append(engineSecrets(), benchLines...) {
		texts = append(texts, strings.Repeat("retry the call ", 40)+p+"\x1b", "retry "+p+"\x1b\x1b", p+"[INST]")
	}
	// An edit in the gap between a key-context keyword and its operator,
	// at every distance up to past the farthest the gate looks, and in the
	// gap between the operator and the value.
	assignKW := 0
	for kw, rules := range rs.byKW {
		if !slices.ContainsFunc(rules, func(ri int) bool { return rs.rules[ri].kind == kindAssign }) || assignKW == 12 {
			continue
		}
		assignKW++
		for n := 0; n < 40; n++ {
			// Tabs and carriage returns are gap bytes the filter drops.
			for _, g := range []string{" ", "\t", "\r"} {
				texts = append(texts, "retry "+rs.keywords[kw]+strings.Repeat(g, n)+"\x1b = Ab3dEfGh1jKlMn0pQrStUvWxYz012345 failed",
					"retry "+rs.keywords[kw]+" ="+strings.Repeat(g, n%8)+"Ab3dEfGh1jKlMn0pQrStUvWxYz012345 failed")
			}
		}
		// Operators of two bytes and more with an edit inside.
		for _, op := range []string{"=\x1b>", "|\x1b|", "?\x1b=", ":\x1b=", "::\x1b=", ":::\x1b=", ":\x1b::="} {
			texts = append(texts, "retry "+rs.keywords[kw]+op+"Ab3dEfGh1jKlMn0pQrStUvWxYz012345 failed")
		}
	}
	key := func(a, b candidate) int {
		return cmp.Or(a.rule-b.rule, a.pos-b.pos, a.kwLen-b.kwLen, a.end-b.end,
			a.secretFrom-b.secretFrom, a.secretTo-b.secretTo)
	}
	used, taken := 0, 0
	for _, in := range texts {
		rec, s2, ok := laterPassInput(in)
		if !ok {
			continue
		}
		used++
		sc := new(scratch)
		sc.hits = laterHits(s2, rec, len(in), nil, &sc.moved)
		got := slices.Clone(collectLater(s2, sc, rec, len(in)))
		for _, m := range sc.moved {
			if m.reuse && rec.reads[m.k].to > rec.reads[m.k].from {
				taken++
			}
		}
		ref := &scratch{hits: slices.Clone(sc.hits)}
		want := slices.Clone(rs.collectHits(s2, ref))
		slices.SortFunc(got, key)
		slices.SortFunc(want, key)
		if !slices.Equal(got, want) {
			t.Fatalf("candidates in %q:\n got %v\nwant %v (the checks)", s2, got, want)
		}
		if !slices.EqualFunc(sc.litPos, ref.litPos, slices.Equal) {
			t.Fatalf("literal hits in %q: %v, want %v", s2, sc.litPos, ref.litPos)
		}
	}
	if used < len(texts)/2 || taken < 1000 {
		t.Fatalf("%d of %d texts without escapes, %d hits' candidates taken: too few", used, len(texts), taken)
	}
}
