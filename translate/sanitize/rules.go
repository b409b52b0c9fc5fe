package sanitize

import (
	_ "embed"
	"math"
	stdregexp "regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"

	ahocorasick "github.com/BobuSumisu/aho-corasick"
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
// Speed: a rule runs only where one of its keywords occurs. One Aho-Corasick
// pass over the lower-cased text finds every keyword; each rule whose
// keyword is found runs its regex on a window of the text around each hit
// (see keywordWindow; overlapping windows are merged), and a rule built on
// gitleaks' key-context template runs only where an assignment operator
// follows the keyword closely enough for its regex to match (see
// assignmentTemplate). The regexes run on RE2 (github.com/wasilibs/go-re2,
// the engine gitleaks' own builds use): gitleaks' long counted classes
// cost Go's regexp backtracking-free NFA about 250 ns per byte and RE2's
// DFA a few. Rules without keywords run on the whole text (the default set
// has none today).

// How far around a keyword a rule's regex looks (see keywordWindow).
const (
	ruleBefore = 64
	ruleAfter  = 384
)

type leakRule struct {
	id          string
	re          matcher
	secretGroup int
	entropy     float64
	allow       []allowlist
	generic     bool
	// assignment is set for rules built on gitleaks' key-context template
	// (keyword, up to 20 name characters, up to 3 quotes or spaces, an
	// assignment operator, the secret): their match needs an operator
	// byte within assignmentReach bytes after the keyword.
	assignment bool
	// valueTail is set for template rules whose secret is the one group
	// right after the operator, ended by gitleaks' terminator: their
	// secret is read off the match (see assignedValue) instead of asking
	// the engine for submatches, which costs RE2 tens of microseconds on
	// these large programs where finding the match costs a few.
	valueTail bool
}

// The parts of gitleaks' key-context template around its secret group.
const (
	valueHead = assignmentTemplate + "[\\x60'\"\\s=]{0,5}("
	valueTerm = `)(?:[\x60'"\s;]|\\[nr]|$)`
)

// hasValueTail reports whether a template rule's secret group is the
// first capturing group and sits between valueHead and valueTerm.
func hasValueTail(re string, secretGroup int) bool {
	i := strings.Index(re, valueHead)
	if i < 0 || !strings.HasSuffix(re, valueTerm) || secretGroup > 1 {
		return false
	}
	for k := 0; k < i; k++ {
		if re[k] == '\\' {
			k++
			continue
		}
		if re[k] == '(' && (k+1 >= len(re) || re[k+1] != '?') {
			return false // a capturing group before the secret's
		}
	}
	return true
}

// assignedValue reads the secret off a template rule's match: after the
// first operator byte (key names, spaces and quotes before it hold none),
// the operator itself, up to five quotes, spaces or '=', and before the
// one-byte terminator (or the two-byte \n, \r escape).
func assignedValue(m string) (int, int, bool) {
	i := strings.IndexAny(m, "=>:|?,")
	if i < 0 {
		return 0, 0, false
	}
	switch {
	case strings.HasPrefix(m[i:], "||"), strings.HasPrefix(m[i:], "=>"), strings.HasPrefix(m[i:], "?="):
		i += 2
	case m[i] == ':':
		k := i
		for k < len(m) && k-i < 3 && m[k] == ':' {
			k++
		}
		if k < len(m) && m[k] == '=' {
			i = k + 1
		} else {
			i++
		}
	default:
		i++
	}
	for n := 0; n < 5 && i < len(m) && strings.IndexByte("`'\" \t\n\r\f\v=", m[i]) >= 0; n++ {
		i++
	}
	e := len(m)
	switch {
	case e-i >= 2 && m[e-2] == '\\' && (m[e-1] == 'n' || m[e-1] == 'r'):
		e -= 2
	case e > i && strings.IndexByte("`'\" \t\n\r\f\v;", m[e-1]) >= 0:
		e--
	}
	return i, e, e > i
}

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
	FindAllStringIndex(s string, n int) [][]int
	String() string
}

// smallProgram is the largest compiled program (in instructions) that runs
// on Go's regexp: on windows of a few hundred bytes it beats a call into
// RE2's WebAssembly module, which costs about a microsecond however little
// it does. Larger programs (gitleaks' counted classes, key-context
// preambles) run on RE2.
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
	keywords []string // lower case
	byKW     [][]int  // keyword index -> rule indexes
	trie     *ahocorasick.Trie
	global   []allowlist
	err      error
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
		lr.valueTail = lr.assignment && hasValueTail(r.Regex.String(), r.SecretGroup)
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
	rs.trie = ahocorasick.NewTrieBuilder().AddStrings(rs.keywords).Build()
	return rs
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

