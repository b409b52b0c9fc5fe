package sanitize

import (
	"math"
)

// The later pass (the first redaction pass over the filtered text) without
// a full rescan.
//
// Text redacts the raw text R once, filters the result into S and redacts
// S again. Most of S is a copy of R: the redactions, the dropped bytes and
// the removed markers are a few edits. A hand rule's answer depends only on
// the bytes it reads, so where the first pass read only bytes that S holds
// unchanged at a fixed offset, a pass over S finds what the first pass
// found there, and need not look.
//
// The first pass records checkpoints: places where its hand-rule scan stood
// at the top of its loop at the start of a word with no key run carried over
// (the scan's state there is nothing but the position), at least
// checkpointGap bytes apart. For the stretch from one checkpoint to the
// next it records far, past the last byte any rule tried in the stretch
// read (every read, including the byte before a word, each run's end and
// the byte that ended it, and every comparison with len(s); rules that can
// read past their line note their line end or the whole text). A later
// pass that arrives at the top of its loop at the image of a checkpoint,
// with no key run carried over, and finds R[x-1:far) unchanged at that
// offset, takes the first pass's hand spans of the stretch and goes on at
// the image of the next checkpoint; anywhere else it runs the scan itself,
// until it reaches the image of a checkpoint again.
//
// A stretch that read a value keyValue redacted is taken too when S holds
// everything else it read and the token where the value was: a scan of
// the key finds the token as its value (see kvImage in reuseScan).
// TestLaterPassAtKeyValues puts edits at every place in and around each
// form of value.
//
// The gitleaks rules run on the whole of S as in any pass, from the keyword
// hits: the first pass's, moved, where a copied part of S holds a hit whole,
// and the automaton's, walked only around the edits a keyword can reach
// into (laterHits). The hits then come in another order than the keyword
// pass gives; only candidates that tie (two differing ones at one rule and
// position, whose order the unstable sort takes from the hits' order) would
// care, and then the keyword pass runs after all.
//
// This holds only when the rules see the text itself (no JSON or URL
// escape in R or S: escapeView is then the identity), and the later pass
// is the only one done this way; TestLaterPassMatchesFullPass,
// TestLaterPassAtEdits, TestLaterHitsMatchKeywordPass, FuzzLaterPass and
// the pipeline's differential tests hold it to a full pass.

// checkpointGap is the least distance between two checkpoints: fewer to
// record, at the price of a longer rescan after a change. 16 (about every
// third word of prose) measured best on the bench mix, which has an edit
// every 95 bytes or so: against 4, Text 1 KiB ~5 % and 16 KiB ~3 % faster,
// 64 KiB the same; 32 made the later pass's rescans cost more than the
// record saves.
const checkpointGap = 16

// noCheckpoint is a redactor's cpNext when it records none.
const noCheckpoint = math.MaxInt

// recordMin is the shortest raw text the first pass records for: below it
// a full later pass costs less than the record (a variable for tests).
var recordMin = 512

// passRec is what the first pass records for the later one.
type passRec struct {
	raw bool // the rules saw R itself (escapeView(R) == R)
	// plain: R holds no byte that starts an escape ('\\', '%'), so
	// neither does S, whose bytes are R's, RedactedToken's and U+FFFD's
	plain bool
	// cps are the checkpoints in R, each with past the last byte read
	// from the one before it to it.
	cps  []checkpoint
	hand []span // the hand rules' spans in R
	// kv are the values keyValue redacted, with the word it was called at
	// (see kvImage in reuseScan).
	kv      []kvValue
	kvTaken int     // for tests: stretches reuseScan took by kvImage
	repl    []span  // the spans of R replaced by RedactedToken
	hits    []kwHit // the keyword hits in R
	// reads and cands are what the first pass's checks of each hit read
	// and gave (see hitRead); reads is empty when it did not record them.
	reads []hitRead
	cands []candidate
	// pieces maps S to the redacted R (filter's copies), or to R itself
	// when direct is set (redactFilter); segs maps S to R.
	pieces []seg
	direct bool
	segs   []seg
	// for the later pass's scan
	spans []span
	// sc is the passes' scratch (see scratch)
	sc scratch
}

