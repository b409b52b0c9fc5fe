package sanitize

import (
	stdregexp "regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode/utf8"

	re2 "github.com/wasilibs/go-re2"
)

// classify reads a rule's regex and decides how it is tried at a keyword
// hit (see the kinds in rules.go). A regex that fits neither anchored
// shape stays windowed, as before; so does any regex whose anchored form
// does not compile.
func (r *leakRule) classify(src string, keywords []string) error {
	kws := make([]string, len(keywords))
	for i, k := range keywords {
		kws[i] = strings.ToLower(k)
	}
	if len(kws) == 0 {
		return nil
	}
	if body, ok := strings.CutPrefix(src, templatePrefix); ok && strings.HasPrefix(body, "(?:") {
		return r.classifyAssign(body, kws)
	}
	re, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		return nil
	}
	lits, _ := prefixes(re)
	var anchors []anchor
	for _, l := range lits {
		found := false
		ls := strings.ToLower(l.s)
		for _, k := range kws {
			for off := 0; off+len(k) <= len(ls); off++ {
				if ls[off:off+len(k)] == k {
					anchors = append(anchors, anchor{l, k, off})
					found = true
				}
			}
		}
		if !found {
			r.lits = shortLits(lits, 4) // a windowed rule still needs one of them in its window
			return nil
		}
	}
	if err := r.anchor(src); err != nil {
		return err
	}
	if onRE2, ok := r.re.(*re2.Regexp); ok {
		if r.gap, err = gapLead(re, onRE2); err != nil {
			return err
		}
	}
	_, r.most = lengths(re)
	r.anchors = anchors
	r.leadKnown = r.leadingSecret(re)
	r.need = needOf(re)
	r.kind = kindStart
	return nil
}

// need is a literal every match of a kindStart rule holds after its
// start, at most within bytes of it: "PRIVATE KEY" in private-key's
// -----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY…. Where it does not stand, the
// regex is not run: 4 KiB of "-----BEGIN " took 1.1 ms, every hit
// backtracking over the hundred bytes after it, and a MiB request of such
// strings a quarter of a second. Found by one search that the hits share
// (needMemo), so dense hits cost one pass.
type need struct {
	lit    string // lower case when fold
	fold   bool
	within int // bytes from the match's start to the literal's start, at most
}

// needOf finds the first literal of at least four ASCII characters that
// every match of re holds, at a bounded distance from its start.
func needOf(re *syntax.Regexp) *need {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	if re.Op != syntax.OpConcat {
		return nil
	}
	dist := 0
	for i, sub := range re.Sub {
		if i > 0 && sub.Op == syntax.OpLiteral && len(sub.Rune) >= 4 {
			var b strings.Builder
			for _, c := range sub.Rune {
				if c >= utf8.RuneSelf {
					return nil
				}
				b.WriteRune(c)
			}
			n := &need{lit: b.String(), fold: sub.Flags&syntax.FoldCase != 0, within: dist}
			if n.fold {
				n.lit = strings.ToLower(n.lit)
			}
			return n
		}
		_, most := lengths(sub)
		if most == unbounded {
			return nil
		}
		// lengths counts a rune outside ASCII as up to utf8.UTFMax bytes.
		dist += most
	}
	return nil
}

// placeMemo keeps one search's answer for hits that come in order: the
// first place at or after from where what it looks for stands (at; past
// the text when nowhere). That answer holds for every start up to at, so
// a run of hits costs one search, not one each. needMemo, tailMemo and
// flagMemos keep their places so.
type placeMemo struct {
	from, at int
	ok       bool
}

// next is the place at or after pos: the kept one when it holds, else
// find(pos), kept.
func (m *placeMemo) next(pos int, find func(from int) int) int {
	if !m.ok || pos < m.from || pos > m.at {
		m.from, m.at, m.ok = pos, find(pos), true
	}
	return m.at
}

// needMemo keeps where the literal next starts (or len(s) when it does
// not), and likewise the first byte outside ASCII, which may fold to one
// of the literal's (U+212A is k).
type needMemo struct {
	place          placeMemo
	wideFrom, wide int
	wideOK         bool
}

