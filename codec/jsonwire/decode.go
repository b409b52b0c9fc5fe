// Package jsonwire is the runtime of errsvc's generated JSON codec: a
// one-pass JSON reader and writer with protojson's semantics, which the
// code protoc-gen-errsvc-json writes for every message of the contract
// (gen/errsvc/v1/*_json.pb.go) calls. It knows JSON and the well-known
// types errsvc uses (Struct, Value, ListValue, Timestamp, google.rpc.Status
// with Any details); the generated code knows the messages.
//
// The reader is strict where protojson is (RFC 8259 syntax, valid UTF-8,
// no lone surrogate escapes, no duplicate members) and never recurses
// deeper than MaxDepth JSON levels. Its errors are *Error values naming
// the field with its full path ("labby_error.recovery.retry_after_ms"),
// built only on failure: the success path keeps no path.
package jsonwire

import (
	"encoding/base64"
	"math"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// unsafeString views b as a string for a strconv call that does not keep
// it (only its error would, and errors of these calls are dropped).
func unsafeString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// MaxDepth bounds the JSON nesting (objects and arrays) the reader follows.
// The transports bound bodies to codec.MaxJSONDepth before decoding; this is
// the reader's own guard, so it never recurses without bound whoever calls it.
const MaxDepth = 100

// Error is a refusal naming the field: the path is kept innermost first
// while the error travels up the generated code, each level adding its
// segment.
type Error struct {
	segs        []string // innermost first; "[3]" segments attach to the one above
	Description string
	// syntax errors are the body's, wherever they are (the offset says
	// where), as protojson and codec.CheckJSON report them.
	syntax bool
}

// Path is the dotted path of the field, e.g. "requests[2].labby_error.kind",
// or "" when the problem is the body itself.
func (e *Error) Path() string {
	var b strings.Builder
	for i := len(e.segs) - 1; i >= 0; i-- {
		s := e.segs[i]
		if b.Len() > 0 && !isIndex(s) {
			b.WriteByte('.')
		}
		b.WriteString(s)
	}
	return b.String()
}

// Leaf is the innermost named segment of the path ("" when there is none).
func (e *Error) Leaf() string {
	for _, s := range e.segs {
		if !isIndex(s) {
			return s
		}
	}
	return ""
}

// isIndex reports whether a path segment is a list index ("[3]"), not a
// member name (which may be anything, even empty).
func isIndex(s string) bool {
	return len(s) > 2 && s[0] == '[' && s[len(s)-1] == ']' && s[1] >= '0' && s[1] <= '9'
}

func (e *Error) Error() string {
	if p := e.Path(); p != "" {
		return p + ": " + e.Description
	}
	return e.Description
}

// At adds the segment seg (a field or member name) to err's path.
func At(err error, seg string) error {
	if e, ok := err.(*Error); ok && !e.syntax {
		e.segs = append(e.segs, seg)
	}
	return err
}

// AtIndex adds the list index i to err's path.
func AtIndex(err error, i int) error {
	if e, ok := err.(*Error); ok && !e.syntax {
		e.segs = append(e.segs, "["+strconv.Itoa(i)+"]")
	}
	return err
}

func errorf(desc string) error { return &Error{Description: desc} }

// Refusals the generated code returns (it adds the path).
var (
	errDuplicate = "duplicate field"
	errUnknown   = "unknown field"
)

// Duplicate is the refusal of a member given twice (in either spelling).
func Duplicate() error { return errorf(errDuplicate) }

// Unknown is the refusal of a member a closed message does not declare.
func Unknown() error { return errorf(errUnknown) }

// OneofTaken is the refusal of a second member of a oneof.
func OneofTaken(oneof string) error {
	return errorf("oneof " + oneof + " is already set")
}

// Decoder reads one JSON document. The zero value is not usable; see
// NewDecoder.
type Decoder struct {
	buf     []byte
	pos     int
	depth   int
	scratch []byte

	// Moved reports whether a member went into some additional_fields: the
	// producer's shape was not the contract's, which changes how a wait
	// field holding a numeric string is read (see Defer).
	Moved    bool
	deferred []func()
	// lax: a number only protojson's lexer takes (see numberLen).
	lax bool
	// shared: the strings read may view buf (ResetShared).
	shared bool
}

// NewDecoder reads b.
func NewDecoder(b []byte) *Decoder { return &Decoder{buf: b} }

// Reset makes d read b, keeping its scratch buffer.
func (d *Decoder) Reset(b []byte) {
	d.buf, d.pos, d.depth, d.Moved, d.lax, d.shared = b, 0, 0, false, false, false
	clear(d.deferred) // the closures hold the last document's messages
	d.deferred = d.deferred[:0]
}

// ResetShared is Reset for a b that nothing writes to while what is read
// from it is in use: a string read (a string field, a Struct key or string
// value, a map's keys and values) that b holds as it is, without escapes,
// is a view of b's bytes rather than a copy. An escaped string is decoded
// into d's scratch buffer, which the next one reuses, so it is copied out.
func (d *Decoder) ResetShared(b []byte) {
	d.Reset(b)
	d.shared = true
}

// text is s, a string str read, as a string: a view when d shares its
// input and s lies in it (no escapes), else a copy.
func (d *Decoder) text(s []byte) string {
	if d.shared && len(s) > 0 && len(d.buf) > 0 {
		p, lo := uintptr(unsafe.Pointer(unsafe.SliceData(s))), uintptr(unsafe.Pointer(unsafe.SliceData(d.buf)))
		if p >= lo && p < lo+uintptr(len(d.buf)) {
			return unsafe.String(unsafe.SliceData(s), len(s))
		}
	}
	return string(s)
}

// Defer runs f at the end of the document if a member was moved anywhere
// in it (see Moved); see Finish.
func (d *Decoder) Defer(f func()) { d.deferred = append(d.deferred, f) }

// Finish checks that nothing but white space follows the document and runs
// the deferred moves when the document had moved members.
func (d *Decoder) Finish() error {
	d.ws()
	if d.pos < len(d.buf) {
		return d.syntax("unexpected content after the top-level value")
	}
	if d.Moved && d.lax {
		// openjson could not move members of such a body (its rewrite
		// went through encoding/json), and refused it.
		return &Error{Description: "syntax error: a number with an empty exponent", syntax: true}
	}
	if d.Moved {
		for _, f := range d.deferred {
			f()
		}
	}
	clear(d.deferred)
	d.deferred = d.deferred[:0]
	return nil
}

func (d *Decoder) syntax(what string) error {
	return &Error{Description: "syntax error at offset " + strconv.Itoa(d.pos) + ": " + what, syntax: true}
}

func (d *Decoder) eof() error { return &Error{Description: "unexpected end of JSON", syntax: true} }

func (d *Decoder) ws() {
	for d.pos < len(d.buf) {
		switch d.buf[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

// peek returns the next byte after white space, or 0 at the end.
func (d *Decoder) peek() byte {
	d.ws()
	if d.pos < len(d.buf) {
		return d.buf[d.pos]
	}
	return 0
}

func isNotDelim(c byte) bool {
	return c == '-' || c == '+' || c == '.' || c == '_' ||
		('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9')
}

func (d *Decoder) literal(s string) bool {
	end := d.pos + len(s)
	if end > len(d.buf) || string(d.buf[d.pos:end]) != s {
		return false
	}
	if end < len(d.buf) && isNotDelim(d.buf[end]) {
		return false
	}
	d.pos = end
	return true
}

// Null consumes a null if one comes next.
func (d *Decoder) Null() bool {
	if d.peek() != 'n' {
		return false
	}
	return d.literal("null")
}

// kind names the JSON value that comes next, for a refusal.
func (d *Decoder) kind() string {
	switch d.peek() {
	case '{':
		return "an object"
	case '[':
		return "a list"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	case 0:
		return "the end of the body"
	}
	return "a number"
}

// mismatch is the refusal of a value of the wrong JSON type or range for a
// field of protobuf type typ. The value is not echoed: a caller can write a
// secret in any field.
func (d *Decoder) mismatch(typ, got string) error {
	return errorf("invalid value for " + typ + " field: got " + got + " (value not echoed)")
}

// BeginObject consumes the '{' of an object.
func (d *Decoder) BeginObject() error {
	c := d.peek()
	if c != '{' {
		if c == 0 {
			return d.eof()
		}
		return d.badScalar("message")
	}
	return d.open()
}

func (d *Decoder) open() error {
	if d.depth >= MaxDepth {
		return errorf("JSON nested deeper than " + strconv.Itoa(MaxDepth) + " levels")
	}
	d.depth++
	d.pos++
	return nil
}

// Key reads the n-th member name of the current object (n counts from 0)
// and its ':'; more is false at the closing '}'. The key aliases d's
// buffers until the next read.
func (d *Decoder) Key(n int) (key []byte, more bool, err error) {
	c := d.peek()
	if c == '}' {
		d.pos++
		d.depth--
		return nil, false, nil
	}
	if n > 0 {
		if c != ',' {
			if c == 0 {
				return nil, false, d.eof()
			}
			return nil, false, d.syntax("want ',' or '}' after an object member")
		}
		d.pos++
		c = d.peek()
	}
	if c != '"' {
		if c == 0 {
			return nil, false, d.eof()
		}
		return nil, false, d.syntax("want a member name")
	}
	key, err = d.str()
	if err != nil {
		return nil, false, err
	}
	if d.peek() != ':' {
		return nil, false, d.syntax("want ':' after a member name")
	}
	d.pos++
	return key, true, nil
}

// BeginArray consumes the '[' of a list.
func (d *Decoder) BeginArray(typ string) error {
	c := d.peek()
	if c != '[' {
		if c == 0 {
			return d.eof()
		}
		return d.badScalar("repeated " + typ)
	}
	return d.open()
}

// Item reports whether the n-th item of the current list comes next
// (consuming the ',' before it); false at the closing ']'.
func (d *Decoder) Item(n int) (bool, error) {
	c := d.peek()
	if c == ']' {
		d.pos++
		d.depth--
		return false, nil
	}
	if n > 0 {
		if c != ',' {
			if c == 0 {
				return false, d.eof()
			}
			return false, d.syntax("want ',' or ']' after a list item")
		}
		d.pos++
		if d.peek() == ']' {
			return false, d.syntax("a list item is missing after ','")
		}
	}
	if d.pos >= len(d.buf) {
		return false, d.eof()
	}
	return true, nil
}

// str reads a string at d.pos (which holds '"'); the result aliases the
// input when it has no escapes, else d.scratch.
func (d *Decoder) str() ([]byte, error) {
	start := d.pos + 1
	i := start
	b := d.buf
	for i < len(b) {
		c := b[i]
		if c == '"' {
			d.pos = i + 1
			return b[start:i], nil
		}
		if c == '\\' || c < ' ' || c >= utf8.RuneSelf {
			break
		}
		i++
	}
	out := append(d.scratch[:0], b[start:i]...)
	for i < len(b) {
		c := b[i]
		switch {
		case c == '"':
			d.pos = i + 1
			d.scratch = out
			return out, nil
		case c < ' ':
			d.pos = i
			return nil, d.syntax("control character in a string")
		case c == '\\':
			if i+1 >= len(b) {
				return nil, d.eof()
			}
			switch e := b[i+1]; e {
			case '"', '\\', '/':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r, ok := Hex4(b, i+2)
				if !ok {
					d.pos = i
					return nil, d.syntax("invalid \\u escape in a string")
				}
				i += 6
				if utf16.IsSurrogate(r) {
					lo, ok := rune(0), false
					if i+1 < len(b) && b[i] == '\\' && b[i+1] == 'u' {
						lo, ok = Hex4(b, i+2)
					}
					r = utf16.DecodeRune(r, lo)
					if !ok || r == utf8.RuneError {
						d.pos = i
						return nil, d.syntax("lone UTF-16 surrogate in a string")
					}
					i += 6
				}
				out = utf8.AppendRune(out, r)
				continue
			default:
				d.pos = i
				return nil, d.syntax("invalid escape in a string")
			}
			i += 2
		case c < utf8.RuneSelf:
			out = append(out, c)
			i++
		default:
			r, n := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && n == 1 {
				d.pos = i
				return nil, d.syntax("invalid UTF-8 in a string")
			}
			out = append(out, b[i:i+n]...)
			i += n
		}
	}
	return nil, d.eof()
}

// Hex4 reads the four hex digits of a \u escape at b[i:], and whether
// there were four.
func Hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case '0' <= c && c <= '9':
			r = r<<4 | rune(c-'0')
		case 'a' <= c && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case 'A' <= c && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// number reads a JSON number (RFC 8259 grammar, followed by a delimiter)
// and returns its text.
func (d *Decoder) number() ([]byte, bool) {
	n, ok, lax := numberLen(d.buf[d.pos:])
	if !ok {
		return nil, false
	}
	d.lax = d.lax || lax
	s := d.buf[d.pos : d.pos+n]
	d.pos += n
	return s, true
}

// numberLen is the length of the JSON number at the start of s, by
// protojson's lexer: RFC 8259's grammar, except that an exponent may have
// no digits ("10e" before a delimiter), which it reports as lax (protojson
// reads such a number as an integer; encoding/json, and so openjson's
// rewrite of a body with moved members, refuses it).
func numberLen(s []byte) (n int, ok, lax bool) {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && '1' <= s[i] && s[i] <= '9':
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
	default:
		return 0, false, false
	}
	if i+1 < len(s) && s[i] == '.' && '0' <= s[i+1] && s[i+1] <= '9' {
		i += 2
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
	}
	if i+1 < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if s[i] == '+' || s[i] == '-' {
			i++
			if i == len(s) {
				return 0, false, false
			}
		}
		j := i
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
		lax = i == j
	}
	if i < len(s) && isNotDelim(s[i]) {
		return 0, false, false
	}
	return i, true, lax
}

// String reads a string value.
func (d *Decoder) String() (string, error) {
	if d.peek() != '"' {
		return "", d.badScalar("string")
	}
	s, err := d.str()
	if err != nil {
		return "", err
	}
	return d.text(s), nil
}

// Bool reads true or false.
func (d *Decoder) Bool() (bool, error) {
	switch d.peek() {
	case 't':
		if d.literal("true") {
			return true, nil
		}
	case 'f':
		if d.literal("false") {
			return false, nil
		}
	}
	return false, d.badScalar("bool")
}

// badScalar refuses the value that comes next for a field of type typ:
// broken syntax is a syntax error, a well-formed value of the wrong type a
// mismatch.
func (d *Decoder) badScalar(typ string) error {
	switch c := d.peek(); {
	case c == 0:
		return d.eof()
	case c == 'n' || c == 't' || c == 'f':
		for _, lit := range []string{"null", "true", "false"} {
			end := d.pos + len(lit)
			if end <= len(d.buf) && string(d.buf[d.pos:end]) == lit && (end == len(d.buf) || !isNotDelim(d.buf[end])) {
				return d.mismatch(typ, d.kind())
			}
		}
		return d.syntax("invalid value")
	case c == '-' || ('0' <= c && c <= '9'):
		if _, ok, _ := numberLen(d.buf[d.pos:]); ok {
			switch typ {
			case "int32", "int64", "uint32", "uint64", "double", "float":
				return d.mismatch(typ, "a number out of range or not whole")
			}
			return d.mismatch(typ, "a number")
		}
		return d.syntax("invalid number")
	case c == '"' || c == '{' || c == '[':
		return d.mismatch(typ, d.kind())
	}
	return d.syntax("invalid value")
}

// numeric returns the text of a number given as a JSON number or as a
// string holding exactly one JSON number (protojson reads int64 and the
// other integers from both); ok is false for anything else. A string's
// text is reported in isString (it may be "NaN" and such for floats).
func (d *Decoder) numeric() (text []byte, isString, ok bool, err error) {
	switch c := d.peek(); {
	case c == '"':
		s, err := d.str()
		if err != nil {
			return nil, false, false, err
		}
		return s, true, true, nil
	case c == '-' || ('0' <= c && c <= '9'):
		s, ok := d.number()
		return s, false, ok, nil
	}
	return nil, false, false, nil
}

// numberInString checks that a string's contents are one JSON number with
// no white space around it, as protojson requires.
func numberInString(s []byte) bool {
	if len(s) == 0 {
		return false
	}
	n, ok, _ := numberLen(s)
	return ok && n == len(s)
}

// intText turns a JSON number into the decimal integer it denotes, as
// protojson does (1e3 and 2.0 are whole; 2.5 is not); "" when not whole.
func intText(s []byte, buf []byte) ([]byte, bool) {
	neg := false
	if s[0] == '-' {
		neg, s = true, s[1:]
	}
	var intp, frac, exp []byte
	i := 0
	if s[0] == '0' {
		i = 1
	} else {
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
		intp = s[:i]
	}
	if i < len(s) && s[i] == '.' {
		j := i + 1
		for j < len(s) && '0' <= s[j] && s[j] <= '9' {
			j++
		}
		frac = s[i+1 : j]
		i = j
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		exp = s[i+1:]
	}
	for len(frac) > 0 && frac[len(frac)-1] == '0' {
		frac = frac[:len(frac)-1]
	}
	if len(intp) == 0 && len(frac) == 0 {
		return append(buf[:0], '0'), true
	}
	e := 0
	if len(exp) > 0 {
		v, err := strconv.ParseInt(unsafeString(exp), 10, 32)
		if err != nil {
			return nil, false
		}
		e = int(v)
	}
	out := buf[:0]
	if neg {
		out = append(out, '-')
	}
	if e >= 0 {
		if len(frac) > e || len(intp)+e > 20 {
			return nil, false
		}
		out = append(out, intp...)
		out = append(out, frac...)
		for k := 0; k < e-len(frac); k++ {
			out = append(out, '0')
		}
		return out, true
	}
	if len(frac) > 0 {
		return nil, false
	}
	idx := len(intp) + e
	if idx < 0 {
		return nil, false
	}
	for _, c := range intp[idx:] {
		if c != '0' {
			return nil, false
		}
	}
	return append(out, intp[:idx]...), true
}

func (d *Decoder) intValue(typ string, bits int) (int64, error) {
	start := d.pos
	text, isStr, ok, err := d.numeric()
	if err != nil {
		return 0, err
	}
	if ok && (!isStr || numberInString(text)) {
		var nb [24]byte
		if it, whole := intText(text, nb[:0]); whole {
			if v, err := strconv.ParseInt(unsafeString(it), 10, bits); err == nil {
				return v, nil
			}
		}
	}
	d.pos = start
	if isStr {
		return 0, d.mismatch(typ, "a string that is not a whole number in range")
	}
	return 0, d.badScalar(typ)
}

func (d *Decoder) uintValue(typ string, bits int) (uint64, error) {
	start := d.pos
	text, isStr, ok, err := d.numeric()
	if err != nil {
		return 0, err
	}
	if ok && (!isStr || numberInString(text)) {
		var nb [24]byte
		if it, whole := intText(text, nb[:0]); whole {
			if v, err := strconv.ParseUint(unsafeString(it), 10, bits); err == nil {
				return v, nil
			}
		}
	}
	d.pos = start
	if isStr {
		return 0, d.mismatch(typ, "a string that is not a whole number in range")
	}
	return 0, d.badScalar(typ)
}

// Int32 reads an int32 (a number or a numeric string).
func (d *Decoder) Int32() (int32, error) {
	v, err := d.intValue("int32", 32)
	return int32(v), err
}

// Int64 reads an int64 (a number or a numeric string).
func (d *Decoder) Int64() (int64, error) { return d.intValue("int64", 64) }

// Uint32 reads a uint32 (a number or a numeric string).
func (d *Decoder) Uint32() (uint32, error) {
	v, err := d.uintValue("uint32", 32)
	return uint32(v), err
}

// Uint64 reads a uint64 (a number or a numeric string).
func (d *Decoder) Uint64() (uint64, error) { return d.uintValue("uint64", 64) }

// Float64 reads a double: a number, a numeric string, or "NaN",
// "Infinity", "-Infinity".
func (d *Decoder) Float64() (float64, error) { return d.floatValue("double", 64) }

// Float32 reads a float like Float64.
func (d *Decoder) Float32() (float32, error) {
	v, err := d.floatValue("float", 32)
	return float32(v), err
}

func (d *Decoder) floatValue(typ string, bits int) (float64, error) {
	start := d.pos
	text, isStr, ok, err := d.numeric()
	if err != nil {
		return 0, err
	}
	if ok && isStr {
		switch string(text) {
		case "NaN":
			return math.NaN(), nil
		case "Infinity":
			return math.Inf(1), nil
		case "-Infinity":
			return math.Inf(-1), nil
		}
		ok = numberInString(text)
	}
	if ok {
		if v, err := strconv.ParseFloat(unsafeString(text), bits); err == nil {
			return v, nil
		}
	}
	d.pos = start
	if isStr {
		return 0, d.mismatch(typ, "a string that is not a number in range")
	}
	return 0, d.badScalar(typ)
}

// FloatString reports whether the value that comes next is a string that
// Float64 reads (a wait field keeps such a value only while the document
// moved nothing; see Defer). It consumes nothing.
func (d *Decoder) FloatString() bool {
	if d.peek() != '"' {
		return false
	}
	save := d.pos
	_, err := d.Float64()
	d.pos = save
	return err == nil
}

// Bytes reads base64 (standard or URL alphabet, padded or not).
func (d *Decoder) Bytes() ([]byte, error) {
	if d.peek() != '"' {
		return nil, d.badScalar("bytes")
	}
	s, err := d.str()
	if err != nil {
		return nil, err
	}
	enc := base64.StdEncoding
	for _, c := range s {
		if c == '-' || c == '_' {
			enc = base64.URLEncoding
			break
		}
	}
	if len(s)%4 != 0 {
		enc = enc.WithPadding(base64.NoPadding)
	}
	out := make([]byte, enc.DecodedLen(len(s)))
	n, err := enc.Decode(out, s)
	if err != nil {
		return nil, d.mismatch("bytes", "a string that is not base64")
	}
	return out[:n], nil
}

// StringList reads a list of strings, appending to dst.
func (d *Decoder) StringList(dst []string) ([]string, error) {
	if err := d.BeginArray("string"); err != nil {
		return dst, err
	}
	for n := 0; ; n++ {
		more, err := d.Item(n)
		if err != nil || !more {
			return dst, err
		}
		s, err := d.String()
		if err != nil {
			return dst, AtIndex(err, n)
		}
		dst = append(dst, s)
	}
}

// StringMap reads an object of strings into a new map (nil when empty).
func (d *Decoder) StringMap() (map[string]string, error) {
	if err := d.BeginObject(); err != nil {
		return nil, err
	}
	var m map[string]string
	for n := 0; ; n++ {
		k, more, err := d.Key(n)
		if err != nil || !more {
			return m, err
		}
		key := d.text(k)
		if _, dup := m[key]; dup {
			return m, At(errorf("duplicate map key"), key)
		}
		v, err := d.String()
		if err != nil {
			return m, At(err, key)
		}
		if m == nil {
			m = map[string]string{}
		}
		m[key] = v
	}
}

// Skip consumes one value of any kind, checking its syntax as the reader
// does, and returns its bytes.
func (d *Decoder) Skip() ([]byte, error) {
	d.ws()
	start := d.pos
	if err := d.skip(); err != nil {
		return nil, err
	}
	return d.buf[start:d.pos], nil
}

func (d *Decoder) skip() error {
	switch c := d.peek(); {
	case c == '{':
		if err := d.open(); err != nil {
			return err
		}
		for n := 0; ; n++ {
			k, more, err := d.Key(n)
			if err != nil {
				return err
			}
			if !more {
				return nil
			}
			if err := d.skip(); err != nil {
				return At(err, string(k))
			}
		}
	case c == '[':
		if err := d.open(); err != nil {
			return err
		}
		for n := 0; ; n++ {
			more, err := d.Item(n)
			if err != nil {
				return err
			}
			if !more {
				return nil
			}
			if err := d.skip(); err != nil {
				return AtIndex(err, n)
			}
		}
	case c == '"':
		return d.skipString()
	case c == 'n' || c == 't' || c == 'f':
		if d.literal("null") || d.literal("true") || d.literal("false") {
			return nil
		}
		return d.syntax("invalid value")
	case c == 0:
		return d.eof()
	default:
		if _, ok := d.number(); ok {
			return nil
		}
		return d.syntax("invalid value")
	}
}

// skipString passes over a string checking only what encoding/json does
// (no control characters, known escapes): invalid UTF-8 and lone
// surrogates are the decoder's or a per-item check's to refuse, so a batch
// item holding them fails alone.
func (d *Decoder) skipString() error {
	b := d.buf
	for i := d.pos + 1; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			d.pos = i + 1
			return nil
		case c < ' ':
			d.pos = i
			return d.syntax("control character in a string")
		case c == '\\':
			if i+1 >= len(b) {
				return d.eof()
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				if _, ok := Hex4(b, i+2); !ok {
					d.pos = i
					return d.syntax("invalid \\u escape in a string")
				}
				i += 5
			default:
				d.pos = i
				return d.syntax("invalid escape in a string")
			}
		}
	}
	return d.eof()
}

