// Package jsonread reads the first JSON value of a text the way
// encoding/json's Decoder (with UseNumber) decodes it into any, without
// building the map tree: one validating pass records the value's tokens in
// a flat list, and lookups walk that list. A Doc is reused through a pool,
// so reading a provider's error body costs no allocation unless a string
// needs decoding (an escape or invalid UTF-8).
//
// What encoding/json does, and so what this package does:
//   - only the first value is read; whatever follows it is ignored;
//   - the syntax is strict RFC 8259 (no leading zeros, no control
//     characters in strings, no trailing commas), and nesting deeper than
//     MaxDepth is refused;
//   - an object's duplicate key: the last one wins;
//   - a number is its literal text (json.Number), however large;
//   - strings are unescaped, invalid UTF-8 bytes and unpaired surrogates
//     become U+FFFD.
//
// The differential tests hold it to encoding/json on arbitrary input.
package jsonread

import (
	"sync"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxDepth is encoding/json's nesting bound (its scanner's
// maxNestingDepth): a value nested deeper does not decode.
const MaxDepth = 10000

// Kind is a JSON value's type; Absent is a member that is not there.
type Kind uint8

const (
	Absent Kind = iota
	Null
	False
	True
	Number
	String
	Object
	Array
)

// node is one value (or object key) of the document. An object's members
// follow it as key, value pairs; an array's elements follow it; next is
// the index after the node's subtree, so siblings are one step apart.
type node struct {
	// start, end: a string's content between the quotes, a number's or a
	// literal's text, a container's text from its bracket to its closer.
	start, end int
	next       int
	kind       Kind
	// plain: a string whose content is its value (no escape, valid UTF-8).
	plain bool
}

// Doc is one parsed value. Strings it returns are substrings of the source
// or fresh copies, never views of the Doc, so they outlive Release.
type Doc struct {
	src   string
	nodes []node
	stack []int
}

var pool = sync.Pool{New: func() any { return new(Doc) }}

// maxKept bounds the node list a pooled Doc keeps, so one huge body does
// not pin its memory.
const maxKept = 1 << 14

// Parse reads the JSON object or array at the start of src (no leading
// blanks). ok is false when src does not start with a valid one, as
// encoding/json would refuse it. The Doc goes back with Release.
func Parse(src string) (*Doc, bool) {
	d := pool.Get().(*Doc)
	if len(src) == 0 || (src[0] != '{' && src[0] != '[') || !d.parse(src) {
		d.Release()
		return nil, false
	}
	return d, true
}

// Release returns the Doc to the pool; it and its Values must not be used
// after.
func (d *Doc) Release() {
	if cap(d.nodes) > maxKept {
		d.nodes = nil
	}
	if cap(d.stack) > maxKept {
		d.stack = nil
	}
	d.src = ""
	pool.Put(d)
}

// Root is the document's value.
func (d *Doc) Root() Value { return Value{d, 0} }

// special marks the bytes a string's fast loop stops at.
var special = func() (t [256]bool) {
	for c := 0; c < 0x20; c++ {
		t[c] = true
	}
	for c := 0x80; c < 0x100; c++ {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// parse is iterative: nesting costs a stack entry, not a Go frame, so a
// body of 100,000 brackets is refused at MaxDepth in bounded work. The
// lists live in locals while it runs (appending through d costs more).
func (d *Doc) parse(src string) bool {
	nodes, stack := d.nodes[:0], d.stack[:0]
	ok := false
	defer func() { d.src, d.nodes, d.stack = src, nodes, stack }()
	i, n := 0, len(src)
	skip := func() {
		for i < n && isSpace(src[i]) {
			i++
		}
	}
value:
	skip()
	if i >= n {
		return false
	}
	switch c := src[i]; {
	case c == '{' || c == '[':
		k := Object
		if c == '[' {
			k = Array
		}
		stack = append(stack, len(nodes))
		if len(stack) > MaxDepth {
			return false
		}
		nodes = append(nodes, node{start: i, kind: k})
		i++
		skip()
		if i < n && (k == Object && src[i] == '}' || k == Array && src[i] == ']') {
			goto closeContainer
		}
		if k == Object {
			goto key
		}
		goto value
	case c == '"':
		start := i + 1
		var plain bool
		if i, plain, ok = scanString(src, i); !ok {
			return false
		}
		nodes = append(nodes, node{start: start, end: i - 1, next: len(nodes) + 1, kind: String, plain: plain})
	case c == '-' || isDigit(c):
		s := i
		if c == '-' {
			i++
		}
		switch {
		case i < n && src[i] == '0':
			i++
		case i < n && isDigit(src[i]):
			for i < n && isDigit(src[i]) {
				i++
			}
		default:
			return false
		}
		if i < n && src[i] == '.' {
			i++
			if i >= n || !isDigit(src[i]) {
				return false
			}
			for i < n && isDigit(src[i]) {
				i++
			}
		}
		if i < n && (src[i] == 'e' || src[i] == 'E') {
			i++
			if i < n && (src[i] == '+' || src[i] == '-') {
				i++
			}
			if i >= n || !isDigit(src[i]) {
				return false
			}
			for i < n && isDigit(src[i]) {
				i++
			}
		}
		nodes = append(nodes, node{start: s, end: i, next: len(nodes) + 1, kind: Number})
	default:
		var k Kind
		var lit string
		switch c {
		case 't':
			k, lit = True, "true"
		case 'f':
			k, lit = False, "false"
		case 'n':
			k, lit = Null, "null"
		default:
			return false
		}
		if n-i < len(lit) || src[i:i+len(lit)] != lit {
			return false
		}
		nodes = append(nodes, node{start: i, end: i + len(lit), next: len(nodes) + 1, kind: k})
		i += len(lit)
	}
afterValue:
	if len(stack) == 0 {
		return true // the first value is complete; the rest is not read
	}
	skip()
	if i >= n {
		return false
	}
	{
		top := nodes[stack[len(stack)-1]].kind
		switch c := src[i]; {
		case c == ',':
			i++
			if top == Object {
				skip()
				goto key
			}
			goto value
		case c == '}' && top == Object, c == ']' && top == Array:
			goto closeContainer
		}
		return false
	}
key:
	if i >= n || src[i] != '"' {
		return false
	}
	{
		start := i + 1
		var plain bool
		if i, plain, ok = scanString(src, i); !ok {
			return false
		}
		nodes = append(nodes, node{start: start, end: i - 1, next: len(nodes) + 1, kind: String, plain: plain})
	}
	skip()
	if i >= n || src[i] != ':' {
		return false
	}
	i++
	goto value
closeContainer:
	{
		at := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		i++
		nodes[at].end, nodes[at].next = i, len(nodes)
	}
	goto afterValue
}

// scanString reads the string whose quote is at i: the index after its
// closing quote, and whether its content is its value (plain).
func scanString(src string, i int) (int, bool, bool) {
	i++
	start, escaped, high := i, false, false
	for {
		for i+8 <= len(src) && !hasSpecial8(src, i) {
			i += 8
		}
		for i < len(src) && !special[src[i]] {
			i++
		}
		if i >= len(src) {
			return i, false, false
		}
		switch c := src[i]; {
		case c == '"':
			plain := !escaped && (!high || utf8.ValidString(src[start:i]))
			return i + 1, plain, true
		case c == '\\':
			escaped = true
			if i+1 >= len(src) {
				return i, false, false
			}
			switch src[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(src) || !isHex(src[i+2]) || !isHex(src[i+3]) || !isHex(src[i+4]) || !isHex(src[i+5]) {
					return i, false, false
				}
				i += 6
			default:
				return i, false, false
			}
		case c < 0x20:
			return i, false, false
		default:
			high = true
			i++
		}
	}
}

// hasSpecial8 says whether any of the 8 bytes at src[i:] is special: a
// quote, a backslash, a control character or a byte of 0x80 up (tested a
// word at a time; a false alarm costs only the byte loop).
func hasSpecial8(src string, i int) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	s := src[i : i+8]
	x := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
	zero := func(v uint64) uint64 { return (v - ones) & ^v & highs }
	return (x&highs)|zero(x^(ones*'"'))|zero(x^(ones*'\\'))|((x-ones*0x20) & ^x & highs) != 0
}

// Value is one value of a Doc, or Absent.
type Value struct {
	d *Doc
	i int
}

// Kind is the value's type; Absent for a missing member.
func (v Value) Kind() Kind {
	if v.d == nil {
		return Absent
	}
	return v.d.nodes[v.i].kind
}

// IsNull says the value is missing or JSON null: what a Go nil stood for
// in the decoded tree.
func (v Value) IsNull() bool { k := v.Kind(); return k == Absent || k == Null }

// Get is an object's member, the last of that name (as decoding into a map
// keeps it); Absent when v is no object or has none.
func (v Value) Get(name string) Value {
	if v.Kind() != Object {
		return Value{}
	}
	d := v.d
	found := Value{}
	for j := v.i + 1; j < d.nodes[v.i].next; {
		if d.keyIs(j, name) {
			found = Value{d, j + 1}
		}
		j = d.nodes[j+1].next
	}
	return found
}

func (d *Doc) keyIs(j int, name string) bool {
	k := d.nodes[j]
	if k.plain {
		return d.src[k.start:k.end] == name
	}
	return unquote(d.src[k.start:k.end]) == name
}

// Len is the number of an object's members (duplicates counted) or an
// array's elements; 0 for anything else.
func (v Value) Len() int {
	k := v.Kind()
	if k != Object && k != Array {
		return 0
	}
	c := 0
	for it := v.iter(); it.j < it.end; c++ {
		it.j = it.d.nodes[it.j].next
		if k == Object {
			it.j = it.d.nodes[it.j].next
		}
	}
	return c
}

// Text is a string's value or a number's literal text, "" for anything
// else: what the classifier reads as a code or a message.
func (v Value) Text() string {
	switch v.Kind() {
	case String:
		return v.d.strValue(v.i)
	case Number:
		n := v.d.nodes[v.i]
		return v.d.src[n.start:n.end]
	}
	return ""
}

// Str is a string's value; ok is false for anything but a string.
func (v Value) Str() (string, bool) {
	if v.Kind() != String {
		return "", false
	}
	return v.d.strValue(v.i), true
}

func (d *Doc) strValue(i int) string {
	n := d.nodes[i]
	if n.plain {
		return d.src[n.start:n.end]
	}
	return unquote(d.src[n.start:n.end])
}

// Iter walks an array's elements.
type Iter struct {
	d      *Doc
	j, end int
}

// Elems iterates an array's elements; nothing for anything else.
func (v Value) Elems() Iter {
	if v.Kind() != Array {
		return Iter{}
	}
	return v.iter()
}

func (v Value) iter() Iter {
	return Iter{v.d, v.i + 1, v.d.nodes[v.i].next}
}

// Next is the next element; ok is false at the end.
func (it *Iter) Next() (Value, bool) {
	if it.d == nil || it.j >= it.end {
		return Value{}, false
	}
	v := Value{it.d, it.j}
	it.j = it.d.nodes[it.j].next
	return v, true
}

// unquote decodes a validated string's content as encoding/json does: the
// escapes, a surrogate pair when one follows, U+FFFD for an unpaired
// surrogate and for each invalid UTF-8 byte.
func unquote(s string) string {
	b := make([]byte, 0, len(s)+utf8.UTFMax)
	for r := 0; r < len(s); {
		c := s[r]
		switch {
		case c == '\\':
			switch e := s[r+1]; e {
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				rr := getu4(s[r:])
				r += 6
				if utf16.IsSurrogate(rr) {
					if dec := utf16.DecodeRune(rr, getu4(s[r:])); dec != unicode.ReplacementChar {
						r += 6
						b = utf8.AppendRune(b, dec)
						continue
					}
					rr = unicode.ReplacementChar
				}
				b = utf8.AppendRune(b, rr)
				continue
			default: // '"', '\\', '/'
				b = append(b, e)
			}
			r += 2
		case c < utf8.RuneSelf:
			b = append(b, c)
			r++
		default:
			rr, size := utf8.DecodeRuneInString(s[r:])
			r += size
			b = utf8.AppendRune(b, rr)
		}
	}
	return string(b)
}

// getu4 reads the \uXXXX at the start of s, -1 if there is none.
func getu4(s string) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range []byte(s[2:6]) {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// End is the offset in the source just past the root value: what follows
// it is not part of the document.
func (d *Doc) End() int { return d.nodes[0].end }

// MemberIter walks an object's members in order (duplicates included).
type MemberIter struct {
	d      *Doc
	j, end int
}

// Members iterates an object's members; nothing for anything else.
func (v Value) Members() MemberIter {
	if v.Kind() != Object {
		return MemberIter{}
	}
	return MemberIter{v.d, v.i + 1, v.d.nodes[v.i].next}
}

// Next is the next member's name and value; ok is false at the end.
func (it *MemberIter) Next() (name string, v Value, ok bool) {
	if it.d == nil || it.j >= it.end {
		return "", Value{}, false
	}
	name = it.d.strValue(it.j)
	v = Value{it.d, it.j + 1}
	it.j = it.d.nodes[it.j+1].next
	return name, v, true
}
