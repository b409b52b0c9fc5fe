package sanitize

import (
	"cmp"
	_ "embed"
	"errors"
	"math"
	stdregexp "regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/viper"
	re2 "github.com/wasilibs/go-re2"
	"github.com/zricethezav/gitleaks/v8/config"
)

// The maintained rule set: gitleaks v8's default configuration (its
// config.DefaultConfig, the gitleaks.toml the gitleaks project keeps), read
// through gitleaks' own config package. Each rule is applied as gitleaks
// applies it to a file: its regex, its secret group (or the first non-empty
// group), its entropy threshold and its allowlists (regexes against the
// secret, the match or the line, and stop words); path- and commit-only
// allowlists do not apply to text. Only the secret itself is redacted.
//
// Speed: a rule runs only where one of its keywords occurs. One pass of a
// keyword automaton (keywordDFA) over the text finds every keyword, ASCII
// case-insensitively. What happens at a hit depends on the rule's shape,
// read off its regex when the rules are loaded (anchored.go):
//
//   - A rule every match of which starts with a literal that holds one of
//     its keywords (most token formats: ghp_…, \b(ey…, AKIA…, [?&]key=…)
//     is tried only at hits where such a literal stands, and then as the
//     regex anchored at the literal's start (with the byte before it as
//     context, so \b is exact) on Go's regexp: a call costs a few hundred
//     nanoseconds, not the microsecond a call into RE2's WebAssembly
//     module costs however little it does.
//   - A rule built on gitleaks' key-context template (up to 50 name bytes,
//     the keyword, up to 20 name bytes, up to 3 quotes or spaces, an
//     assignment operator, up to 5 quotes, spaces or '=', the secret, a
//     terminator) is tried only where a byte scan after the keyword finds
//     an operator and then a run of the secret's bytes at least as long as
//     its shortest form (followed by a terminator), and then as the regex
//     anchored at the keyword, reading no further than that run. Its match
//     starts where gitleaks' would: up to 50 name bytes before the
//     keyword, not before the previous match.
//   - Any other rule (few, with rare keywords) runs its regex on a window
//     of the text around each hit whose window holds one of the literals
//     its matches start with (see keywordWindow; overlapping windows are
//     merged), on RE2, the engine gitleaks' own builds use, when the regex
//     is too large for Go's regexp to be fast.
//
// An anchored rule is not run at all where the secret it could find lies,
// widened to its token, inside a span the hand rules already redact (a
// JWT after "Bearer", an sk-proj-… key): the text comes out the same (see
// covered). Allowlists try their stop words before their regexes, and a
// regex only when the target holds one of its literal prefixes.
//
// The anchored forms find what the regex finds on the whole text, the way
// FindAll does (leftmost first, one match after another); tests compare
// them on random text (TestRuleEngineMatchesRegex), and the pipeline with
// and without the shortcut (TestSkipCoveredChangesNothing). Rules without
// keywords run on the whole text (the default set has none).

// How far around a keyword a windowed rule's regex looks (see
// keywordWindow); ruleAfter also bounds how far an anchored rule with an
// unbounded repetition reads past its keyword.
const (
	ruleBefore = 64
	ruleAfter  = 384
)

// ruleKind says how a rule is tried at a keyword hit (see above).
type ruleKind uint8

const (
	kindWindow ruleKind = iota
	kindStart           // every match starts with a literal that holds a keyword
	kindAssign          // gitleaks' key-context template
)

type leakRule struct {
	id          string
	re          matcher
	secretGroup int
	entropy     float64
	allow       []allowlist
	generic     bool
	// assignment is set for windowed rules built on gitleaks' key-context
	// template: their match needs an operator byte within
	// assignmentReach bytes after the keyword.
	assignment bool

	kind ruleKind
	// at is the regex anchored after one byte of context, atStart the
	// regex anchored at the start of the text (kindStart, kindAssign).
	at, atStart *stdregexp.Regexp
	// kindStart: where a keyword hit puts a match's start (anchors), and
	// how long a match can be (most, or unbounded). For a windowed rule,
	// lits are the literals one of which starts every match (when known).
	anchors []anchor
	lits    []lit
	litSlot [8]int32 // per literal, its slot in ruleSet.litOf
	most    int
	// kindStart: lead holds the secret's bytes when leadKnown says the
	// secret starts where the match does (see covered).
	lead      [256]bool
	leadKnown bool
	// kindAssign: the keyword alternatives' shortest and longest forms, and
	// the bytes and fewest bytes of the secret; term is set when a
	// terminator must follow the secret's run of bytes.
	kwMin, kwMax int
	secret       [256]bool
	secretMin    int
	term         bool
	// shapes are the secret's forms, when they are sequences of classes.
	shapes secretShapes
	// need is a literal every kindStart match holds (nil: none known).
	need *need
	// gap is set for a kindStart rule on RE2 whose regex opens with a
	// lead and a gap (gapLead): its hits are matched by matchFrom.
	gap *gapRule
}

