package sanitize

import (
	"regexp/syntax"
	"slices"
	"strings"
	"unicode/utf8"
)

// What a rule's regex says about its matches, read off its syntax tree
// (regexp/syntax, the parser both regex engines here share): the literals
// every match starts with, the fewest and most bytes a match has, and the
// bytes it can hold. These drive the cheap checks that decide whether a
// regex engine is called at all.

// lit is a literal a match can start with. Bit i of fold says whether
// byte i matches ASCII case-insensitively.
type lit struct {
	s    string // the literal, lower case where folded
	fold uint32
}

// Bounds of the literal sets: a set that grows larger is cut short (and
// then no longer exact), which only makes the check it drives weaker.
const (
	maxLits   = 64
	maxLitLen = 32
)

// at reports whether l occurs in s at i.
func (l lit) at(s string, i int) bool {
	if len(s)-i < len(l.s) {
		return false
	}
	for k := 0; k < len(l.s); k++ {
		b := s[i+k]
		if l.fold&(1<<k) != 0 {
			b = lower(b)
		}
		if b != l.s[k] {
			return false
		}
	}
	return true
}

// in reports whether l occurs anywhere in s. It jumps between the
// occurrences of l's first byte (both cases when it folds).
func (l lit) in(s string) bool {
	if len(l.s) > len(s) {
		return false
	}
	last := len(s) - len(l.s) + 1 // l can start before last
	first, other := l.s[0], l.s[0]
	if l.fold&1 != 0 && 'a' <= first && first <= 'z' {
		other = first - 'a' + 'A'
	}
	nf, no := nextByte(s, 0, last, first), nextByte(s, 0, last, other)
	for {
		i := min(nf, no)
		if i >= last {
			return false
		}
		if l.at(s, i) {
			return true
		}
		if nf == i {
			nf = nextByte(s, i+1, last, first)
		}
		if no == i {
			no = nextByte(s, i+1, last, other)
		}
	}
}

// next returns the first i >= from at which l occurs in s, or len(s)+1
// when there is none.
func (l lit) next(s string, from int) int {
	last := len(s) - len(l.s) + 1 // l can start before last
	if from >= last {
		return len(s) + 1
	}
	first, other := l.s[0], l.s[0]
	if l.fold&1 != 0 && 'a' <= first && first <= 'z' {
		other = first - 'a' + 'A'
	}
	nf, no := nextByte(s, from, last, first), nextByte(s, from, last, other)
	for {
		i := min(nf, no)
		if i >= last {
			return len(s) + 1
		}
		if l.at(s, i) {
			return i
		}
		if nf == i {
			nf = nextByte(s, i+1, last, first)
		}
		if no == i {
			no = nextByte(s, i+1, last, other)
		}
	}
}

// nextByte is the first index of b in s[from:to], or to.
func nextByte(s string, from, to int, b byte) int {
	if j := strings.IndexByte(s[from:to], b); j >= 0 {
		return from + j
	}
	return to
}

// shortLits cuts each literal to at most n bytes and drops repeats: the
// result is still a set one of which starts every match, fewer to look
// for.
func shortLits(lits []lit, n int) []lit {
	var out []lit
	for _, l := range lits {
		if len(l.s) > n {
			l.s = l.s[:n]
			l.fold &= 1<<n - 1
		}
		if !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	return out
}

// prefixes returns literals one of which starts every match of re, and
// whether re matches exactly those literals (so that what follows re in a
// concatenation extends them). The empty literal means nothing is known.
func prefixes(re *syntax.Regexp) ([]lit, bool) {
	unknown := []lit{{}}
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginText, syntax.OpBeginLine, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		// Zero width: a match's first byte is the next element's.
		return []lit{{}}, true
	case syntax.OpLiteral:
		l := lit{}
		b := make([]byte, 0, len(re.Rune))
		for _, r := range re.Rune {
			if r >= utf8.RuneSelf || len(b) == maxLitLen {
				// Known up to here.
				l.s = string(b)
				return []lit{l}, false
			}
			c := byte(r)
			if re.Flags&syntax.FoldCase != 0 && ('a' <= lower(c) && lower(c) <= 'z') {
				l.fold |= 1 << len(b)
				c = lower(c)
			}
			b = append(b, c)
		}
		l.s = string(b)
		return []lit{l}, true
	case syntax.OpCharClass:
		var out []lit
		for k := 0; k+1 < len(re.Rune); k += 2 {
			for r := re.Rune[k]; r <= re.Rune[k+1]; r++ {
				if r >= utf8.RuneSelf || len(out) == 8 {
					return unknown, false
				}
				out = append(out, lit{s: string(rune(r))})
			}
		}
		if len(out) == 0 {
			return unknown, false
		}
		return out, true
	case syntax.OpCapture:
		return prefixes(re.Sub[0])
	case syntax.OpConcat:
		acc := []lit{{}}
		for _, sub := range re.Sub {
			p, exact := prefixes(sub)
			next, ok := cross(acc, p)
			if !ok {
				return acc, false
			}
			acc = next
			if !exact {
				return acc, false
			}
		}
		return acc, true
	case syntax.OpAlternate:
		var out []lit
		exact := true
		for _, sub := range re.Sub {
			p, ex := prefixes(sub)
			exact = exact && ex
			out = append(out, p...)
		}
		if len(out) > maxLits {
			return unknown, false
		}
		return out, exact
	case syntax.OpQuest:
		p, exact := prefixes(re.Sub[0])
		return append(p, lit{}), exact
	case syntax.OpRepeat:
		if re.Min == 1 && re.Max == 1 {
			return prefixes(re.Sub[0])
		}
		p, _ := prefixes(re.Sub[0])
		if re.Min == 0 {
			p = append(p, lit{})
		}
		return p, false
	case syntax.OpPlus:
		p, _ := prefixes(re.Sub[0])
		return p, false
	}
	return unknown, false
}