// near reports whether a match starting at pos, read up to end, may hold
// the literal.
func (n *need) near(s string, pos, end int, m *needMemo) bool {
	limit := min(end, pos+n.within+len(n.lit))
	at := m.place.next(pos, func(from int) int { return n.index(s, from) })
	if at+len(n.lit) <= limit {
		return true
	}
	if n.fold {
		if !m.wideOK || pos < m.wideFrom || pos > m.wide {
			w := pos
			for w < len(s) && s[w] < utf8.RuneSelf {
				w++
			}
			m.wideFrom, m.wide, m.wideOK = pos, w, true
		}
		return m.wide < limit
	}
	return false
}

// index is where n's literal first starts at or after pos, or len(s).
func (n *need) index(s string, pos int) int {
	if n.fold {
		for i := pos; i+len(n.lit) <= len(s); i++ {
			if lower(s[i]) == n.lit[0] && strings.EqualFold(s[i:i+len(n.lit)], n.lit) {
				return i
			}
		}
	} else if i := strings.Index(s[pos:], n.lit); i >= 0 {
		return pos + i
	}
	return len(s)
}

// anchor is a literal that can start a match, with one of the rule's
// keywords off bytes into it: a hit of that keyword at h puts the match's
// start at h-off.
type anchor struct {
	lit lit
	kw  string
	off int
}

// startsWithKeyword reports whether one of kws is a prefix of s
// (keywords match ASCII case-insensitively, so s is lowered to compare).
func startsWithKeyword(s string, kws []string) bool {
	ls := strings.ToLower(s)
	for _, k := range kws {
		if strings.HasPrefix(ls, k) {
			return true
		}
	}
	return false
}

// classifyAssign handles gitleaks' key-context template: body is the
// regex after its name prefix, starting with the keyword group.
func (r *leakRule) classifyAssign(body string, kws []string) error {
	i := strings.Index(body, valueHead)
	if i < 0 || !strings.HasSuffix(body, valueTerm) || groupEnd(body) != i {
		return nil
	}
	if whole, err := syntax.Parse("(?i)"+body, syntax.Perl); err != nil || whole.Op == syntax.OpAlternate {
		return nil // the template is one alternative of several
	}
	group, err := syntax.Parse("(?i)"+body[:i], syntax.Perl)
	if err != nil {
		return nil
	}
	lits, exact := prefixes(group)
	if !exact {
		return nil
	}
	r.kwMin, r.kwMax = maxLitLen+1, 0
	for _, l := range lits {
		if !startsWithKeyword(l.s, kws) || l.s == "" {
			return nil
		}
		for k := 0; k < len(l.s); k++ {
			if !nameTable[l.s[k]] {
				return nil // a keyword form the name scan would not pass over
			}
		}
		r.kwMin, r.kwMax = min(r.kwMin, len(l.s)), max(r.kwMax, len(l.s))
	}
	secretSrc := body[i+len(valueHead) : len(body)-len(valueTerm)]
	secret, err := syntax.Parse("(?i)(?:"+secretSrc+")", syntax.Perl)
	if err != nil {
		return nil
	}
	if !byteSet(secret, &r.secret) {
		return nil
	}
	r.secretMin, _ = lengths(secret)
	r.shapes = shapesOf(secret)
	r.term = true
	for _, b := range []byte("`'\"\t\n\f\r ;\\") {
		if r.secret[b] {
			r.term = false
		}
	}
	if err := r.anchor("(?i)" + body); err != nil {
		return err
	}
	r.kind = kindAssign
	return nil
}

// anchor compiles the anchored forms of src on Go's regexp.
func (r *leakRule) anchor(src string) error {
	at, err := stdregexp.Compile(`^(?s:.)(?:` + src + `)`)
	if err != nil {
		return err
	}
	atStart, err := stdregexp.Compile(`^(?:` + src + `)`)
	if err != nil {
		return err
	}
	r.at, r.atStart = at, atStart
	return nil
}

// matchAt runs the anchored regex at s[pos:end] and returns the match's
// submatch indexes in s, or nil.
func (r *leakRule) matchAt(s string, pos, end int) []int {
	var m []int
	if pos == 0 {
		m = r.atStart.FindStringSubmatchIndex(s[:end])
	} else {
		m = r.at.FindStringSubmatchIndex(s[pos-1 : end])
		if m != nil {
			for k := range m {
				if m[k] >= 0 {
					m[k] += pos - 1
				}
			}
			m[0] = pos
		}
	}
	return m
}

