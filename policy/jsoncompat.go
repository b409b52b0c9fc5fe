package policy

import (
	"encoding/json"
	"fmt"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// A JSON file is read as YAML (its flow style) so that every value has a
// line and column. Two JSON string escapes are not YAML's: "\/" (PHP and
// some Java encoders write every slash so) and a UTF-16 surrogate pair
// ("\ud83d\ude00"). jsonCompat rewrites them, in valid JSON only, into what
// YAML reads as the same string, and records where the text got shorter,
// so the parsed nodes' columns are moved back to the file's.

// colShift says that n characters were removed at output column col of a
// line: a column after it is n further right in the file.
type colShift struct{ col, n int }

func jsonCompat(data []byte) ([]byte, map[int][]colShift) {
	if !json.Valid(data) {
		return data, nil
	}
	var out []byte
	shifts := map[int][]colShift{}
	line, col := 1, 1 // of the output, in characters as yaml.v3 counts them
	inString := false
	emit := func(b ...byte) {
		for _, c := range b {
			out = append(out, c)
			switch {
			case c == '\n':
				line, col = line+1, 1
			case c&0xC0 != 0x80: // the first byte of a character
				col++
			}
		}
	}
	for i := 0; i < len(data); i++ {
		c := data[i]
		if !inString {
			inString = c == '"'
			emit(c)
			continue
		}
		switch c {
		case '"':
			inString = false
			emit(c)
			continue
		case '\\':
		default:
			emit(c)
			continue
		}
		// An escape; json.Valid vouches for its shape.
		switch data[i+1] {
		case '/':
			shifts[line] = append(shifts[line], colShift{col, 1})
			emit('/')
			i++
			continue
		case 'u':
			r, _ := strconv.ParseUint(string(data[i+2:i+6]), 16, 32)
			switch {
			case r >= 0xD800 && r < 0xDC00 && i+12 <= len(data) && data[i+6] == '\\' && data[i+7] == 'u':
				lo, err := strconv.ParseUint(string(data[i+8:i+12]), 16, 32)
				if err == nil && lo >= 0xDC00 && lo < 0xE000 {
					full := 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
					shifts[line] = append(shifts[line], colShift{col, 2})
					emit([]byte(fmt.Sprintf(`\U%08X`, full))...)
					i += 11
					continue
				}
				fallthrough
			case r >= 0xD800 && r < 0xE000:
				// A lone surrogate is no character: the replacement
				// character, as encoding/json decodes it.
				emit([]byte(`\uFFFD`)...)
				i += 5
				continue
			}
		}
		emit(c, data[i+1])
		i++
	}
	if len(shifts) == 0 {
		return data, nil
	}
	return out, shifts
}

// fixColumns moves every node's column back to the file's.
func fixColumns(n *yaml.Node, shifts map[int][]colShift) {
	if n == nil || len(shifts) == 0 {
		return
	}
	col := n.Column
	for _, s := range shifts[n.Line] {
		if s.col < n.Column {
			col += s.n
		}
	}
	n.Column = col
	for _, c := range n.Content {
		fixColumns(c, shifts)
	}
}