type checkpoint struct{ x, far int32 }

// kvValue is a value keyValue redacted: s[vs:ve], for the key at word,
// which it was called at when the stretch had read s[:far0].
type kvValue struct{ word, vs, ve, far0 int32 }

// seg says S[s:s+n] is R[r:r+n] (or, for pieces, the redacted text's).
type seg struct{ s, r, n int }

func (p *passRec) reset() {
	p.raw, p.plain = false, false
	p.cps = p.cps[:0]
	p.hand, p.repl, p.hits = p.hand[:0], p.repl[:0], p.hits[:0]
	p.reads, p.cands = p.reads[:0], p.cands[:0]
	p.kv, p.kvTaken = p.kv[:0], 0
	p.direct = false
	p.pieces, p.segs = p.pieces[:0], p.segs[:0]
}

// checkpoint records one at i; far is past what the stretch before it read.
func (p *passRec) checkpoint(i, far int) {
	p.cps = append(p.cps, checkpoint{int32(i), int32(max(far, i+1))})
}

// usable reports whether the record fits int32 positions.
func (p *passRec) usable(n int) bool { return p.raw && n < 1<<31-1 }

// mapSegs composes R -> redacted R (rec.repl, each span replaced by
// RedactedToken) with redacted R -> S (the filter's pieces) into segs.
func (p *passRec) mapSegs() {
	// The redacted text's unchanged parts, as R1 -> R.
	j := 0
	r1, last := 0, 0 // position in R1 of R's last
	next := func() (seg, bool) {
		for {
			if j > len(p.repl) {
				return seg{}, false
			}
			var g seg
			if j < len(p.repl) {
				sp := p.repl[j]
				g = seg{s: r1, r: last, n: sp.from - last}
				r1 += g.n + len(RedactedToken)
				last = sp.to
			} else {
				g = seg{s: r1, r: last, n: 1<<62 - last}
			}
			j++
			if g.n > 0 {
				return g, true
			}
		}
	}
	a, ok := next()
	for _, pc := range p.pieces {
		// pc: S[pc.s:] is R1[pc.r:] for pc.n bytes.
		for ok && pc.n > 0 {
			if a.s+a.n <= pc.r {
				a, ok = next()
				continue
			}
			lo := max(a.s, pc.r)
			hi := min(a.s+a.n, pc.r+pc.n)
			if lo < hi {
				ns := seg{s: pc.s + (lo - pc.r), r: a.r + (lo - a.s), n: hi - lo}
				if k := len(p.segs) - 1; k >= 0 && p.segs[k].s+p.segs[k].n == ns.s && p.segs[k].r+p.segs[k].n == ns.r {
					p.segs[k].n += ns.n
				} else {
					p.segs = append(p.segs, ns)
				}
			}
			if a.s+a.n >= pc.r+pc.n {
				break
			}
			a, ok = next()
		}
	}
}

// laterPass is redactPass(s) for s = filter(first pass over R), with rec
// recorded by that first pass and its pieces by filter; rlen is len(R).
func laterPass(s string, rec *passRec, rlen int) (string, bool) {
	t, changed, _ := laterPassCount(s, rec, rlen)
	return t, changed
}

// laterPassCount is laterPass, plus how many stretches it took from the
// first pass (for tests).
func laterPassCount(s string, rec *passRec, rlen int) (string, bool, int) {
	if !rec.usable(max(len(s), rlen)) || len(rec.cps) < 2 {
		t, changed := redactPass(s)
		return t, changed, 0
	}
	view := s
	if !rec.plain {
		var decoded bool
		if view, decoded = escapeViewDecoded(s); decoded {
			t, changed := redactPass(s)
			return t, changed, 0
		}
	}
	if rec.direct {
		rec.segs = append(rec.segs[:0], rec.pieces...)
	} else {
		rec.segs = rec.segs[:0]
		rec.mapSegs()
	}
	sc, put := rec.scratch()
	defer put(sc)
	r := redactor{s: view, spans: sc.spans[:0], cpNext: noCheckpoint}
	defer func() { sc.spans = r.spans[:0] }()
	reused := reuseScan(&r, rec, rlen)
	hand := len(r.spans)
	r.spans = ruleSpansHits(view, sc, r.spans, func(sc *scratch) bool {
		sc.hits = laterHits(view, rec, rlen, sc.hits[:0], &sc.moved)
		sc.cands = collectLater(view, sc, rec, rlen)
		return true
	})
	t, changed := replaceSpans(s, view, &r, hand, nil)
	return t, changed, reused
}