// matchFrom is matchAt for a rule with a gap (gapRule): matchAt runs
// only where two quick checks leave a match possible. The lead must match
// at pos, on the backtracker; then RE2's automaton finds where the
// leftmost match in s[pos-1:end] starts, and a match starting at pos is
// the leftmost unless one starts at pos-1, so a later start (or none)
// means none at pos. Before RE2, a literal that starts what follows the
// gap must stand in the window (tailMemo): "curl curl …" has no -u, -H,
// --user or --header for curl's rules, and costs no call into RE2.
// TestMatchFromIsMatchAt holds it to matchAt, and
// TestTextMatchesReference the whole pipeline to one on Go's regexp alone.
func (r *leakRule) matchFrom(s string, pos, end int, tm *tailMemo) []int {
	from := max(0, pos-1)
	if !r.gap.lead(s, pos, end) {
		return nil
	}
	if len(r.gap.tail) > 0 && tm.next(s, pos, r.gap.tail) >= end {
		return nil // what follows the gap starts with a tail literal, and none stands in the window
	}
	if !utf8.ValidString(s[from:end]) {
		// RE2 reads no invalid byte as a character, where Go's regexp
		// reads it as U+FFFD: private-key's [\s\S]*? did not cross one.
		return r.matchAt(s, pos, end)
	}
	if loc := r.gap.re.FindStringIndex(s[from:end]); loc == nil || from+loc[0] > pos {
		return nil
	}
	return r.matchAt(s, pos, end)
}

// gapRule is what matchFrom needs of a rule whose regex opens with a lead
// and then a gap of nearly any bytes (curl-auth-user's \bcurl\b.*…,
// mysql-password-flag's \bmysql\b[^\n]{0,200}?…). Where such a match
// fails, Go's backtracker visits each of the program's instructions at
// each byte of the window: 32 KiB of "curl -H a:{" ran curl-auth-header's
// 343 instructions over 384 bytes at each of its 2,978 hits, 13 µs a hit
// (154 ms for the text), where RE2's automaton reads the window once in
// 2 µs. But a call into RE2 costs about half a microsecond however little
// it reads, and most hits in a text fail at the lead (mysql-password-flag
// at every "9mysql": 0.05 µs on the backtracker), so the lead is asked
// first. And where a match starts at the hit, the backtracker finds it
// cheaply (0.4 µs, mysql -p…) where RE2 took 7 µs for its groups.
type gapRule struct {
	at, atStart *stdregexp.Regexp // the lead, anchored (as leakRule's at, atStart)
	re          *re2.Regexp       // the rule's regex
	tail        []lit             // literals one of which starts what follows the gap (nil: unknown)
}

// lead reports whether the lead matches at pos (reading no further than
// end), as every match starting there needs.
func (g *gapRule) lead(s string, pos, end int) bool {
	if pos == 0 {
		return g.atStart.MatchString(s[:end])
	}
	return g.at.MatchString(s[pos-1 : end])
}

// gapLead returns the gap rule of a kindStart regex whose engine is RE2,
// or nil: a regex that opens with something (the lead) and then a gap,
// a part that can run over more than ruleBefore bytes of any byte but a
// few (wideGap).
func gapLead(re *syntax.Regexp, whole *re2.Regexp) (*gapRule, error) {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	if re.Op != syntax.OpConcat {
		return nil, nil
	}
	for i := 1; i < len(re.Sub); i++ {
		if !wideGap(re.Sub[i]) {
			continue
		}
		src := (&syntax.Regexp{Op: syntax.OpConcat, Sub: re.Sub[:i]}).String()
		at, err := stdregexp.Compile(`^(?s:.)(?:` + src + `)`)
		if err != nil {
			return nil, err
		}
		atStart, err := stdregexp.Compile(`^(?:` + src + `)`)
		if err != nil {
			return nil, err
		}
		return &gapRule{at: at, atStart: atStart, re: whole, tail: tailLits(re.Sub[i+1:])}, nil
	}
	return nil, nil
}

