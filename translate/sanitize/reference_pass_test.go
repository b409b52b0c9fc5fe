package sanitize

import (
	"math"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// refDFA is the keyword automaton of the rules' keywords alone, as it was.
var (
	refDFAOnce sync.Once
	refDFA     *keywordDFARef
)

// The whole pipeline as it was before the pass was made faster (the
// sorting of candidates, the windowed rules' literal search, the later
// passes), kept as the reference Text is held to byte for byte
// (reference_text_test.go). It shares the rules' regexes, gates and
// allowlists with the code under test, and runs the hand rules as
// handScanRef, the plain loop.

func textRef(s string, cap int) string {
	out, _ := textReportRef(s, cap)
	return out
}

func textReportRef(s string, cap int) (string, Report) {
	var rep Report
	if cap < 0 {
		cap = 0
	}
	if len(s) <= cap && plainWords(s) {
		return s, rep
	}
	body, hadMarker := strings.CutSuffix(s, TruncationMarker)
	cut := false
	if cap <= math.MaxInt/4 && len(body) > 4*cap {
		body = window(body, 4*cap)
		cut = true
	}
	c := cleanRef(body, &rep)
	var p string
	switch {
	case cut || (len(c) > cap && utf8.RuneCountInString(c) > cap):
		p = cutRunes(c, cap)
		rep.Truncated = true
	case hadMarker:
		p = c
	default:
		q, ok := strings.CutSuffix(c, TruncationMarker)
		if !ok {
			return c, rep
		}
		p = q
	}
	return settleRef(p, cap, &rep) + TruncationMarker, rep
}

// cleanRef is clean by the plain first layer (cleanFirstRef), with the
// second layer (context.go) as clean runs it: its quick rejects and
// plainWords are shared with clean, and are held to their own references
// (TestWordChecksMatchReference, TestMnemonicBound, TestPlainWordsNeedNoRule).
func cleanRef(s string, rep *Report) string {
	var r Report
	c := cleanLayersRef(s, &r)
	if spaced, ok := spaceJoins(s); ok && r.Stripped {
		var rs Report
		c, r = unjoined(c, r, cleanLayersRef(spaced, &rs), rs)
	}
	rep.merge(r)
	return c
}

func cleanLayersRef(s string, rep *Report) string {
	c := cleanFirstRef(s, rep)
	for i := 0; i < maxRedactPasses; i++ {
		t, changed := contextPass(c)
		if !changed {
			return c
		}
		rep.Redacted = true
		c = cleanFirstRef(t, rep)
	}
	rep.Redacted = true
	return RedactedToken
}

func cleanFirstRef(s string, rep *Report) string {
	s, red := redactPassRef(s)
	s, st, rm := filterRef(s)
	rep.Redacted = rep.Redacted || red
	rep.Stripped = rep.Stripped || st
	rep.Removed = rep.Removed || rm
	if !red && !st && !rm {
		return s
	}
	for i, n := 0, redactPassesFor(len(s)); i < n; i++ {
		t, changed := redactPassRef(s)
		if !changed {
			return s
		}
		rep.Redacted = true
		s = t
	}
	rep.Redacted = true
	return RedactedToken
}

func settleRef(p string, cap int, rep *Report) string {
	for i := 0; i < maxRedactPasses; i++ {
		q, changed := redactPassRef(p)
		if !changed {
			q, changed = contextPass(p)
		}
		if !changed {
			return p
		}
		rep.Redacted = true
		p = cutRunes(q, cap)
	}
	return ""
}

func redactPassRef(s string) (string, bool) {
	sc := new(scratch)
	view := escapeView(s)
	r := redactor{s: view}
	handScanRef(&r)
	hand := len(r.spans)
	r.spans = ruleSpansRef(view, sc, r.spans)
	widen(view, r.spans[hand:])
	r.spans = mergeSpans(startAtEscapes(s, mergeSpans(r.spans)))
	if len(r.spans) == 0 {
		return s, false
	}
	var out strings.Builder
	last := 0
	for _, sp := range r.spans {
		if s[sp.from:sp.to] == RedactedToken || benignSpan(s, sp.from, sp.to) {
			continue
		}
		if out.Cap() == 0 {
			out.Grow(len(s))
		}
		out.WriteString(s[last:sp.from])
		out.WriteString(RedactedToken)
		last = sp.to
	}
	if out.Cap() == 0 {
		return s, false
	}
	out.WriteString(s[last:])
	return out.String(), true
}

func ruleSpansRef(view string, sc *scratch, out []span) []span {
	rs := loadRules()
	if rs.kw == nil || len(view) == 0 {
		return out
	}
	first := len(out)
	cands := candidatesRef(rs, view, sc)
	for i := 0; i < len(cands); {
		j := i + 1
		for j < len(cands) && cands[j].rule == cands[i].rule {
			j++
		}
		out = runRef(&rs.rules[cands[i].rule], view, cands[i:j], rs.global, out[:first], out)
		i = j
	}
	found := out[first:]
	if len(found) < 2 {
		return out
	}
	slices.SortFunc(found, func(a, b span) int { return a.from - b.from })
	merged := found[:1]
	for _, sp := range found[1:] {
		last := &merged[len(merged)-1]
		if sp.from <= last.to {
			if sp.to > last.to {
				last.to = sp.to
			}
			continue
		}
		merged = append(merged, sp)
	}
	return out[:first+len(merged)]
}

// candidatesRef is candidates as it was: every hit's candidates, then one
// sort of the candidates themselves.
func candidatesRef(rs *ruleSet, view string, sc *scratch) []candidate {
	refDFAOnce.Do(func() { refDFA = newKeywordDFARef(rs.keywords[:rs.ruleKeywords]) })
	sc.hits = refDFA.find(view, sc.hits[:0])
	cands := sc.cands[:0]
	for _, h := range sc.hits {
		pos := int(h.pos)
		kwLen := len(rs.keywords[h.kw])
		for _, ri := range rs.byKW[h.kw] {
			r := &rs.rules[ri]
			c := candidate{rule: ri, pos: pos, kwLen: kwLen}
			switch r.kind {
			case kindStart:
				cands = r.starts(view, pos, rs.keywords[h.kw], c, cands)
				continue
			case kindAssign:
				rc, ok := r.assignEnd(view, pos, nil)
				if !ok {
					continue
				}
				c.end, c.secretFrom, c.secretTo = rc.end, rc.from, rc.to
			default:
				if r.assignment && !operatorNear(view, pos+kwLen) {
					continue
				}
			}
			cands = append(cands, c)
		}
	}
	for _, ri := range rs.always {
		cands = append(cands, candidate{rule: ri, pos: 0, end: len(view), whole: true})
	}
	slices.SortFunc(cands, cmpCandidates)
	sc.cands = cands
	return cands
}

func runRef(r *leakRule, view string, cands []candidate, global []allowlist, hand, out []span) []span {
	if r.kind == kindWindow {
		var w span
		open := false
		var lc litCursorRef
		lc.reset(r.lits)
		for _, c := range cands {
			cw := keywordWindow(view, c.pos, c.pos+c.kwLen)
			if c.whole {
				cw = span{0, len(view)}
			}
			if !lc.inWindow(r, view, cw) {
				continue
			}
			if open && w.to >= cw.from {
				w.to = max(w.to, cw.to)
				continue
			}
			if open {
				out = r.findWindow(view, w, global, out)
			}
			w, open = cw, true
		}
		if open {
			out = r.findWindow(view, w, global, out)
		}
		return out
	}
	prevEnd, last := 0, -1
	var rm runMemo
	for k := 0; k < len(cands); k++ {
		c := cands[k]
		if c.pos < prevEnd || c.pos == last {
			continue
		}
		last = c.pos
		if skipCovered {
			if n := r.coveredRun(view, cands[k:], hand, prevEnd, &rm); n > 0 {
				k += n - 1
				continue
			}
		}
		m := r.matchAt(view, c.pos, c.end)
		if m == nil {
			continue
		}
		if r.kind == kindAssign {
			m[0] = nameStart(view, c.pos, prevEnd)
		}
		out = r.accept(view, m, global, out)
		prevEnd = m[1]
	}
	return out
}

// litCursorRef is the literal cursor as it was: a search of the text per
// literal, from each window's start.
type litCursorRef struct {
	next [8]int
	on   bool
}

func (lc *litCursorRef) reset(lits []lit) {
	lc.on = len(lits) > 0 && len(lits) <= len(lc.next) && !slices.ContainsFunc(lits, func(l lit) bool { return l.s == "" })
	for k := range lc.next {
		lc.next[k] = -1
	}
}

func (lc *litCursorRef) inWindow(r *leakRule, s string, w span) bool {
	if !lc.on {
		return r.inWindow(s[w.from:w.to])
	}
	for k, l := range r.lits {
		q := lc.next[k]
		if q < w.from {
			q = l.next(s, w.from)
			lc.next[k] = q
		}
		if q+len(l.s) <= w.to {
			return true
		}
	}
	return false
}

// starts is startsOf as it was: every anchor of r compared with kw.
func (r *leakRule) starts(s string, pos int, kw string, c candidate, cands []candidate) []candidate {
	for _, a := range r.anchors {
		start := pos - a.off
		if a.kw != kw || start < 0 || !a.lit.at(s, start) {
			continue
		}
		c.pos = start
		c.end = r.startEnd(s, start, len(kw))
		cands = append(cands, c)
	}
	return cands
}