// reuseScan is handScan over r.s (S) taking the first pass's spans over
// every stretch between checkpoints whose reads S holds unchanged. It
// returns how many stretches it took.
func reuseScan(r *redactor, rec *passRec, rlen int) int {
	s := r.s
	segs, cps, hand := rec.segs, rec.cps, rec.hand
	stretches := len(cps) - 1
	g, h, reused := 0, 0, 0
	// image returns where stretch m starts in S when S holds R[x-1:far)
	// at one offset (R[0:far) at S's start for x == 0), -1 when it does
	// not, -2 when no part of S comes from R at or after x-1.
	image := func(m int) int {
		x, far := int(cps[m].x), int(cps[m+1].far)
		lo := max(x-1, 0)
		for g < len(segs) && segs[g].r+segs[g].n <= lo {
			g++
		}
		if g == len(segs) {
			return -2
		}
		sg := segs[g]
		if sg.r > lo || far > sg.r+sg.n || far > rlen {
			return -1
		}
		y := x + sg.s - sg.r
		if x == 0 && y != 0 {
			return -1
		}
		return y
	}
	// kvImage returns where stretch m starts in S when S holds what it
	// read but for one value keyValue redacted, which S holds as
	// RedactedToken, and -1 when it does not: S holds R[x-1:vs) at one
	// offset, RedactedToken, then R[ve:far) at another, and what the
	// stretch read before keyValue was called lies before vs. The scan at
	// the image of x then reads what it read in R up to the key, so calls
	// keyValue at its image; keyValue reads the same key and separator
	// and a value that reads RedactedToken where R's did, and the value
	// ends where R's did (RedactedToken holds no byte that ends a value,
	// and each way of reading a value ended at R[ve], which S holds after
	// it: a quote, a line break or a byte bareStop stops at), the header
	// and prose checks reject nothing in "[REDACTED]", so it redacts the
	// token and goes on at the image of ve, with no key run carried over
	// (the key's ended before vs), where S holds what R held. It sets kvd
	// to the offset from R to S after the value, kvt to the token's place
	// in S and kvv to the value. (The token check holds whenever the
	// parts do; it is made so that the argument does not rest on what the
	// filter can do to the token.)
	kvs, kvk := rec.kv, 0
	var kvd, kvt int
	var kvv kvValue
	kvImage := func(m int) int {
		x, far := int(cps[m].x), int(cps[m+1].far)
		for kvk < len(kvs) && int(kvs[kvk].word) < x {
			kvk++
		}
		if kvk == len(kvs) || int(kvs[kvk].word) >= int(cps[m+1].x) || far > rlen || g == len(segs) {
			return -1
		}
		kvv = kvs[kvk]
		vs, ve := int(kvv.vs), int(kvv.ve)
		if int(kvv.far0) > vs {
			return -1
		}
		a := segs[g] // the first part of S that holds R at or after x-1 (image left g there)
		if a.r > max(x-1, 0) || a.r+a.n < vs {
			return -1
		}
		y := x + a.s - a.r
		kvt = vs + a.s - a.r
		if (x == 0 && y != 0) || kvt+len(RedactedToken) > len(s) || s[kvt:kvt+len(RedactedToken)] != RedactedToken {
			return -1
		}
		k := g
		for k < len(segs) && segs[k].r+segs[k].n <= ve {
			k++
		}
		if k == len(segs) {
			return -1
		}
		b := segs[k]
		if b.r > ve || far > b.r+b.n || ve+b.s-b.r != kvt+len(RedactedToken) {
			return -1
		}
		kvd = b.s - b.r
		return y
	}
	i, m := 0, 0
	for i < len(s) {
		// The next stretch S holds, at or after i.
		y, kv := -1, false
		for ; m < stretches; m++ {
			if y = image(m); y == -2 {
				m = stretches
				break
			}
			if y == -1 {
				y = kvImage(m)
				kv = y >= 0
			}
			if y >= i {
				break
			}
		}
		if m >= stretches {
			scanRange(r, i, len(s))
			return reused
		}
		if i < y {
			i = scanRange(r, i, y)
		}
		if i != y || r.keyEnd > y {
			m++
			continue
		}
		if kv {
			// At y the scan is where the first pass was at cps[m], and S
			// holds what that stretch read but for the value, which reads
			// RedactedToken: take the stretch's spans, the value's as the
			// token.
			x, to := int(cps[m].x), int(cps[m+1].x)
			for h < len(hand) && hand[h].from < x {
				h++
			}
			for ; h < len(hand) && hand[h].from < to; h++ {
				switch sp := hand[h]; {
				case sp.from == int(kvv.vs) && sp.to == int(kvv.ve):
					r.spans = append(r.spans, span{kvt, kvt + len(RedactedToken)})
				case sp.from < int(kvv.vs):
					r.spans = append(r.spans, span{sp.from + y - x, sp.to + y - x})
				default:
					r.spans = append(r.spans, span{sp.from + kvd, sp.to + kvd})
				}
			}
			reused++
			rec.kvTaken++
			m++
			i = to + kvd
			continue
		}
		// At y the scan is where the first pass was at cps[m], with
		// nothing carried over: take the stretches from m on that lie in
		// the same part of S (image left g at it).
		sg := segs[g]
		d, end := sg.s-sg.r, sg.r+sg.n
		first := m
		for m < stretches && int(cps[m+1].far) <= end {
			m++
		}
		if m == first {
			// image accepted stretch m, so the loop above takes it; if a
			// change to image ever broke that, i and m would stay where
			// they are forever. Scan on instead, as for a stretch S does
			// not hold: never a loop (a planted far-1 in image looped
			// before this, and now changes no answer).
			m++
			continue
		}
		reused += m - first
		x, to := int(cps[first].x), int(cps[m].x)
		for h < len(hand) && hand[h].from < x {
			h++
		}
		for ; h < len(hand) && hand[h].from < to; h++ {
			r.spans = append(r.spans, span{hand[h].from + d, hand[h].to + d})
		}
		i = to + d
	}
	return reused
}

