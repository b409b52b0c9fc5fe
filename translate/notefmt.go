package translate

import (
	"strconv"
	"strings"
	"sync/atomic"
)

// formatNote is fmt.Sprintf for the verbs notes use (%s, %q, %d, %g and
// %%) and the types they pass (strings, integers, floats, bools). It exists
// because fmt makes every argument escape, so each note cost one allocation
// per argument besides its text; here the arguments stay on the caller's
// stack. An argument of another type is written as fmt's %v would not be
// ("?") and counted in noteFallbacks, which the tests require to stay 0
// over every golden vector.
//
// What it earns a caller (issue 42's rule), measured twice against
// fmt.Sprintf (bench/ab.sh, 3 interleaved rounds each, 2026-12-05): beside
// the note texts' cache (notecache.go), gRPC Translate cold (a) ran 1.5%
// and 2.2% faster without it at 16 and 64 callers, REST (c) 0.8% and
// 4.2%; without the cache, a 3.1% slower and 1.2% faster, c 6.8% slower
// and 3.1% faster. At the bar at 16 callers, noise at 64; it stays: without
// the cache it kept the load mix's sources at one or two allocations (four
// without it), and the cache's misses still format with it.
func formatNote(format string, args []any) string {
	// On the stack for the common note; copied once into its text below.
	buf := make([]byte, 0, 256)
	next := 0
	for i := 0; i < len(format); i++ {
		// The text up to the next verb, in one copy.
		j := strings.IndexByte(format[i:], '%')
		if j < 0 {
			buf = append(buf, format[i:]...)
			break
		}
		buf = append(buf, format[i:i+j]...)
		i += j
		if i+1 == len(format) {
			buf = append(buf, '%')
			continue
		}
		i++
		verb := format[i]
		if verb == '%' {
			buf = append(buf, '%')
			continue
		}
		if next == len(args) {
			buf = append(buf, "%!"...)
			buf = append(buf, verb)
			buf = append(buf, "(MISSING)"...)
			continue
		}
		buf = appendNoteArg(buf, verb, args[next])
		next++
	}
	return string(buf)
}

var noteFallbacks atomic.Int64

// plainASCII reports whether s is printable ASCII without '"' or '\\'.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

func appendNoteArg(buf []byte, verb byte, arg any) []byte {
	switch v := arg.(type) {
	case string:
		if verb == 'q' {
			if plainASCII(v) {
				// What AppendQuote writes for printable ASCII without
				// a quote or a backslash: the text in quotes.
				buf = append(buf, '"')
				buf = append(buf, v...)
				return append(buf, '"')
			}
			return strconv.AppendQuote(buf, v)
		}
		return append(buf, v...)
	case int:
		return strconv.AppendInt(buf, int64(v), 10)
	case int32:
		return strconv.AppendInt(buf, int64(v), 10)
	case int64:
		return strconv.AppendInt(buf, v, 10)
	case uint32:
		return strconv.AppendUint(buf, uint64(v), 10)
	case uint64:
		return strconv.AppendUint(buf, v, 10)
	case float64:
		return strconv.AppendFloat(buf, v, 'g', -1, 64)
	case bool:
		return strconv.AppendBool(buf, v)
	}
	noteFallbacks.Add(1)
	return append(buf, '?')
}