// The parts of gitleaks' key-context template.
const (
	templatePrefix = `(?i)[\w.-]{0,50}?`
	valueHead      = assignmentTemplate + "[\\x60'\"\\s=]{0,5}("
	valueTerm      = `)(?:[\x60'"\s;]|\\[nr]|$)`
)

// templatePrefixMax is how many name bytes the template allows before its
// keyword.
const templatePrefixMax = 50

// assignmentTemplate is the part of gitleaks' key-context rules that sits
// between the keyword and the secret.
const assignmentTemplate = `(?:[ \t\w.-]{0,20})[\s'"]{0,3}(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)`

// assignmentReach bounds where the template's operator can start after
// the end of a keyword hit: 20 + 3 bytes, plus slack for a regex keyword
// that ends later than the keyword found.
const assignmentReach = 40

// operatorNear reports whether one of the template's operator bytes occurs
// in s[from:from+assignmentReach].
func operatorNear(s string, from int) bool {
	to := min(len(s), from+assignmentReach)
	for i := from; i < to; i++ {
		switch s[i] {
		case '=', '>', ':', '|', '?', ',':
			return true
		}
	}
	return false
}

// matcher is the part of a regex engine a rule needs; both Go's regexp
// and go-re2 have it.
type matcher interface {
	FindAllStringSubmatchIndex(s string, n int) [][]int
	MatchString(s string) bool
	String() string
}

// smallProgram is the largest compiled program (in instructions) that a
// windowed rule or an allowlist runs on Go's regexp: on a few hundred
// bytes it beats a call into RE2's WebAssembly module, which costs about a
// microsecond however little it does. Larger programs (gitleaks' counted
// classes, key-context preambles) run on RE2.
const smallProgram = 120

// compileRule picks the engine for one rule's regex.
func compileRule(src string) (matcher, error) {
	if re, err := syntax.Parse(src, syntax.Perl); err == nil {
		if prog, err := syntax.Compile(re.Simplify()); err == nil && len(prog.Inst) <= smallProgram {
			return stdregexp.Compile(src)
		}
	}
	return re2.Compile(src)
}

type ruleSet struct {
	rules    []leakRule
	always   []int    // rules without keywords
	keywords []string // lower case: the rules' keywords, then the literals of litOf
	byKW     [][]int  // keyword index -> rule indexes
	// kwAnchors[k][j] are the anchors of rule byKW[k][j] (kindStart)
	// whose keyword is keywords[k], in the rule's order: a hit tries only
	// those, without comparing every anchor's keyword with its own
	// (url-query-key has 22 anchors over 7 keywords).
	kwAnchors [][][]anchor
	kw        *keywordDFA
	// ruleKeywords is how many of keywords are rules' keywords. The
	// automaton also finds the windowed rules' literals (see litCursor):
	// litOf maps a keyword index to its literal's slot, or -1, and nLits
	// counts the slots.
	ruleKeywords int
	litOf        []int32
	nLits        int
	global       []allowlist
	err          error
}

// errsvcRules are errsvc's own rules in gitleaks' format (errsvc_rules.toml).
//
//go:embed errsvc_rules.toml
var errsvcRules string

var (
	rulesOnce sync.Once
	rules     *ruleSet
)

// loadRules reads gitleaks' default config once.
func loadRules() *ruleSet {
	rulesOnce.Do(func() {
		rules = buildRules()
	})
	return rules
}

// RuleCount is the number of gitleaks rules in force (for tests and docs).
func RuleCount() int { return len(loadRules().rules) }

// RulesError reports a failure to load the gitleaks rules; redaction then
// still runs the hand rules.
func RulesError() error { return loadRules().err }