// tailLits are literals one of which starts every match of the
// concatenation subs: those of its longest leading part (a longer literal
// is a rarer one) that has at most maxTailLits of them, each at least two
// bytes long; nil when no part has.
func tailLits(subs []*syntax.Regexp) []lit {
	var best []lit
	for k := 1; k <= len(subs); k++ {
		lits, exact := prefixes(&syntax.Regexp{Op: syntax.OpConcat, Sub: subs[:k]})
		if len(lits) > maxTailLits {
			break
		}
		if !slices.ContainsFunc(lits, func(l lit) bool { return len(l.s) < 2 }) {
			best = lits
		}
		if !exact {
			break
		}
	}
	return best
}

// maxTailLits bounds a gap rule's tail literals (tailMemo keeps a place
// for each).
const maxTailLits = 16

// tailMemo keeps, for one gap rule's hits in one text, where each of its
// tail literals next stands (lit.next, or len(s)+1).
type tailMemo struct {
	place [maxTailLits]placeMemo
}

// next is the first place at or after pos where one of tail stands, or
// len(s)+1.
func (m *tailMemo) next(s string, pos int, tail []lit) int {
	first := len(s) + 1
	for k, l := range tail {
		first = min(first, m.place[k].next(pos, func(from int) int { return l.next(s, from) }))
	}
	return first
}

// wideGap reports whether re can run over more than ruleBefore bytes, of
// all ASCII bytes but at most a few.
func wideGap(re *syntax.Regexp) bool {
	if _, most := lengths(re); most != unbounded && most <= ruleBefore {
		return false
	}
	var set [256]bool
	if !byteSet(re, &set) {
		return true
	}
	n := 0
	for _, in := range set[:utf8.RuneSelf] {
		if in {
			n++
		}
	}
	return n >= utf8.RuneSelf-8
}

// startEnd is where a kindStart rule's anchored regex stops reading for a
// hit at pos: past its longest match, or ruleAfter bytes on.
func (r *leakRule) startEnd(s string, pos, kwLen int) int {
	if r.most != unbounded && r.most < ruleAfter {
		return min(len(s), pos+r.most+1)
	}
	return min(len(s), pos+kwLen+ruleAfter)
}

// startsOf appends to cands the match starts that a hit of a keyword
// (kwLen bytes) at pos implies, where the literal that goes with it
// stands: anchors are those of r whose keyword it is (ruleSet.kwAnchors).
func (r *leakRule) startsOf(s string, pos, kwLen int, anchors []anchor, c candidate, cands []candidate) []candidate {
	for _, a := range anchors {
		start := pos - a.off
		if start < 0 || !a.lit.at(s, start) {
			continue
		}
		c.pos = start
		c.end = r.startEnd(s, start, kwLen)
		cands = append(cands, c)
	}
	return cands
}

// inWindow reports whether one of a windowed rule's literal prefixes
// occurs in w, which any match in w needs. A rule with no known prefix is
// always run.
func (r *leakRule) inWindow(w string) bool {
	if slices.ContainsFunc(r.lits, func(l lit) bool { return l.s == "" }) {
		return true
	}
	return anyLitIn(r.lits, w)
}

// litCursor answers inWindow for the windows of one rule's candidates in
// the order run visits them, whose starts never decrease. The keyword pass
// finds the rule's literals too (ruleSet.addLitWords), ASCII case
// insensitively, so every place a literal stands is among its hits; the
// cursor walks each literal's hits once, in order, keeping for each the
// first place at or after the last window's start where the literal
// stands (l.at checks the case of the bytes that do not fold). A literal
// lies in a window when that place ends by the window's end.
// TestLitCursorMatchesInWindow holds it to inWindow.
type litCursor struct {
	next [8]int     // per literal: that place, len(s)+1 when there is none, -1 before the first look
	pos  [8][]int32 // per literal: its hits, sorted
	at   [8]int     // per literal: the first hit not yet passed
	on   bool       // the rule has literals, they fit next and none is empty
}

// litCursorOn reports whether the cursor handles a rule with these
// literals (otherwise inWindow searches each window).
func litCursorOn(lits []lit) bool {
	return len(lits) > 0 && len(lits) <= 8 && !slices.ContainsFunc(lits, func(l lit) bool { return l.s == "" })
}