// hitMove says where a hit of S that the first pass found comes from:
// rec.hits[k], moved by d; reuse is set when the part of S that holds it
// holds all its checks read too (see hitRead).
type hitMove struct {
	k, d  int
	reuse bool
}

// laterHits returns every keyword hit in s (S), in no set order: the
// first pass's hits that lie inside a part of S copied from R, moved to
// it, and the keyword pass's hits around every edit (those that lie in no
// such part). A keyword holds no line break, and the automaton forgets
// everything at one, but no more is used here than that a walk from the
// root at from finds every keyword starting at from or later. When moved
// is set, the hits start with those moved from the first pass, and moved
// gets one hitMove for each of them.
func laterHits(s string, rec *passRec, rlen int, hits []kwHit, moved *[]hitMove) []kwHit {
	d := loadRules().kw
	segs := rec.segs
	reads := rec.reads
	if moved != nil {
		*moved = (*moved)[:0]
		if len(reads) != len(rec.hits) {
			reads = nil
		}
	}
	// The first pass's hits come as two walks, one over R's first half
	// and one over its second, each in the order of the hits' ends.
	half := rlen / 2
	var ga, gb int
	for k, h := range rec.hits {
		p := int(h.pos)
		end := p + int(d.length[h.kw]) // past the hit
		g := &ga
		if p >= half {
			g = &gb
		}
		for *g < len(segs) && segs[*g].r+segs[*g].n < end {
			*g++
		}
		if *g < len(segs) && segs[*g].r <= p {
			sg := segs[*g]
			hits = append(hits, kwHit{kw: h.kw, pos: int32(p + sg.s - sg.r)})
			if moved != nil {
				m := hitMove{k: k, d: sg.s - sg.r}
				if reads != nil {
					m.reuse = sg.r <= reads[k].lo && reads[k].hi <= sg.r+sg.n
				}
				*moved = append(*moved, m)
			}
		}
	}
	// Around each edit: at most longest-1 bytes before the end of one part
	// and after the start of the next.
	reach := d.longest - 1
	zoneFrom, zoneTo := 0, 0 // the walk pending
	open := false
	g := 0
	flush := func() {
		from := len(hits)
		hits = d.findFrom(s, zoneFrom, zoneTo, hits)
		// Keep those no part holds whole (the others came from R).
		k := from
		for _, h := range hits[from:] {
			p := int(h.pos)
			end := p + int(d.length[h.kw])
			for g < len(segs) && segs[g].s+segs[g].n < end {
				g++
			}
			if g < len(segs) && segs[g].s <= p {
				continue
			}
			hits[k] = h
			k++
		}
		hits = hits[:k]
	}
	edge := func(from, to int) { // an edit over s[from:to] (from == to: between two bytes)
		// A keyword holds no byte of class 0: a hit that reaches into the
		// edit starts after the last one before it and ends before the
		// first one after it.
		// And it either lies inside the edit or holds the bytes on both
		// sides of one of its ends.
		a, b := from, to
		if d.spans(s, from) {
			for lo := max(0, from-reach); a > lo && d.class[s[a-1]] != 0; a-- {
			}
		}
		if d.spans(s, to) {
			for hi := min(len(s), to+reach); b < hi && d.class[s[b]] != 0; b++ {
			}
		}
		if a == b {
			return
		}
		if open && a <= zoneTo {
			zoneTo = max(zoneTo, b)
			return
		}
		if open {
			flush()
		}
		zoneFrom, zoneTo, open = a, b, true
	}
	prev := 0
	for _, sg := range segs {
		if sg.s > prev || prev > 0 {
			edge(prev, sg.s)
		}
		prev = sg.s + sg.n
	}
	if prev < len(s) || len(segs) == 0 || segs[len(segs)-1].r+segs[len(segs)-1].n != rlen {
		edge(prev, len(s))
	}
	if open {
		flush()
	}
	return hits
}