// readConfig parses a gitleaks TOML configuration with gitleaks' own code.
func readConfig(toml string) (config.Config, error) {
	v := viper.New()
	v.SetConfigType("toml")
	if err := v.ReadConfig(strings.NewReader(toml)); err != nil {
		return config.Config{}, err
	}
	var vc config.ViperConfig
	if err := v.Unmarshal(&vc); err != nil {
		return config.Config{}, err
	}
	return vc.Translate()
}

func buildRules() *ruleSet {
	rs := &ruleSet{}
	cfg, err := readConfig(config.DefaultConfig)
	if err != nil {
		rs.err = err
		return rs
	}
	own, err := readConfig(errsvcRules)
	if err != nil {
		rs.err = err
		return rs
	}
	for _, id := range own.OrderedRules {
		cfg.Rules[id] = own.Rules[id]
		cfg.OrderedRules = append(cfg.OrderedRules, id)
	}
	rs.global = compileAllowlists(cfg.Allowlists, &rs.err)
	kwIndex := map[string]int{}
	for _, id := range cfg.OrderedRules {
		r := cfg.Rules[id]
		if r.Regex == nil || excludedRules[id] {
			continue
		}
		re, err := compileRule(r.Regex.String())
		if err != nil {
			rs.err = err
			continue
		}
		lr := leakRule{
			id:          id,
			re:          re,
			secretGroup: r.SecretGroup,
			entropy:     r.Entropy,
			allow:       compileAllowlists(r.Allowlists, &rs.err),
			generic:     strings.HasPrefix(id, "generic"),
			assignment:  strings.Contains(r.Regex.String(), assignmentTemplate) && keywordsInRegex(r.Regex.String(), r.Keywords),
		}
		if err := lr.classify(r.Regex.String(), r.Keywords); err != nil {
			rs.err = err
		}
		idx := len(rs.rules)
		rs.rules = append(rs.rules, lr)
		if len(r.Keywords) == 0 {
			rs.always = append(rs.always, idx)
			continue
		}
		for _, k := range r.Keywords {
			k = strings.ToLower(k)
			ki, ok := kwIndex[k]
			if !ok {
				ki = len(rs.keywords)
				kwIndex[k] = ki
				rs.keywords = append(rs.keywords, k)
				rs.byKW = append(rs.byKW, nil)
			}
			if !slices.Contains(rs.byKW[ki], idx) {
				rs.byKW[ki] = append(rs.byKW[ki], idx)
			}
		}
	}
	rs.ruleKeywords = len(rs.keywords)
	rs.addLitWords(kwIndex)
	rs.kwAnchors = make([][][]anchor, len(rs.keywords))
	for k, ris := range rs.byKW {
		rs.kwAnchors[k] = make([][]anchor, len(ris))
		for j, ri := range ris {
			for _, a := range rs.rules[ri].anchors {
				if a.kw == rs.keywords[k] {
					rs.kwAnchors[k][j] = append(rs.kwAnchors[k][j], a)
				}
			}
		}
	}
	if rs.kw = newKeywordDFA(rs.keywords); rs.kw == nil {
		rs.err = errors.New("sanitize: too many gitleaks keywords for the keyword automaton")
	}
	return rs
}

// addLitWords adds to the keywords the literals of the windowed rules
// whose literal cursor is on (see litCursor), so that the keyword pass
// finds them too, and gives each distinct literal a slot. A literal that is
// a keyword already shares its index; one that is not gets no rules.
func (rs *ruleSet) addLitWords(kwIndex map[string]int) {
	for ri := range rs.rules {
		r := &rs.rules[ri]
		if r.kind != kindWindow || !litCursorOn(r.lits) {
			continue
		}
		for k, l := range r.lits {
			w := strings.ToLower(l.s)
			ki, ok := kwIndex[w]
			if !ok {
				ki = len(rs.keywords)
				kwIndex[w] = ki
				rs.keywords = append(rs.keywords, w)
				rs.byKW = append(rs.byKW, nil)
			}
			for len(rs.litOf) < len(rs.keywords) {
				rs.litOf = append(rs.litOf, -1)
			}
			if rs.litOf[ki] < 0 {
				rs.litOf[ki] = int32(rs.nLits)
				rs.nLits++
			}
			r.litSlot[k] = rs.litOf[ki]
		}
	}
	for len(rs.litOf) < len(rs.keywords) {
		rs.litOf = append(rs.litOf, -1)
	}
}