// Span returns the bytes from offset start to the current position.
func (d *Decoder) Span(start int) []byte { return d.buf[start:d.pos] }

// Offset is the position of the next value (after white space).
func (d *Decoder) Offset() int { d.ws(); return d.pos }

// Seek moves back to offset off (an Offset taken earlier).
func (d *Decoder) Seek(off int) { d.pos = off }

func parseFloat(s []byte) (float64, error) { return strconv.ParseFloat(unsafeString(s), 64) }

func parseFloatString(s string) (float64, error) { return strconv.ParseFloat(s, 64) }

func validUTF8(b []byte) bool { return utf8.Valid(b) }

func appendInt(b []byte, v int64) []byte { return strconv.AppendInt(b, v, 10) }

// WaitFloatString reads the string that comes next if protojson reads it
// as a double ("1.5", "NaN", ...): a double wait field keeps such a value
// while the document moved nothing, and gives it to additional_fields
// when it did (openjson read such a body twice, the second time moving
// every wait that is not a JSON number). Nothing is consumed otherwise.
func (d *Decoder) WaitFloatString() (float64, string, bool) {
	if d.peek() != '"' {
		return 0, "", false
	}
	start := d.pos
	v, err := d.Float64()
	if err != nil {
		d.pos = start
		return 0, "", false
	}
	end := d.pos
	d.pos = start
	s, _ := d.String()
	d.pos = end
	return v, s, true
}

// NumberNext reports whether a JSON number (or something starting like
// one) comes next.
func (d *Decoder) NumberNext() bool {
	c := d.peek()
	return c == '-' || ('0' <= c && c <= '9')
}