// collectLater is collectHits over the later pass's hits (sc.hits, as
// laterHits gives them, with sc.moved): a hit moved from a part of R
// that S holds with all its checks read takes the first pass's candidates
// moved with it instead of running the checks again (see hitRead), unless
// one of them has an end that len(R) cut or len(S) would; every other hit
// is checked. TestLaterCandidatesMatchChecks holds it to collectHits.
func collectLater(view string, sc *scratch, rec *passRec, rlen int) []candidate {
	rs := loadRules()
	cands := rs.litHits(sc, sc.cands[:0])
	for i, h := range sc.hits {
		if i < len(sc.moved) && sc.moved[i].reuse {
			m := sc.moved[i]
			rd := rec.reads[m.k]
			from := len(cands)
			ok := true
			for _, c := range rec.cands[rd.from:rd.to] {
				c.pos += m.d
				// A windowed rule's candidate has its position only; an
				// anchored rule's its read bound too, and the key-context
				// template's the stretch of its secret.
				if kind := rs.rules[c.rule].kind; kind != kindWindow {
					if c.end >= rlen || c.end+m.d > len(view) {
						ok = false
						break
					}
					c.end += m.d
					if kind == kindAssign {
						c.secretFrom += m.d
						c.secretTo += m.d
					}
				}
				cands = append(cands, c)
			}
			if ok {
				continue
			}
			cands = cands[:from]
		}
		cands, _, _ = rs.collectHit(view, h, cands, nil)
	}
	return rs.alwaysCands(view, cands)
}