// keywordsInRegex reports whether the regex's keyword group, the
// alternation before the template, holds only alternatives that contain
// one of the rule's keywords, so that every match starts from a keyword
// hit whose window and operator check cover it.
func keywordsInRegex(re string, keywords []string) bool {
	end := strings.Index(re, assignmentTemplate)
	if end <= 0 || re[end-1] != ')' || len(keywords) == 0 {
		return false
	}
	// The group closing at end-1, found by counting parentheses back.
	depth, start := 0, -1
	for i := end - 1; i >= 0; i-- {
		switch re[i] {
		case ')':
			depth++
		case '(':
			depth--
		}
		if depth == 0 {
			start = i
			break
		}
	}
	if start < 0 {
		return false
	}
	group := re[start+1 : end-1]
	group = strings.TrimPrefix(group, "?:")
	// Top-level alternatives.
	var alts []string
	depth, from := 0, 0
	for i := 0; i < len(group); i++ {
		switch group[i] {
		case '(':
			depth++
		case ')':
			depth--
		case '|':
			if depth == 0 {
				alts = append(alts, group[from:i])
				from = i + 1
			}
		}
	}
	alts = append(alts, group[from:])
	for _, alt := range alts {
		alt = charClass.ReplaceAllString(alt, "$1")
		alt = strings.ToLower(strings.NewReplacer("(?-i:", "", "(?i:", "", "(?:", "", ")", "", "?", "", "\\", "").Replace(alt))
		found := false
		for _, k := range keywords {
			if strings.Contains(alt, k) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// charClass is a bracket expression; its first member stands for it when
// comparing a regex keyword with the rule's keywords ([Aa]pi reads api).
var charClass = stdregexp.MustCompile(`\[(.)[^\]]*\]`)

// excludedRules are default rules that only make sense on files: they
// match ordinary error text (a file name, a JSON field) rather than a
// secret.
var excludedRules = map[string]bool{}

// span is a byte range of the text to redact.
type span struct{ from, to int }

// ruleSpans appends to out the secrets the gitleaks rules find in view
// (a same-length copy of the text with escapes decoded; see escapeView),
// in order and without overlaps.
func ruleSpans(view string, sc *scratch, out []span) []span {
	rs := loadRules()
	if rs.kw == nil || len(view) == 0 {
		return out
	}
	first := len(out)
	cands := rs.candidates(view, sc)
	for i := 0; i < len(cands); {
		j := i + 1
		for j < len(cands) && cands[j].rule == cands[i].rule {
			j++
		}
		out = rs.rules[cands[i].rule].run(view, cands[i:j], rs.global, out[:first], out, sc)
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

// candidates returns the places where each rule is tried in view, sorted
// by rule and position: the keyword hits that pass the rule's cheap check.
func (rs *ruleSet) candidates(view string, sc *scratch) []candidate {
	sc.cands = rs.collect(view, sc)
	sortCandidates(sc.cands, sc)
	return sc.cands
}

// collect returns the candidates of candidates, in the keyword pass's
// order, and leaves the literals' hits in sc.litPos.
func (rs *ruleSet) collect(view string, sc *scratch) []candidate {
	sc.hits = rs.kw.find(view, sc.hits[:0])
	return rs.collectHits(view, sc)
}

// collectHits is collect with the keyword hits already in sc.hits.
func (rs *ruleSet) collectHits(view string, sc *scratch) []candidate {
	cands := rs.litHits(sc, sc.cands[:0])
	runs := sc.secretRuns(rs, len(sc.hits))
	for _, h := range sc.hits {
		cands = rs.collectHit(view, h, cands, runs)
	}
	return rs.alwaysCands(view, cands)
}

// litHits fills sc.litPos from the hits in sc.hits and returns cands.
func (rs *ruleSet) litHits(sc *scratch, cands []candidate) []candidate {
	if len(sc.litPos) < rs.nLits {
		sc.litPos = make([][]int32, rs.nLits)
	}
	for k := range sc.litPos {
		sc.litPos[k] = sc.litPos[k][:0]
	}
	for _, h := range sc.hits {
		if slot := rs.litOf[h.kw]; slot >= 0 {
			sc.litPos[slot] = append(sc.litPos[slot], h.pos)
		}
	}
	return cands
}

// alwaysCands appends the candidates of the rules without keywords.
func (rs *ruleSet) alwaysCands(view string, cands []candidate) []candidate {
	for _, ri := range rs.always {
		cands = append(cands, candidate{rule: ri, pos: 0, end: len(view), whole: true})
	}
	return cands
}

// collectHit appends the candidates of one keyword hit.
//
// runs, when not nil, holds per rule the last run of its secret's bytes
// assignEnd read (see runMemo).
func (rs *ruleSet) collectHit(view string, h kwHit, cands []candidate, runs []runEnd) []candidate {
	pos := int(h.pos)
	kw := rs.keywords[h.kw]
	kwLen := len(kw)
	for j, ri := range rs.byKW[h.kw] {
		r := &rs.rules[ri]
		c := candidate{rule: ri, pos: pos, kwLen: kwLen}
		switch r.kind {
		case kindStart:
			anchors := rs.kwAnchors[h.kw][j]
			cands = r.startsOf(view, pos, kwLen, anchors, c, cands)
			continue
		case kindAssign:
			var memo *runEnd
			if runs != nil {
				memo = &runs[ri]
			}
			rc, ok := r.assignEnd(view, pos, memo)
			if !ok {
				continue
			}
			c.end, c.secretFrom, c.secretTo = rc.end, rc.from, rc.to
		default:
			if r.assignment {
				if !operatorNear(view, pos+kwLen) {
					continue
				}
			}
		}
		cands = append(cands, c)
	}
	return cands
}

// sortCandidates sorts cands by cmpCandidates. Many candidates (a text
// of one keyword repeated) are sorted by rule and position packed into
// one integer each, and only the few that share both are compared whole:
// one comparison sort of them all was 42% of the time 32 KiB of
// "xoxb-+%41" cost (29 sorts of up to 7,282 candidates, which the keyword
// pass yields in the order of two interleaved walks); 23 ms now, against
// 36. A translation's texts have fewer than packCandidates, and the Text
// mix of 1 KiB to 1 MiB reads the same (within 2%, 6 interleaved pairs):
// what this earns is a hostile text's bound (docs/SECURITY.md, "Known
// gaps"), not a figure of scenarios a or c.
func sortCandidates(cands []candidate, sc *scratch) {
	n := len(cands)
	if n < packCandidates || n >= 1<<packIndexBits {
		slices.SortFunc(cands, cmpCandidates)
		return
	}
	keys := slices.Grow(sc.sortKeys[:0], n)
	for i, c := range cands {
		if c.rule >= 1<<packRuleBits || c.pos >= 1<<packPosBits {
			slices.SortFunc(cands, cmpCandidates)
			return
		}
		keys = append(keys, uint64(c.rule)<<(packPosBits+packIndexBits)|uint64(c.pos)<<packIndexBits|uint64(i))
	}
	slices.Sort(keys)
	sorted := slices.Grow(sc.sorted[:0], n)
	for _, k := range keys {
		sorted = append(sorted, cands[k&(1<<packIndexBits-1)])
	}
	copy(cands, sorted)
	sc.sortKeys, sc.sorted = keys, sorted
	// Candidates of one rule at one position: their read bounds decide.
	for from := 0; from < n; {
		to := from + 1
		for to < n && cands[to].rule == cands[from].rule && cands[to].pos == cands[from].pos {
			to++
		}
		if to-from > 1 {
			slices.SortFunc(cands[from:to], cmpCandidates)
		}
		from = to
	}
}

// packCandidates is how many candidates sortCandidates sorts by packed
// keys: fewer cost less compared whole than copied twice.
const packCandidates = 256

// A packed key: the rule, the position and the candidate's index, from the
// most significant bits down.
const (
	packRuleBits  = 12
	packPosBits   = 28
	packIndexBits = 24
)

// cmpCandidates orders candidates by rule, then by position, and is a
// total order, so the order does not depend on the sort that makes it.
// At one position run tries the first candidate only, so the one that
// may read furthest comes first (a later end, a longer keyword, a wider
// stretch for its secret): a narrower read bound could cut a secret the
// wider one reads whole.
func cmpCandidates(a, b candidate) int {
	if a.rule != b.rule {
		return cmp.Compare(a.rule, b.rule)
	}
	if a.pos != b.pos {
		return cmp.Compare(a.pos, b.pos)
	}
	if a.whole != b.whole {
		if a.whole {
			return -1
		}
		return 1
	}
	if a.end != b.end {
		return cmp.Compare(b.end, a.end)
	}
	if a.kwLen != b.kwLen {
		return cmp.Compare(b.kwLen, a.kwLen)
	}
	if a.secretFrom != b.secretFrom {
		return cmp.Compare(a.secretFrom, b.secretFrom)
	}
	return cmp.Compare(b.secretTo, a.secretTo)
}

// candidate is a place where one rule is tried: a keyword hit at pos, and
// for anchored rules how far its regex may read (end).
type candidate struct {
	rule, pos, kwLen, end int
	// kindAssign: the stretch its secret must lie in.
	secretFrom, secretTo int
	whole                bool // a rule without keywords: the whole text
}

// run tries rule r at its candidates (sorted by position) and appends the
// secrets it finds.
func (r *leakRule) run(view string, cands []candidate, global []allowlist, hand, out []span, sc *scratch) []span {
	if r.kind == kindWindow {
		var w span
		open := false
		var lc litCursor
		lc.reset(r, sc)
		for _, c := range cands {
			cw := keywordWindow(view, c.pos, c.pos+c.kwLen)
			if c.whole {
				cw = span{0, len(view)}
			}
			if !lc.inWindow(r, view, cw) {
				continue // no match can start in this window
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
	// Anchored: one match after another, as FindAll finds them.
	prevEnd, last := 0, -1
	var rm runMemo
	var nm needMemo
	if r.gap != nil {
		clear(sc.tail.place[:len(r.gap.tail)]) // the places of the last text's
	}
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
		if r.need != nil && !r.need.near(view, c.pos, c.end, &nm) {
			continue
		}
		var m []int
		if r.gap != nil {
			m = r.matchFrom(view, c.pos, c.end, &sc.tail)
		} else {
			m = r.matchAt(view, c.pos, c.end)
		}
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

// keywordWindow is the part of the text a windowed rule looks at for a
// keyword found at [from, to): ruleBefore bytes before it (gitleaks' rules
// allow at most 50 characters of key name before their keyword) and
// ruleAfter bytes after it (room for the separator and a secret; a longer
// secret is cut by the window, still matched and then widened to its whole
// token).
func keywordWindow(s string, from, to int) span {
	return span{max(0, from-ruleBefore), min(len(s), to+ruleAfter)}
}

// findWindow appends the secrets rule r finds in view[w.from:w.to].
func (r *leakRule) findWindow(view string, w span, global []allowlist, out []span) []span {
	for _, m := range r.re.FindAllStringSubmatchIndex(view[w.from:w.to], -1) {
		for k := range m {
			if m[k] >= 0 {
				m[k] += w.from
			}
		}
		out = r.accept(view, m, global, out)
	}
	return out
}

// accept applies gitleaks' checks to one match (submatch indexes into
// text) and appends its secret when it is one.
func (r *leakRule) accept(text string, m []int, global []allowlist, out []span) []span {
	ms, me := m[0], m[1]
	// gitleaks trims newlines around a match.
	for ms < me && text[ms] == '\n' {
		ms++
	}
	for me > ms && text[me-1] == '\n' {
		me--
	}
	ss, se := ms, me
	if len(m) >= 4 {
		if r.secretGroup > 0 && 2*r.secretGroup+1 < len(m) {
			ss, se = m[2*r.secretGroup], m[2*r.secretGroup+1]
		} else {
			for g := 1; 2*g+1 < len(m); g++ {
				if m[2*g] >= 0 && m[2*g+1] > m[2*g] {
					ss, se = m[2*g], m[2*g+1]
					break
				}
			}
		}
	}
	if ss < 0 || se <= ss {
		return out
	}
	secret := text[ss:se]
	if strings.Contains(secret, RedactedToken) || strings.Trim(secret, " ") == "" {
		return out
	}
	if r.entropy != 0 && shannon(secret) <= r.entropy {
		return out
	}
	if r.generic && !strings.ContainsAny(secret, "0123456789") {
		return out
	}
	match := text[ms:me]
	line := lineOf(text, ms, me)
	if allowed(r.allow, secret, match, line) || allowed(global, secret, match, line) {
		return out
	}
	return append(out, span{ss, se})
}

// lineOf is the line of s that holds s[from:to], as a line allowlist reads
// it, up to lineReach bytes on either side.
func lineOf(s string, from, to int) string {
	lo := max(0, from-lineReach)
	lo += strings.LastIndexByte(s[lo:from], '\n') + 1
	hi := min(len(s), to+lineReach)
	if k := strings.IndexByte(s[to:hi], '\n'); k >= 0 {
		hi = to + k
	}
	return s[lo:hi]
}

// lineReach bounds lineOf. The line allowlists (generic-api-key's: a
// Docker secret mount, a JavaScript import) name what stands beside the
// match; read to its ends, one long line with a match every few bytes was
// read back to its start for each (32 KiB of "mysql -p(": 18 ms of 24).
const lineReach = 1024

// allowlist is a gitleaks allowlist with its regexes joined into one
// alternation (as gitleaks joins them), on Go's regexp when that program is
// small and on RE2 otherwise (see compileRule).
type allowlist struct {
	// and, target: the list's match condition and regex target; the
	// gitleaks Allowlist itself is not kept (its stop-word trie is ~9 MiB).
	and    bool
	target string
	stop   *stopWords
	regex  matcher
	// lits, when known, are literals one of which starts every match of
	// regex: a target holding none of them is not matched.
	lits []lit
	// never is set for an AND allowlist with a commit or path condition:
	// such a condition never holds for text, so the allowlist never does.
	never bool
}

func compileAllowlists(lists []*config.Allowlist, errp *error) []allowlist {
	var out []allowlist
	for _, a := range lists {
		if a == nil {
			continue
		}
		al := allowlist{
			and:    a.MatchCondition == config.AllowlistMatchAnd,
			target: a.RegexTarget,
			stop:   newStopWords(a.StopWords),
			never:  a.MatchCondition == config.AllowlistMatchAnd && (len(a.Commits) > 0 || len(a.Paths) > 0),
		}
		if len(a.Regexes) > 0 {
			parts := make([]string, len(a.Regexes))
			for i, re := range a.Regexes {
				parts[i] = "(?:" + re.String() + ")"
			}
			src := strings.Join(parts, "|")
			c, err := compileRule(src)
			if err != nil {
				*errp = err
				continue
			}
			al.regex = c
			if re, err := syntax.Parse(src, syntax.Perl); err == nil {
				if lits, _ := prefixes(re); !slices.ContainsFunc(lits, func(l lit) bool { return l.s == "" }) {
					al.lits = lits
				}
			}
		}
		out = append(out, al)
	}
	return out
}

// allowed applies gitleaks allowlists that can apply to text (regexes and
// stop words; paths and commits never match text). An OR allowlist stops
// at its first check that holds, an AND one at its first that fails, the
// cheap stop-word check first.
func allowed(lists []allowlist, secret, match, line string) bool {
	for _, al := range lists {
		if al.never {
			continue
		}
		and := al.and
		checks, holds := 0, 0
		if al.stop != nil {
			checks++
			if al.stop.contains(secret) {
				holds++
			}
			if !and && holds > 0 {
				return true
			}
			if and && holds < checks {
				continue
			}
		}
		if al.regex != nil {
			target := secret
			switch al.target {
			case "match":
				target = match
			case "line":
				target = line
			}
			checks++
			if anyLitIn(al.lits, target) && al.regex.MatchString(target) {
				holds++
			}
		}
		if checks > 0 && ((and && holds == checks) || (!and && holds > 0)) {
			return true
		}
	}
	return false
}

// anyLitIn reports whether one of lits occurs in s, or true when lits is
// empty (nothing known).
func anyLitIn(lits []lit, s string) bool {
	if len(lits) == 0 {
		return true
	}
	for _, l := range lits {
		if l.in(s) {
			return true
		}
	}
	return false
}

// shannon is the Shannon entropy of s in bits per byte, as gitleaks
// computes it.
func shannon(s string) float64 {
	if s == "" {
		return 0
	}
	var counts [256]int
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	n := float64(len(s))
	e := 0.0
	for _, c := range counts {
		if c == 0 {
			continue
		}
		p := float64(c) / n
		e -= p * math.Log2(p)
	}
	return e
}
