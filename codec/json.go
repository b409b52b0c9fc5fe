package codec

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/errsvc/errsvc/codec/jsonwire"
)

// MaxJSONDepth is how deeply a request's JSON (REST body, CLI input) and the
// google.protobuf.Struct/Value/ListValue trees of a gRPC request may nest.
// Every contract errsvc reads is a few levels deep with free-form details a
// few more; protojson recurses once per level, so a body of a few KiB nested
// ten thousand deep costs a deep goroutine stack for nothing.
const MaxJSONDepth = 64

// MaxJSONValues is how many JSON values (object members and array elements,
// counted as the containers and the commas between them) a request's JSON
// and the Struct/Value trees of a gRPC request may hold. A decoded value
// costs a few hundred bytes (a map entry, a structpb.Value, its string), so
// a 4 MiB body of 419,000 one-byte keys decoded to about 150 MiB; at this
// limit a request decodes to at most about 24 MiB whatever its shape. An
// error's details hold tens of values, a large one a few thousand.
const MaxJSONValues = 65536

// FieldError is a request refused before decoding, naming where: Field is a
// dotted path as the caller wrote it (JSON keys, [i] for array elements,
// proto field names on the gRPC wire), or "body" when the problem is at the
// top. Field holds caller-written text (keys): sanitise it before echoing.
type FieldError struct {
	Field       string
	Description string
	// Err is a sentinel the caller may test with errors.Is (ErrInvalidUTF8,
	// ErrTooDeep), or nil.
	Err error
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Description }

func (e *FieldError) Unwrap() error { return e.Err }

// ErrTooDeep is wrapped by the error for nesting past the limit.
var ErrTooDeep = errorString("nested too deeply")

// ErrTooWide is wrapped by the error for more values than MaxJSONValues.
var ErrTooWide = errorString("too many values")

// ErrLoneSurrogate is wrapped by CheckJSON's error for a \uD800-\uDFFF
// escape that is not half of a surrogate pair.
var ErrLoneSurrogate = errorString("lone UTF-16 surrogate")

type errorString string

func (e errorString) Error() string { return string(e) }

// pathKeep is how many levels of path CheckJSON remembers for its error;
// deeper levels are counted, not named, so the scan allocates nothing on
// the way down.
const pathKeep = 8

// CheckJSON scans a JSON document once, without decoding it, and refuses
// what would make the decoder do unbounded work or answer a useless error:
// nesting deeper than maxDepth objects and arrays, more than MaxJSONValues
// values, a string (key or value)
// holding invalid UTF-8, and a \u escape that is half a surrogate pair. It
// understands strings and escapes, so brackets inside strings do not count.
// It does not otherwise validate the syntax: the decoder that runs next
// reports that, and a scan over broken JSON simply stops. The error is a
// *FieldError naming the path, e.g. "labby_error.details.a[2].b".
func CheckJSON(body []byte, maxDepth int) error {
	var (
		depth int
		// Per remembered level: the container kind, whether an object
		// expects a key next, the current key (offsets into body) or array
		// index.
		isArray   [pathKeep]bool
		expectKey [pathKeep]bool
		keyStart  [pathKeep]int
		keyEnd    [pathKeep]int
		index     [pathKeep]int
		values    int
	)
	path := func(extra string) string {
		var b strings.Builder
		for d := 0; d < depth && d < pathKeep; d++ {
			switch {
			case isArray[d]:
				b.WriteString("[" + strconv.Itoa(index[d]) + "]")
			case keyEnd[d] > keyStart[d]:
				if b.Len() > 0 {
					b.WriteByte('.')
				}
				b.Write(body[keyStart[d]:keyEnd[d]])
			}
		}
		if depth > pathKeep {
			b.WriteString(".…")
		}
		b.WriteString(extra)
		if b.Len() == 0 {
			return "body"
		}
		return b.String()
	}
	for i := 0; i < len(body); i++ {
		switch c := body[i]; c {
		case '{', '[':
			if values++; values > MaxJSONValues {
				return tooWide(path(""))
			}
			if depth >= maxDepth {
				return &FieldError{Field: path(""), Err: ErrTooDeep,
					Description: "JSON nested deeper than " + strconv.Itoa(maxDepth) + " levels"}
			}
			if depth < pathKeep {
				isArray[depth], expectKey[depth] = c == '[', c == '{'
				keyStart[depth], keyEnd[depth], index[depth] = 0, 0, 0
			}
			depth++
		case '}', ']':
			if depth > 0 {
				depth--
			}
		case ',':
			if values++; values > MaxJSONValues {
				return tooWide(path(""))
			}
			if d := depth - 1; d >= 0 && d < pathKeep {
				if isArray[d] {
					index[d]++
				} else {
					expectKey[d] = true
				}
			}
		case ':':
			if d := depth - 1; d >= 0 && d < pathKeep {
				expectKey[d] = false
			}
		case '"':
			start := i + 1
			end, err := scanString(body, start)
			isKey := false
			if d := depth - 1; d >= 0 && d < pathKeep && !isArray[d] && expectKey[d] {
				isKey = true
				keyStart[d], keyEnd[d] = start, end
			}
			if err != nil {
				what := "string value"
				if isKey {
					what = "key"
				}
				return &FieldError{Field: path(""), Err: err, Description: what + " is not valid text: " + err.Error()}
			}
			if end >= len(body) {
				return nil // unterminated: the decoder says so
			}
			i = end
		}
	}
	return nil
}

func tooWide(field string) error {
	return &FieldError{Field: field, Err: ErrTooWide,
		Description: "JSON holds more than " + strconv.Itoa(MaxJSONValues) + " values (object members and array elements)"}
}

// scanString returns the index of the closing quote of the string whose
// contents start at body[i] (len(body) if there is none), or an error for
// invalid UTF-8 or a lone surrogate escape.
func scanString(body []byte, i int) (int, error) {
	for i < len(body) {
		c := body[i]
		switch {
		case c == '"':
			return i, nil
		case c == '\\':
			if i+1 >= len(body) {
				return len(body), nil
			}
			if body[i+1] != 'u' {
				i += 2
				continue
			}
			r, ok := jsonwire.Hex4(body, i+2)
			if !ok {
				i += 2 // malformed: the decoder reports it
				continue
			}
			i += 6
			switch {
			case 0xDC00 <= r && r <= 0xDFFF:
				return i, ErrLoneSurrogate
			case 0xD800 <= r && r <= 0xDBFF:
				if i+1 < len(body) && body[i] == '\\' && body[i+1] == 'u' {
					if lo, ok := jsonwire.Hex4(body, i+2); ok && 0xDC00 <= lo && lo <= 0xDFFF {
						i += 6
						continue
					}
				}
				return i, ErrLoneSurrogate
			}
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(body[i:])
			if r == utf8.RuneError && size <= 1 {
				return i, ErrInvalidUTF8
			}
			i += size
		}
	}
	return i, nil
}