// reset readies the cursor for rule r, whose literals' hits candidates
// left in sc.
func (lc *litCursor) reset(r *leakRule, sc *scratch) {
	lc.on = litCursorOn(r.lits)
	for k := range lc.next {
		lc.next[k], lc.at[k], lc.pos[k] = -1, 0, nil
	}
	if !lc.on {
		return
	}
	for k := range r.lits {
		p := sc.litPos[r.litSlot[k]]
		if !slices.IsSorted(p) {
			slices.Sort(p)
		}
		lc.pos[k] = p
	}
}

// inWindow is r.inWindow(s[w.from:w.to]) for a window whose start is not
// before the last one's.
func (lc *litCursor) inWindow(r *leakRule, s string, w span) bool {
	if !lc.on {
		return r.inWindow(s[w.from:w.to])
	}
	for k, l := range r.lits {
		q := lc.next[k]
		if q < w.from {
			p, a := lc.pos[k], lc.at[k]
			for a < len(p) && (int(p[a]) < w.from || !l.at(s, int(p[a]))) {
				a++
			}
			lc.at[k] = a
			q = len(s) + 1
			if a < len(p) {
				q = int(p[a])
			}
			lc.next[k] = q
		}
		if q+len(l.s) <= w.to {
			return true
		}
	}
	return false
}

// Byte classes of gitleaks' key-context template.
var (
	nameTable    = byteTable(func(b byte) bool { return wordByte(b) || b == '.' || b == '-' })
	nameGapTable = byteTable(func(b byte) bool { // [ \t\w.-] and [\s'"]
		return nameTable[b] || regexSpace(b) || b == '\'' || b == '"'
	})
	valueGapTable = byteTable(func(b byte) bool { // [\x60'"\s=]
		return regexSpace(b) || b == '`' || b == '\'' || b == '"' || b == '='
	})
	termTable = byteTable(func(b byte) bool { // [\x60'"\s;]
		return regexSpace(b) || b == '`' || b == '\'' || b == '"' || b == ';'
	})
)

// regexSpace is \s in RE2 syntax.
func regexSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\f' || b == '\r' }

func byteTable(f func(byte) bool) (t [256]bool) {
	for b := 0; b < 256; b++ {
		t[b] = f(byte(b))
	}
	return t
}

// assignEnd is the byte scan that gates a kindAssign rule at a keyword
// starting at pos. It follows every way the template can get from the
// keyword to an operator (name bytes, spaces and quotes), every operator
// there, every run of up to five quotes, spaces or '=' after it, and
// requires a run of the secret's bytes at least secretMin long, followed
// by a terminator when no secret byte can start one. It returns how far a
// match can reach (the regex then reads no further) and the stretch the
// secret must lie in, or false when the regex cannot match with its
// keyword here. It only ever says yes where the regex may match, never no
// where it does.
func (r *leakRule) assignEnd(s string, pos int, runs *runEnd) (reach, bool) {
	rc := reach{end: -1, from: len(s)}
	from := pos + r.kwMin
	limit := min(len(s), pos+r.kwMax+20+3+1)
	// The gap bytes between the keyword and the operator are none of
	// the operators' bytes: skip them, and try the operators at the first
	// other byte (the scan ends there).
	o := from
	for o < limit && nameGapTable[s[o]] {
		o++
	}
	if o < limit {
		switch s[o] {
		case '=':
			r.secretAfter(s, o+1, &rc, runs)
			if o+1 < len(s) && s[o+1] == '>' {
				r.secretAfter(s, o+2, &rc, runs)
			}
		case '>', ',':
			r.secretAfter(s, o+1, &rc, runs)
		case ':':
			r.secretAfter(s, o+1, &rc, runs)
			for c := 1; c <= 3 && o+c < len(s) && s[o+c-1] == ':'; c++ {
				if s[o+c] == '=' {
					r.secretAfter(s, o+c+1, &rc, runs)
				}
			}
		case '|':
			if o+1 < len(s) && s[o+1] == '|' {
				r.secretAfter(s, o+2, &rc, runs)
			}
		case '?':
			if o+1 < len(s) && s[o+1] == '=' {
				r.secretAfter(s, o+2, &rc, runs)
			}
		}
	}
	return rc, rc.end >= 0
}

// reach is what the gate found: a match ends by end, and its secret lies
// in [from, to).
type reach struct{ end, from, to int }

