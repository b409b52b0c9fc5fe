package jsonwire

import (
	"encoding/base64"
	"errors"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"unicode/utf8"
)

// Encoder writes one JSON document in protojson's form: fields in
// declaration order, unpopulated fields left out, int64 as strings, map and
// Struct keys sorted. The first failure (invalid UTF-8 in a string, a
// NaN in a google.protobuf.Value, ...) sticks and is returned by Err.
type Encoder struct {
	Buf []byte
	// ProtoNames writes proto field names (as protojson's UseProtoNames);
	// else lowerCamel JSON names.
	ProtoNames bool
	// TopLevelLists writes the empty lists of the top-level message as []
	// (the REST answers promise them; protojson leaves them out).
	TopLevelLists bool

	depth int
	err   error
}

// Err is the first failure, or nil.
func (e *Encoder) Err() error { return e.err }

func (e *Encoder) fail(err error) {
	if e.err == nil {
		e.err = err
	}
}

// ErrInvalidUTF8 is the failure of a string that is not valid UTF-8.
var ErrInvalidUTF8 = errors.New("string field contains invalid UTF-8")

// BeginObject writes '{'.
func (e *Encoder) BeginObject() {
	e.depth++
	e.Buf = append(e.Buf, '{')
}

// EndObject writes '}'.
func (e *Encoder) EndObject() {
	e.depth--
	e.Buf = append(e.Buf, '}')
}

// TopLevel reports whether the object being written is the document's.
func (e *Encoder) TopLevel() bool { return e.depth == 1 }

// Name writes the member name of a field: proto (a quoted "name":) or JSON
// spelling, after a ',' unless first.
func (e *Encoder) Name(first *bool, proto, json string) {
	if !*first {
		e.Buf = append(e.Buf, ',')
	}
	*first = false
	if e.ProtoNames {
		e.Buf = append(e.Buf, proto...)
	} else {
		e.Buf = append(e.Buf, json...)
	}
}

// Key writes a member name given as text (a map or Struct key).
func (e *Encoder) Key(first *bool, k string) {
	if !*first {
		e.Buf = append(e.Buf, ',')
	}
	*first = false
	e.String(k)
	e.Buf = append(e.Buf, ':')
}

// Comma writes ',' unless first.
func (e *Encoder) Comma(first *bool) {
	if !*first {
		e.Buf = append(e.Buf, ',')
	}
	*first = false
}

// String writes a JSON string with protojson's escapes.
func (e *Encoder) String(s string) {
	b := append(e.Buf, '"')
	start := 0
	for i := 0; i < len(s); {
		if n := plainRun(s[i:]); n > 0 {
			i += n
			continue
		}
		c := s[i]
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 {
				e.fail(ErrInvalidUTF8)
				b = append(b, s[start:i]...)
				start = i + 1
			}
			i += n
			continue
		}
		// plainRun stopped here: c is a control byte, a quote or a backslash.
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u')
			b = append(b, "0000"[1+(bits.Len32(uint32(c))-1)/4:]...)
			b = strconv.AppendUint(b, uint64(c), 16)
		}
		i++
		start = i
	}
	b = append(b, s[start:]...)
	e.Buf = append(b, '"')
}

// plainRun is the length of s's leading run of bytes a JSON string holds
// as they are: printable ASCII other than '"' and '\\'. It tests eight
// bytes at a time (the bit tricks say whether a word holds a byte below
// 0x20, a quote, a backslash or a byte from 0x80; they may flag a word
// that holds none, never miss one), then byte by byte from the first word
// flagged. TestPlainRunIsTheByteLoop holds it to the plain loop.
func plainRun(s string) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(s); i += 8 {
		x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		q, bs := x^(ones*'"'), x^(ones*'\\')
		if ((x-ones*0x20)&^x|(q-ones)&^q|(bs-ones)&^bs|x)&highs != 0 {
			break
		}
	}
	for i < len(s) && plainByte(s[i]) {
		i++
	}
	return i
}

func plainByte(c byte) bool { return c >= ' ' && c < utf8.RuneSelf && c != '"' && c != '\\' }

// Bool writes true or false.
func (e *Encoder) Bool(v bool) { e.Buf = strconv.AppendBool(e.Buf, v) }

// Int32 writes a number.
func (e *Encoder) Int32(v int32) { e.Buf = strconv.AppendInt(e.Buf, int64(v), 10) }

// Uint32 writes a number.
func (e *Encoder) Uint32(v uint32) { e.Buf = strconv.AppendUint(e.Buf, uint64(v), 10) }

// Int64 writes a quoted number.
func (e *Encoder) Int64(v int64) {
	e.Buf = append(e.Buf, '"')
	e.Buf = strconv.AppendInt(e.Buf, v, 10)
	e.Buf = append(e.Buf, '"')
}

// Uint64 writes a quoted number.
func (e *Encoder) Uint64(v uint64) {
	e.Buf = append(e.Buf, '"')
	e.Buf = strconv.AppendUint(e.Buf, v, 10)
	e.Buf = append(e.Buf, '"')
}

// Float64 writes a double as protojson does ("NaN" and the infinities as
// strings).
func (e *Encoder) Float64(v float64) { e.Buf = appendFloat(e.Buf, v, 64) }

// Float32 writes a float as protojson does.
func (e *Encoder) Float32(v float32) { e.Buf = appendFloat(e.Buf, float64(v), 32) }

func appendFloat(out []byte, n float64, bitSize int) []byte {
	switch {
	case math.IsNaN(n):
		return append(out, `"NaN"`...)
	case math.IsInf(n, +1):
		return append(out, `"Infinity"`...)
	case math.IsInf(n, -1):
		return append(out, `"-Infinity"`...)
	}
	// encoding/json's (and protojson's) choice between 'f' and 'e'.
	format := byte('f')
	if abs := math.Abs(n); abs != 0 {
		if bitSize == 64 && (abs < 1e-6 || abs >= 1e21) ||
			bitSize == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	out = strconv.AppendFloat(out, n, format, -1, bitSize)
	if format == 'e' {
		if k := len(out); k >= 4 && out[k-4] == 'e' && out[k-3] == '-' && out[k-2] == '0' {
			out[k-2] = out[k-1]
			out = out[:k-1]
		}
	}
	return out
}

// Bytes writes standard padded base64.
func (e *Encoder) Bytes(v []byte) {
	e.Buf = append(e.Buf, '"')
	e.Buf = base64.StdEncoding.AppendEncode(e.Buf, v)
	e.Buf = append(e.Buf, '"')
}

// StringList writes a list of strings.
func (e *Encoder) StringList(v []string) {
	e.Buf = append(e.Buf, '[')
	for i, s := range v {
		if i > 0 {
			e.Buf = append(e.Buf, ',')
		}
		e.String(s)
	}
	e.Buf = append(e.Buf, ']')
}

// StringMap writes a map of strings, keys sorted.
func (e *Encoder) StringMap(m map[string]string) {
	var arr [16]string
	keys := arr[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	e.Buf = append(e.Buf, '{')
	first := true
	for _, k := range keys {
		e.Key(&first, k)
		e.String(m[k])
	}
	e.Buf = append(e.Buf, '}')
}