// ruleSpans returns the secrets the gitleaks rules find in s (matched on
// view, a same-length copy of s with escapes decoded; see escapeView), in
// order and without overlaps.
func ruleSpans(view string) []span {
	rs := loadRules()
	if rs.trie == nil || len(view) == 0 {
		return nil
	}
	lowered := asciiLower(view)
	hits := rs.trie.MatchString(lowered)
	// Per rule, the windows where one of its keywords occurs.
	windows := map[int][]span{}
	for _, h := range hits {
		pos := int(h.Pos())
		w := keywordWindow(view, pos, pos+len(h.Match()))
		for _, ri := range rs.byKW[h.Pattern()] {
			if rs.rules[ri].assignment && !operatorNear(view, pos+len(h.Match())) {
				continue
			}
			ws := windows[ri]
			if n := len(ws); n > 0 && ws[n-1].to >= w.from {
				if w.to > ws[n-1].to {
					ws[n-1].to = w.to
				}
				continue
			}
			windows[ri] = append(ws, w)
		}
	}
	for _, ri := range rs.always {
		windows[ri] = []span{{0, len(view)}}
	}
	var out []span
	for ri, ws := range windows {
		r := &rs.rules[ri]
		for _, w := range ws {
			out = r.find(view, w, rs.global, out)
		}
	}
	if len(out) == 0 {
		return nil
	}
	slices.SortFunc(out, func(a, b span) int { return a.from - b.from })
	merged := out[:1]
	for _, sp := range out[1:] {
		last := &merged[len(merged)-1]
		if sp.from <= last.to {
			if sp.to > last.to {
				last.to = sp.to
			}
			continue
		}
		merged = append(merged, sp)
	}
	return merged
}

// keywordWindow is the part of the text a rule looks at for a keyword
// found at [from, to): ruleBefore bytes before it (gitleaks' rules allow at
// most 50 characters of key name before their keyword) and ruleAfter bytes
// after it (room for the separator and a secret; a longer secret is cut by
// the window, still matched and then widened to its whole token).
func keywordWindow(s string, from, to int) span {
	return span{max(0, from-ruleBefore), min(len(s), to+ruleAfter)}
}

// find appends the secrets rule r finds in view[w.from:w.to].
func (r *leakRule) find(view string, w span, global []allowlist, out []span) []span {
	text := view[w.from:w.to]
	var matches [][]int
	if r.valueTail {
		matches = r.re.FindAllStringIndex(text, -1)
		for k, m := range matches {
			if vs, ve, ok := assignedValue(text[m[0]:m[1]]); ok {
				matches[k] = []int{m[0], m[1], m[0] + vs, m[0] + ve}
			}
		}
	} else {
		matches = r.re.FindAllStringSubmatchIndex(text, -1)
	}
	for _, m := range matches {
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
			continue
		}
		secret := text[ss:se]
		if strings.Contains(secret, RedactedToken) || strings.Trim(secret, " ") == "" {
			continue
		}
		if r.entropy != 0 && shannon(secret) <= r.entropy {
			continue
		}
		if r.generic && !strings.ContainsAny(secret, "0123456789") {
			continue
		}
		match := text[ms:me]
		line := lineOf(text, ms, me)
		if allowed(r.allow, secret, match, line) || allowed(global, secret, match, line) {
			continue
		}
		// A secret is redacted whole, as a token: widen it to the token
		// bytes around it so no piece of it stays beside the placeholder.
		from, to := w.from+ss, w.from+se
		out = append(out, span{from, to})
	}
	return out
}

func lineOf(s string, from, to int) string {
	lo := strings.LastIndexByte(s[:from], '\n') + 1
	hi := strings.IndexByte(s[to:], '\n')
	if hi < 0 {
		return s[lo:]
	}
	return s[lo : to+hi]
}

// allowlist is a gitleaks allowlist with its regexes compiled for RE2.
type allowlist struct {
	src     *config.Allowlist
	regexes []*re2.Regexp
}

func compileAllowlists(lists []*config.Allowlist, errp *error) []allowlist {
	var out []allowlist
	for _, a := range lists {
		if a == nil {
			continue
		}
		al := allowlist{src: a}
		if len(a.Regexes) > 0 {
			// One alternation, as gitleaks joins them: one match call.
			parts := make([]string, len(a.Regexes))
			for i, re := range a.Regexes {
				parts[i] = "(?:" + re.String() + ")"
			}
			c, err := re2.Compile(strings.Join(parts, "|"))
			if err != nil {
				*errp = err
				continue
			}
			al.regexes = []*re2.Regexp{c}
		}
		out = append(out, al)
	}
	return out
}

// allowed applies gitleaks allowlists that can apply to text (regexes and
// stop words; paths and commits never match text).
func allowed(lists []allowlist, secret, match, line string) bool {
	for _, al := range lists {
		a := al.src
		var checks []bool
		if len(a.Commits) > 0 {
			checks = append(checks, false)
		}
		if len(a.Paths) > 0 {
			checks = append(checks, false)
		}
		if len(al.regexes) > 0 {
			target := secret
			switch a.RegexTarget {
			case "match":
				target = match
			case "line":
				target = line
			}
			hit := false
			for _, re := range al.regexes {
				if re.MatchString(target) {
					hit = true
					break
				}
			}
			checks = append(checks, hit)
		}
		if len(a.StopWords) > 0 {
			ok, _ := a.ContainsStopWord(secret)
			checks = append(checks, ok)
		}
		if len(checks) == 0 {
			continue
		}
		if a.MatchCondition == config.AllowlistMatchAnd {
			if !slices.Contains(checks, false) {
				return true
			}
		} else if slices.Contains(checks, true) {
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

func asciiLower(s string) string {
	i := 0
	for i < len(s) && !('A' <= s[i] && s[i] <= 'Z') {
		i++
	}
	if i == len(s) {
		return s
	}
	b := []byte(s)
	for ; i < len(b); i++ {
		if 'A' <= b[i] && b[i] <= 'Z' {
			b[i] += 'a' - 'A'
		}
	}
	return string(b)
}