// secretAfter looks for the secret after an operator ending at p and
// widens rc to every place it can be.
func (r *leakRule) secretAfter(s string, p int, rc *reach, runs *runEnd) {
	for j := 0; j <= 5 && p+j <= len(s); j++ {
		if j > 0 && !valueGapTable[s[p+j-1]] {
			break
		}
		ss := p + j
		e := runs.end(s, ss, &r.secret)
		if e-ss < r.secretMin {
			continue
		}
		if r.term && !termAt(s, e) {
			continue
		}
		if r.term && r.shapes != nil && !r.shapes.fit(s, ss, e) {
			continue
		}
		rc.end = max(rc.end, min(len(s), e+2))
		rc.from, rc.to = min(rc.from, ss), max(rc.to, e)
	}
}

// secretShapes are the alternatives of a kindAssign rule's secret, each
// a sequence of byte classes repeated between min and max times: when no
// secret byte is a terminator, the secret must be the whole run of its
// bytes from where it starts, so the gate can check that run against the
// forms the secret takes rather than only its bytes and fewest bytes. That
// is what keeps generic-api-key from running its regex at every hit of
// "key=key=key=…" (the run is all secret bytes, but '=' stands only at the
// end of one form and the other is at most 150 bytes long): 32 KiB of it
// cost 100 ms, a MiB request of such strings 2.5 s. nil when a form is not
// such a sequence (a nested alternation, an assertion, a class repeated
// beside an overlapping one), and then only the bytes are checked.
type secretShapes []secretShape

type secretShape []shapeSeg

// shapeSeg is one class of a secretShape, repeated min to max times (max
// < 0: without bound). Where it repeats a variable number of times, no
// byte of the next segment's class is in its own, so reading its run as
// far as it goes is the only way to match.
type shapeSeg struct {
	set      *[256]bool
	min, max int
	// restMin and restMax bound the bytes this segment and those after it
	// take (restMax < 0: without bound), so a run that cannot be the rest
	// is refused without reading it.
	restMin, restMax int
}

func shapesOf(re *syntax.Regexp) secretShapes {
	alts := []*syntax.Regexp{re}
	if re.Op == syntax.OpAlternate {
		alts = re.Sub
	}
	var out secretShapes
	for _, a := range alts {
		sh, ok := shapeOf(a)
		if !ok {
			return nil
		}
		for i := 0; i+1 < len(sh); i++ {
			if sh[i].min != sh[i].max && overlap(sh[i].set, sh[i+1].set) {
				return nil
			}
		}
		least, most := 0, 0
		for i := len(sh) - 1; i >= 0; i-- {
			least += sh[i].min
			if most >= 0 && sh[i].max >= 0 {
				most += sh[i].max
			} else {
				most = -1
			}
			sh[i].restMin, sh[i].restMax = least, most
		}
		out = append(out, sh)
	}
	return out
}

func shapeOf(re *syntax.Regexp) (secretShape, bool) {
	switch re.Op {
	case syntax.OpCapture:
		return shapeOf(re.Sub[0])
	case syntax.OpEmptyMatch:
		return secretShape{}, true
	case syntax.OpConcat:
		var out secretShape
		for _, sub := range re.Sub {
			sh, ok := shapeOf(sub)
			if !ok {
				return nil, false
			}
			out = append(out, sh...)
		}
		return out, true
	case syntax.OpLiteral:
		out := make(secretShape, len(re.Rune))
		for i, r := range re.Rune {
			out[i] = shapeSeg{set: new([256]bool), min: 1, max: 1}
			markRune(out[i].set, r, re.Flags&syntax.FoldCase != 0)
		}
		return out, true
	case syntax.OpCharClass:
		seg := shapeSeg{set: new([256]bool), min: 1, max: 1}
		byteSet(re, seg.set)
		return secretShape{seg}, true
	case syntax.OpRepeat, syntax.OpStar, syntax.OpPlus, syntax.OpQuest:
		sub := re.Sub[0]
		if sub.Op != syntax.OpCharClass && (sub.Op != syntax.OpLiteral || len(sub.Rune) != 1) {
			return nil, false
		}
		seg := shapeSeg{set: new([256]bool)}
		byteSet(sub, seg.set)
		switch re.Op {
		case syntax.OpRepeat:
			seg.min, seg.max = re.Min, re.Max
		case syntax.OpStar:
			seg.min, seg.max = 0, -1
		case syntax.OpPlus:
			seg.min, seg.max = 1, -1
		case syntax.OpQuest:
			seg.min, seg.max = 0, 1
		}
		return secretShape{seg}, true
	}
	return nil, false
}