// cross is every a followed by every b, or false when that is too many or
// too long.
func cross(a, b []lit) ([]lit, bool) {
	if len(a)*len(b) > maxLits {
		return nil, false
	}
	out := make([]lit, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			if len(x.s)+len(y.s) > maxLitLen {
				return nil, false
			}
			out = append(out, lit{s: x.s + y.s, fold: x.fold | y.fold<<len(x.s)})
		}
	}
	return out, true
}

// unbounded stands for "no limit" in lengths.
const unbounded = -1

// lengths returns the fewest and the most bytes a match of re has (most is
// unbounded for an unbounded repetition).
func lengths(re *syntax.Regexp) (least, most int) {
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			least++
			most += utf8.RuneLen(max(r, 0x7f))
		}
		if re.Flags&syntax.FoldCase != 0 {
			most = len(re.Rune) * utf8.UTFMax // a fold may change the width (k and U+212A)
		}
		return least, most
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return 1, utf8.UTFMax
	case syntax.OpCapture:
		return lengths(re.Sub[0])
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			l, m := lengths(sub)
			least += l
			most = addMost(most, m)
		}
		return least, most
	case syntax.OpAlternate:
		least = -1
		for _, sub := range re.Sub {
			l, m := lengths(sub)
			if least < 0 || l < least {
				least = l
			}
			if most != unbounded && (m == unbounded || m > most) {
				most = m
			}
		}
		return max(least, 0), most
	case syntax.OpQuest:
		_, m := lengths(re.Sub[0])
		return 0, m
	case syntax.OpStar:
		return 0, unbounded
	case syntax.OpPlus:
		l, _ := lengths(re.Sub[0])
		return l, unbounded
	case syntax.OpRepeat:
		l, m := lengths(re.Sub[0])
		least = l * re.Min
		switch {
		case re.Max < 0 || m == unbounded:
			most = unbounded
		default:
			most = m * re.Max
		}
		return least, most
	}
	return 0, 0 // zero-width assertions, empty match
}

func addMost(a, b int) int {
	if a == unbounded || b == unbounded {
		return unbounded
	}
	return a + b
}

// byteSet marks every byte a match of re can contain (all bytes from 0x80
// when it can hold a non-ASCII rune). It reports false when re can hold
// any byte.
func byteSet(re *syntax.Regexp, set *[256]bool) bool {
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			markRune(set, r, re.Flags&syntax.FoldCase != 0)
		}
		return true
	case syntax.OpCharClass:
		for k := 0; k+1 < len(re.Rune); k += 2 {
			lo, hi := re.Rune[k], re.Rune[k+1]
			for r := lo; r <= hi && r < utf8.RuneSelf; r++ {
				set[r] = true
			}
			if hi >= utf8.RuneSelf {
				for b := 0x80; b < 256; b++ {
					set[b] = true
				}
			}
		}
		return true
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return false
	}
	for _, sub := range re.Sub {
		if !byteSet(sub, set) {
			return false
		}
	}
	return true
}

func markRune(set *[256]bool, r rune, fold bool) {
	if r >= utf8.RuneSelf {
		for b := 0x80; b < 256; b++ {
			set[b] = true
		}
		return
	}
	set[r] = true
	if fold {
		b := byte(r)
		set[lower(b)] = true
		if 'a' <= b && b <= 'z' {
			set[b-'a'+'A'] = true
		}
		if b == 'k' || b == 's' || b == 'K' || b == 'S' {
			for c := 0x80; c < 256; c++ { // U+212A KELVIN SIGN, U+017F LONG S
				set[c] = true
			}
		}
	}
}
