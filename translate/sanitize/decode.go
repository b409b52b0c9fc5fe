package sanitize

import (
	"encoding/base64"
	"html"
	"sort"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// view is a decoded reading of a text for the second layer: HTML entities,
// \xHH and \uXXXX escapes, percent-encoding (repeatedly, so %2541 reads as
// A), fullwidth and other compatibility forms (NFKC) and the remnants of
// ANSI colour codes ("[0m" once the filter dropped the ESC) read as what
// they stand for. at maps each byte of text back to the byte of the
// original where its source begins; a redaction of text[s:e] covers the
// original from at.at(s) to at.at(e).
type view struct {
	text string
	at   posMap // nil when text is the original
	// rounds are the decodings one after another (the original first),
	// the last being text; nil when nothing was decoded.
	rounds []view
	// changes are the positions in text where it differs from the reading
	// it was made from (a decoded escape, a dropped ANSI remnant, a joined
	// wrap), one per line at most: around reads only the lines near them.
	changes []int
	// gaps are where around put partGap between two parts, in order.
	gaps []int
	// form is set on a reading that read a form's '+' as a space.
	form bool
}

// partGap separates around's parts: a blank line. A finding that reads
// across it is cut there (original), never stretched over the text
// between the parts.
const partGap = "\n\n"

// needsDecoding reports whether s holds anything decodedView would change.
func needsDecoding(s string) bool {
	var form formRun
	for i := 0; i < len(s); i++ {
		if !decodeStart[s[i]] {
			continue
		}
		switch c := s[i]; {
		case c == '+':
			if form.space(s, i) {
				return true
			}
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			return true
		case c == '\\' && i+3 < len(s) && (s[i+1] == 'x' || s[i+1] == 'u') && isHex(s[i+2]) && isHex(s[i+3]):
			return true
		case c == '\\' && i+1 < len(s) && strings.IndexByte(`nrt"\\/`, s[i+1]) >= 0:
			return true
		case c == '&' && i+3 < len(s) && strings.IndexByte(s[i:min(len(s), i+12)], ';') > 1:
			return true
		case c == 0xEF && i+1 < len(s) && (s[i+1] == 0xBC || s[i+1] == 0xBD), c == 0xE3 && i+2 < len(s) && s[i+1] == 0x80 && s[i+2] == 0x80:
			return true // fullwidth forms, the ideographic space
		case c == '[' && i > 0 && glueByte(s[i-1]) && i+2 < len(s) && '0' <= s[i+1] && s[i+1] <= '9':
			return true
		}
	}
	return false
}

func decodedView(s string) view {
	if !needsDecoding(s) {
		return view{text: s} // rounds nil: the text is its only reading
	}
	orig := view{text: s} // at nil: the original maps to itself
	rounds := []view{orig}
	v := orig
	for round := 0; round < 3; round++ {
		next, changed := decodeOnce(v, false)
		if !changed || next.text == v.text {
			break
		}
		v = next
		rounds = append(rounds, v)
	}
	// A form's reading beside them: '+' for a space as the first round
	// decodes it (a '+' of a password in a percent-encoded text stays one
	// in the readings above), then percent escapes only, since a '+' the
	// first round decoded from %2B is a plus.
	f := orig
	for round := 0; round < 3 && strings.IndexByte(s, '+') >= 0; round++ {
		next, changed := decodeOnce(f, round == 0)
		if !changed || next.text == f.text || round == 0 && !next.form {
			break
		}
		f = next
		rounds = append(rounds, f)
	}
	v.rounds = rounds
	return v
}

// src is the byte of the original where v.text[i] begins.
func (v view) src(i int) int { return v.at.at(i) }

// decodeStart marks the bytes where needsDecoding looks further.
var decodeStart = func() (t [256]bool) {
	for _, c := range []byte{'%', '\\', '&', '[', '+', 0xEF, 0xE3} {
		t[c] = true
	}
	return t
}()

// decodeSpecial marks the bytes where decodeOnce may decode something;
// the runs between them are copied whole.
var decodeSpecial = func() (t [256]bool) {
	for _, c := range []byte{'%', '\\', '&', '[', '+'} {
		t[c] = true
	}
	for c := 0x80; c < 0x100; c++ {
		t[c] = true
	}
	return t
}()

// decodeOnce decodes one layer of every escape form in v; changed is false
// (and the view not built) when v holds nothing to decode.
func decodeOnce(v view, form bool) (view, bool) {
	s := v.text
	var b strings.Builder
	var at posMapBuilder
	started := false
	var changes lineChanges
	start := func(i int) {
		if !started {
			started = true
			b.Grow(len(s))
			b.WriteString(s[:i])
			at.copyFrom(v.at, 0, i)
		}
		changes.add(b.String(), b.Len())
	}
	// emit writes str, decoded from s[src:].
	emit := func(str string, src int) {
		b.WriteString(str)
		at.add(len(str), v.src(src), 0)
	}
	var plus formRun
	plused := false
	for i := 0; i < len(s); {
		c := s[i]
		if !decodeSpecial[c] {
			j := i + 1
			for j < len(s) && !decodeSpecial[s[j]] {
				j++
			}
			if started {
				b.WriteString(s[i:j])
				at.copyFrom(v.at, i, j)
			}
			i = j
			continue
		}
		switch {
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			start(i)
			emit(string([]byte{hexVal(s[i+1])<<4 | hexVal(s[i+2])}), i)
			i += 3
			continue
		case c == '+' && form && plus.space(s, i):
			start(i)
			emit(" ", i)
			plused = true
			i++
			continue
		case c == '\\' && i+3 < len(s) && s[i+1] == 'x' && isHex(s[i+2]) && isHex(s[i+3]):
			start(i)
			emit(string([]byte{hexVal(s[i+2])<<4 | hexVal(s[i+3])}), i)
			i += 4
			continue
		case c == '\\' && i+5 < len(s) && s[i+1] == 'u' && isHex(s[i+2]) && isHex(s[i+3]) && isHex(s[i+4]) && isHex(s[i+5]):
			r := rune(hexVal(s[i+2]))<<12 | rune(hexVal(s[i+3]))<<8 | rune(hexVal(s[i+4]))<<4 | rune(hexVal(s[i+5]))
			start(i)
			emit(string(r), i)
			i += 6
			continue
		case c == '\\' && i+1 < len(s) && strings.IndexByte(`nrt"\\/`, s[i+1]) >= 0:
			// A JSON string's escapes: a YAML or a transcript written into
			// a JSON error body reads as lines again.
			start(i)
			emit(jsonEscaped[s[i+1]], i)
			i += 2
			continue
		case c == '&':
			if e := strings.IndexByte(s[i:min(len(s), i+12)], ';'); e > 1 {
				if u := html.UnescapeString(s[i : i+e+1]); u != s[i:i+e+1] {
					start(i)
					emit(u, i)
					i += e + 1
					continue
				}
			}
		case c == '[' && i > 0 && glueByte(s[i-1]):
			// An ANSI SGR remnant between token bytes: "[0m", "[1;31m".
			j := i + 1
			for j < len(s) && j-i < 10 && ('0' <= s[j] && s[j] <= '9' || s[j] == ';') {
				j++
			}
			if j > i+1 && j < len(s) && s[j] == 'm' {
				start(i)
				i = j + 1
				continue
			}
		case c >= 0x80:
			r, n := utf8.DecodeRuneInString(s[i:])
			if r >= 0xFF01 && r <= 0xFF5E || r == 0x3000 {
				start(i)
				emit(norm.NFKC.String(s[i:i+n]), i)
				i += n
				continue
			}
			if started {
				b.WriteString(s[i : i+n])
				at.copyFrom(v.at, i, i+n)
			}
			i += n
			continue
		}
		if started {
			emit(s[i:i+1], i)
		}
		i++
	}
	if !started {
		return v, false
	}
	return view{text: b.String(), at: at.done(v.src(len(s))), changes: changes.at, form: plused}, true
}

// formRun reads '+' as a space where a form encodes its text
// (application/x-www-form-urlencoded, Python's urlencode and quote_plus:
// "msg=login+failed+with+password+…"): between two bytes that are not
// blanks, in a run without blanks that holds a field's '=' before it or a
// percent escape anywhere. A base64 run holds neither before its padding,
// and stays one word. It remembers the last run it read, so the '+'s of one
// run cost one look.
type formRun struct {
	from, to int // the run [from, to) last read
	eq       int // its first '=', or to
	esc      bool
}

// formReach bounds how far from a '+' the run is read each way.
const formReach = 512

func (f *formRun) space(s string, i int) bool {
	if i == 0 || i+1 >= len(s) || formBlank(s[i-1]) || formBlank(s[i+1]) || s[i-1] == '+' {
		return false
	}
	if i < f.from || i >= f.to {
		f.from, f.to = i, i
		for f.from > 0 && i-f.from < formReach && !formBlank(s[f.from-1]) {
			f.from--
		}
		for f.to < len(s) && f.to-i < formReach && !formBlank(s[f.to]) {
			f.to++
		}
		run := s[f.from:f.to]
		f.eq = f.to
		if k := strings.IndexByte(run, '='); k >= 0 {
			f.eq = f.from + k
		}
		f.esc = holdsEscape(run)
	}
	return f.esc || f.eq < i
}

// holdsEscape reports whether s holds a percent escape (%XX).
func holdsEscape(s string) bool {
	for k := 0; k+2 < len(s); k++ {
		if s[k] == '%' && isHex(s[k+1]) && isHex(s[k+2]) {
			return true
		}
	}
	return false
}

func formBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// lineChanges are the positions where a decoding changed its text, the
// first on each line.
type lineChanges struct {
	at []int
	// scanned: out holds no line break from at's last up to here. Looked
	// for from at's last each time, a line of many changes was read once
	// per change (32 KiB of "xoxb-+%41", no line break, took 10 ms).
	scanned int
}

// add records p, a change at out[p], unless the last one is on its line.
func (c *lineChanges) add(out string, p int) {
	if n := len(c.at); n > 0 && strings.IndexByte(out[max(c.at[n-1], c.scanned):p], '\n') < 0 {
		c.scanned = p
		return
	}
	c.at = append(c.at, p)
	c.scanned = p
}

var jsonEscaped = map[byte]string{'n': "\n", 'r': "\r", 't': "\t", '"': `"`, '\\': `\`, '/': "/"}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func hexVal(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// redact replaces, in the original s, the bytes each ctxSpan of the view
// covers with RedactedToken.
func (v view) redact(s string, spans []ctxSpan) string {
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for _, sp := range spans {
		start, end := v.at.at(sp.start), v.at.at(sp.end)
		// Never end inside a character.
		for end < len(s) && !utf8.RuneStart(s[end]) {
			end++
		}
		if start < last {
			start = last
		}
		if end <= start {
			continue
		}
		b.WriteString(s[last:start])
		b.WriteString(RedactedToken)
		last = end
	}
	b.WriteString(s[last:])
	return b.String()
}

// decodeBase64 decodes a token in any of base64's four alphabets.
func decodeBase64(t string) ([]byte, bool) {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(t); err == nil {
			return b, true
		}
	}
	return nil, false
}

// original appends to out the spans of v as spans of the original text.
// A span across one of around's gaps is cut at it: the original text
// between two parts was not in this reading, and is not redacted.
func (v view) original(spans []ctxSpan, out []ctxSpan) []ctxSpan {
	for _, sp := range spans {
		for k := sort.SearchInts(v.gaps, sp.start); k < len(v.gaps) && v.gaps[k]+len(partGap) < sp.end; k++ {
			if g := v.gaps[k]; g > sp.start {
				out = append(out, ctxSpan{v.at.at(sp.start), v.at.at(g)})
			}
			sp.start = v.gaps[k] + len(partGap)
		}
		out = append(out, ctxSpan{v.at.at(sp.start), v.at.at(sp.end)})
	}
	return out
}

// wrapWidth is the shortest line a soft wrap ends: a terminal or a log
// viewer breaks a long token at its width, never after a few bytes.
const wrapWidth = 32

// softWrap reports whether the line break at s[i] (its line starting at
// lineStart) is a soft wrap: between token bytes (or after a token the
// first layer already redacted), ending a line of at least wrapWidth.
func softWrap(s string, lineStart, i int) bool {
	if i-lineStart < wrapWidth || i+1 >= len(s) || s[i+1] <= ' ' {
		return false
	}
	if ownLine(s[i+1:], s[lineStart:i]) {
		return false
	}
	if strings.HasSuffix(s[lineStart:i], RedactedToken) {
		// What follows is the rest of what was redacted, unless it is a
		// key or a header of its own ("WWW-Authenticate: ...").
		w := s[i+1:]
		if e := strings.IndexAny(w, " \t\n;,\"'<)]}|&"); e >= 0 {
			w = w[:e]
		}
		return !strings.ContainsAny(strings.TrimRight(w, "="), ":=") // base64 padding aside
	}
	return glueByte(s[i-1]) && glueByte(s[i+1])
}

// ownLine reports whether a line, after the line prev, starts with a key
// and its separator: a header or a YAML field ("Accept: */*"), an INI or
// properties line ("foreign_key_id = …", blanks before the '=' or ':'),
// or an env file's ("DB_HOST=db": a variable's name, or any key after a
// line that starts with one and '=' too): a line of its own, never the
// rest of a wrapped token, which holds no blank. Read as a wrap, "a =
// <token>\nb = <token>" lost the key b into the first value's redaction
// (detect-secrets' test_data/config.ini).
// A lone "key=V" may be a wrap inside a URL's query ("…&access_to\nken=V"),
// which joined reads as the key it is.
func ownLine(s, prev string) bool {
	for _, w := range shellAssignWords {
		if strings.HasPrefix(s, w) {
			s = s[len(w):] // export KEY=…: the shell's assignment is the line's
			break
		}
	}
	k, j, ok := keyAndSeparator(s)
	if !ok {
		return false
	}
	next := s[j+1]
	if j > k || next == ' ' || next == '\t' {
		return true
	}
	if s[j] != '=' || next == '=' || next == '\n' || next == '\r' {
		return false
	}
	_, pj, pok := keyAndSeparator(prev)
	return pok && prev[pj] == '=' || envName(s[:k])
}

// shellAssignWords start a line that assigns a variable (export
// DANGER_GITHUB_API_TOKEN=…, a Dockerfile's ENV and ARG, PowerShell's
// $env:): what follows is read as the line's key.
var shellAssignWords = []string{"export ", "set ", "declare ", "local ", "readonly ", "ENV ", "ARG ", "$env:"}

// envName: an environment variable's name, upper-case letters, digits and
// '_', a letter first ("CONNECTION_URI="), which a URL's query key seldom
// is.
func envName(k string) bool {
	if len(k) < 2 || k[0] < 'A' || k[0] > 'Z' {
		return false
	}
	for i := 0; i < len(k); i++ {
		if c := k[i]; !('A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// keyAndSeparator reads a line's start as a key, blanks and a ':' or '=' with
// a byte after it: the key's end, the separator's index and whether the
// line starts so.
func keyAndSeparator(s string) (keyEnd, sep int, ok bool) {
	k := 0
	for k < len(s) && ctxKeyByte(s[k]) {
		k++
	}
	j := k
	for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
		j++
	}
	return k, j, k > 0 && j+1 < len(s) && (s[j] == ':' || s[j] == '=')
}

// joinWraps is v with its soft line wraps removed: a line break between two
// token bytes, ending a line of at least wrapWidth bytes. A token wrapped
// at the terminal's width reads whole again.
func (v view) joinWraps() (view, bool) {
	s := v.text
	// The soft wraps, as the indexes of their line breaks.
	var wraps []int
	lineStart := 0
	for lineStart < len(s) {
		nl := strings.IndexByte(s[lineStart:], '\n')
		if nl < 0 {
			break
		}
		i := lineStart + nl
		if softWrap(s, lineStart, i) {
			wraps = append(wraps, i)
		}
		lineStart = i + 1
	}
	if len(wraps) == 0 {
		return view{}, false
	}
	var b strings.Builder
	b.Grow(len(s))
	var at posMapBuilder
	last := 0
	var changes lineChanges
	for _, w := range wraps {
		b.WriteString(s[last:w])
		at.copyFrom(v.at, last, w)
		changes.add(b.String(), b.Len())
		last = w + 1
	}
	b.WriteString(s[last:])
	at.copyFrom(v.at, last, len(s))
	return view{text: b.String(), at: at.done(v.src(len(s))), changes: changes.at}, true
}

// aroundLines is how many lines before and after a change a decoded
// reading keeps: a key and its value, a command and its prompt lie on one
// line or on two beside each other. Measured on 18,000 texts (the secrets
// corpus, fresh formats, their random concatenations): none leaked with
// 1, which found what 2 found; 0 leaked two.
const aroundLines = 1

// around is v cut to the lines near its changes, the rest of the text
// having been read already in the reading v was made from: a secret found
// only in v holds a change or sits beside one. The parts are joined by
// partGap, and map back to the original through v's map. Most of the
// text near a change is read whole (the copy would cost what it saves).
//
// With nextWord, the part ends after the first word of the line that
// follows instead (after is then 0).
//
// What it earns (issue 42): nothing a caller of Translate sees, whose
// texts seldom hold an escape (BenchmarkTextShort the same with it and
// without, 625 ns); the sanitiser's goal a fifth of its time: Text 1 KiB
// 25.3 µs with it, 28.2 without; 64 KiB 1.29 ms, 1.62 without; 1 MiB
// 22.7 ms, 27.6 without (medians of 5 interleaved, 2026-12-05). It is the
// one fast path that changes answers (11 of 18,000 mixed texts, each
// keeping a key's name with its value redacted, or redacting more; none
// leaks). Under the rule as written it goes; it stays on the
// sanitiser's figure, which is the maintainers' call.
func (v view) around(before, after int, nextWord bool) view {
	s := v.text
	var parts [][2]int
	for _, p := range v.changes {
		from, to := linesBefore(s, p, before), linesAfter(s, p, after)
		if nextWord && to < len(s) {
			to = wordEnd(s, to+1)
		}
		if n := len(parts); n > 0 && from <= parts[n-1][1]+1 {
			parts[n-1][1] = max(parts[n-1][1], to)
			continue
		}
		parts = append(parts, [2]int{from, to})
	}
	kept := 0
	for _, pt := range parts {
		kept += pt[1] - pt[0]
	}
	if len(parts) == 0 || kept*4 >= len(s)*3 {
		return v
	}
	var b strings.Builder
	b.Grow(kept + len(partGap)*len(parts))
	var at posMapBuilder
	gaps := make([]int, 0, len(parts)-1)
	for k, pt := range parts {
		if k > 0 {
			gaps = append(gaps, b.Len())
			b.WriteString(partGap)
			at.add(len(partGap), v.src(parts[k-1][1]), 0)
		}
		b.WriteString(s[pt[0]:pt[1]])
		at.copyFrom(v.at, pt[0], pt[1])
	}
	return view{text: b.String(), at: at.done(v.src(parts[len(parts)-1][1])), gaps: gaps}
}

// linesBefore is the start of the line n lines before the one holding s[p].
func linesBefore(s string, p, n int) int {
	from := strings.LastIndexByte(s[:p], '\n') + 1
	for ; n > 0 && from > 0; n-- {
		from = strings.LastIndexByte(s[:from-1], '\n') + 1
	}
	return from
}

// linesAfter is the end (its line break excluded) of the line n lines after
// the one holding s[p].
func linesAfter(s string, p, n int) int {
	to := len(s)
	if e := strings.IndexByte(s[p:], '\n'); e >= 0 {
		to = p + e
	}
	for ; n > 0 && to < len(s); n-- {
		if e := strings.IndexByte(s[to+1:], '\n'); e >= 0 {
			to += 1 + e
		} else {
			to = len(s)
		}
	}
	return to
}