func overlap(a, b *[256]bool) bool {
	for i := range a {
		if a[i] && b[i] {
			return true
		}
	}
	return false
}

// fit reports whether s[p:e] may be the secret in one of its forms. A
// byte outside ASCII may belong to a longer rune (a class written with
// (?i) holds U+212A for k): there it says yes.
func (shs secretShapes) fit(s string, p, e int) bool {
	for _, sh := range shs {
		if sh.fit(s, p, e) {
			return true
		}
	}
	return false
}

func (sh secretShape) fit(s string, p, e int) bool {
	for _, seg := range sh {
		if e-p < seg.restMin || seg.restMax >= 0 && e-p > seg.restMax*utf8.UTFMax {
			return false
		}
		if seg.min == seg.max {
			for range seg.min {
				switch {
				case p >= e:
					return false
				case s[p] >= utf8.RuneSelf:
					return true
				case !seg.set[s[p]]:
					return false
				}
				p++
			}
			continue
		}
		q := p
		for q < e && (seg.max < 0 || q-p < seg.max) && s[q] < utf8.RuneSelf && seg.set[s[q]] {
			q++
		}
		if q < e && s[q] >= utf8.RuneSelf {
			return true
		}
		if q-p < seg.min {
			return false
		}
		p = q
	}
	return p == e
}

// termAt reports whether the template's terminator can match at p (the
// template is case-insensitive, so "\\N" counts as "\\n").
func termAt(s string, p int) bool {
	return p == len(s) || termTable[s[p]] || (s[p] == '\\' && p+1 < len(s) && (lower(s[p+1]) == 'n' || lower(s[p+1]) == 'r'))
}

// nameStart is where a key-context match whose keyword is at pos starts:
// as far back as the run of name bytes before it goes, at most
// templatePrefixMax bytes, and not before from (the end of the previous
// match), as FindAll's leftmost match would.
func nameStart(s string, pos, from int) int {
	q := pos
	for q > from && pos-q < templatePrefixMax && nameTable[s[q-1]] {
		q--
	}
	return q
}

// groupEnd returns the index after the group that opens s, or -1.
func groupEnd(s string) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				return i + 1
			}
		}
	}
	return -1
}

// skipCovered turns on the shortcut below (tests turn it off to compare).
var skipCovered = true

// covered reports whether whatever secret the rule can find at c lies,
// once widened to its token (see widen), inside one span the hand rules
// already redact, so that running the regex cannot change the text. It
// holds for a token the hand rules know (a JWT, sk-proj-…, ghp_…) that a
// gitleaks rule knows too.
//
// What it earns (issue 42): nothing a caller of Translate sees. With it
// turned off, gRPC Translate cold (a) ran 1.9% faster at 16 callers and
// 0.6% at 64, REST (c) 1.7% slower and 0.3% faster (bench/ab.sh, 5
// interleaved rounds, 2026-12-05; noise), and BenchmarkTextShort is the
// same (625 ns): a short message seldom holds a known token. It earns the
// sanitiser's goal a third of its time: Text 1 KiB 25.2 µs with it, 36.1
// without; 64 KiB 1.29 ms, 1.75 without; 1 MiB 22.7 ms, 29.8 without
// (medians of 5 interleaved), and up to half of a repeated token's
// (BenchmarkTextRepeated, ghp_ 12.5 ms, 19.4 without). Under the issue's
// rule as written (3% of a or c) it goes; it stays on the sanitiser's
// figure, which is the maintainers' call.
func (r *leakRule) covered(s string, c candidate, hand []span, rm *runMemo) bool {
	if len(hand) == 0 {
		return false
	}
	from, to := c.secretFrom, c.secretTo
	if r.kind == kindStart {
		if !r.leadKnown {
			return false
		}
		from, to = c.pos, rm.lead.end(s, c.pos, &r.lead)
	}
	from = rm.left.start(s, from)
	to = rm.token.end(s, to, &tokenTable)
	k, _ := slices.BinarySearchFunc(hand, from, func(sp span, v int) int { return sp.from - v })
	if k == len(hand) || hand[k].from != from {
		k--
	}
	return k >= 0 && hand[k].from <= from && hand[k].to >= to
}

