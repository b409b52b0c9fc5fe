package sanitize

import (
	stdregexp "regexp"
	"regexp/syntax"
	"strings"
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
	for _, l := range lits {
		if !startsWithKeyword(l.s, kws) {
			return nil
		}
	}
	if err := r.anchor(src); err != nil {
		return err
	}
	_, r.most = lengths(re)
	r.lits = lits
	r.kind = kindStart
	return nil
}

// startsWithKeyword reports whether one of kws is a prefix of s (lower
// case where the literal folds; keywords match ASCII case-insensitively,
// so a literal's exact-case letters are lowered for the comparison).
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

// startEnd is where a kindStart rule's anchored regex stops reading for a
// hit at pos: past its longest match, or ruleAfter bytes on.
func (r *leakRule) startEnd(s string, pos, kwLen int) int {
	if r.most != unbounded && r.most < ruleAfter {
		return min(len(s), pos+r.most+1)
	}
	return min(len(s), pos+kwLen+ruleAfter)
}

// startsAt reports whether one of the rule's literal prefixes is at pos.
func (r *leakRule) startsAt(s string, pos int) bool {
	for _, l := range r.lits {
		if l.at(s, pos) {
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
// match can reach (the regex then reads no further), or false when the
// regex cannot match with its keyword here. It only ever says yes where
// the regex may match, never no where it does.
func (r *leakRule) assignEnd(s string, pos int) (int, bool) {
	end := -1
	from := pos + r.kwMin
	limit := min(len(s), pos+r.kwMax+20+3+1)
	for o := from; o < limit; o++ {
		b := s[o]
		switch b {
		case '=':
			end = max(end, r.secretEnd(s, o+1))
			if o+1 < len(s) && s[o+1] == '>' {
				end = max(end, r.secretEnd(s, o+2))
			}
		case '>', ',':
			end = max(end, r.secretEnd(s, o+1))
		case ':':
			end = max(end, r.secretEnd(s, o+1))
			for c := 1; c <= 3 && o+c < len(s) && s[o+c-1] == ':'; c++ {
				if s[o+c] == '=' {
					end = max(end, r.secretEnd(s, o+c+1))
				}
			}
		case '|':
			if o+1 < len(s) && s[o+1] == '|' {
				end = max(end, r.secretEnd(s, o+2))
			}
		case '?':
			if o+1 < len(s) && s[o+1] == '=' {
				end = max(end, r.secretEnd(s, o+2))
			}
		}
		if !nameGapTable[b] {
			break
		}
	}
	return end, end >= 0
}

// secretEnd looks for the secret after an operator ending at p and returns
// how far the match can reach, or -1.
func (r *leakRule) secretEnd(s string, p int) int {
	end := -1
	for j := 0; j <= 5 && p+j <= len(s); j++ {
		if j > 0 && !valueGapTable[s[p+j-1]] {
			break
		}
		ss := p + j
		e := ss
		for e < len(s) && r.secret[s[e]] {
			e++
		}
		if e-ss < r.secretMin {
			continue
		}
		if r.term && !termAt(s, e) {
			continue
		}
		end = max(end, min(len(s), e+2))
	}
	return end
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