// runMemo remembers, for one rule's candidates in one text, the runs
// covered last widened a candidate over: the candidates of one long token
// lie in one run, and reading the run anew for each would cost its length
// times their number (32 KiB of "xoxb-" took 137 ms).
//
// It bounds hostile input rather than speeding up the common case: the
// memo of secret runs in collectHits (secretRuns, from memoHits hits on)
// changes nothing on the bench mixes (Text 1 KiB to 1 MiB within noise,
// 2026-12-05) and keeps one repeated head's 32 KiB from costing 50 ms
// (BenchmarkTextRepeated: "api_key=" 1.1 ms with it, 52 ms without;
// "token=" 0.38 ms, 34 ms without).
type runMemo struct {
	lead, left, token runEnd
	// refusedTo: coveredRun walked a run of covered candidates up to the
	// candidate at this position and refused to skip it; a candidate
	// before it is refused at once (see coveredRun).
	refusedTo int
}

// runEnd is the last run read: from at to its far end, bound (ok once
// one is remembered).
type runEnd struct {
	at, bound int
	ok        bool
}

// end is the end of the run of in's bytes from p on: the remembered one
// when p lies within it (every byte from its at to its end is in in).
// A nil m remembers nothing.
func (m *runEnd) end(s string, p int, in *[256]bool) int {
	if m != nil && m.ok && m.at <= p && p <= m.bound {
		return m.bound
	}
	e := p
	for e < len(s) && in[s[e]] {
		e++
	}
	if m != nil {
		*m = runEnd{at: p, bound: e, ok: true}
	}
	return e
}

// start is the start of the run of widenLeft bytes that ends at p: the
// remembered one when every byte from its at up to p widens.
func (m *runEnd) start(s string, p int) int {
	f := p
	for f > 0 && widenLeft(s[f-1]) {
		if m.ok && f == m.at {
			f = m.bound
			break
		}
		f--
	}
	*m = runEnd{at: p, bound: f, ok: true}
	return f
}

// coveredRun returns how many of cands (from the first) can be skipped:
// a run of candidates whose secrets are all covered (see covered), after
// which the rule goes on as it would after any matches among them. Such
// matches end by the largest read bound of the run, so the next candidate
// must start at or after it, and (for the key-context template, whose
// match reaches back over name bytes but not before the previous match)
// start its match at the same place whether the previous match ended
// before the run or at that bound. It returns 0 when nothing is skipped.
//
// Refusing is always right (a candidate not skipped is matched, and the
// matches come to the same), so a refused run's later candidates are
// refused without walking it again: walked from each of them, a run of
// covered candidates that ends in a refusal (32 KiB of eyJ=" holds 6,553)
// was read in time quadratic in its length (40 ms).
func (r *leakRule) coveredRun(s string, cands []candidate, hand []span, prevEnd int, rm *runMemo) int {
	if cands[0].pos < rm.refusedTo {
		return 0
	}
	n, end := 0, 0
	for n < len(cands) && r.covered(s, cands[n], hand, rm) {
		end = max(end, cands[n].end)
		n++
	}
	if n == 0 {
		return 0
	}
	if n < len(cands) {
		next := cands[n].pos
		if next < end || (r.kind == kindAssign && nameStart(s, next, prevEnd) != nameStart(s, next, end)) {
			rm.refusedTo = next
			return 0
		}
	}
	return n
}

// leadingSecret fills r.lead with the bytes of the secret when the secret
// is known to start where the match starts: the regex has no group (the
// secret is the match), or its first element after zero-width assertions
// is group 1 and group 1 is the secret.
func (r *leakRule) leadingSecret(re *syntax.Regexp) bool {
	if re.MaxCap() == 0 {
		return byteSet(re, &r.lead)
	}
	if r.secretGroup > 1 || re.Op != syntax.OpConcat {
		return false
	}
	for _, sub := range re.Sub {
		switch sub.Op {
		case syntax.OpBeginText, syntax.OpBeginLine, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
			continue
		case syntax.OpCapture:
			if least, _ := lengths(sub); sub.Cap == 1 && least > 0 {
				return byteSet(sub, &r.lead)
			}
		}
		return false
	}
	return false
}
