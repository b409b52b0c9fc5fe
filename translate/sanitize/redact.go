package sanitize

import (
	"encoding/base64"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// redactPass scans s once, left to right, and replaces every secret it
// finds by RedactedToken. It reports whether the text changed (a value that
// already reads "[REDACTED]" is left as it is and is not a change). The
// rules match on escapeView(s), a same-length copy of s in which JSON
// (\uXXXX, \n, \t, …) and URL (%XX) escapes read as the character they
// stand for, padded with spaces, so an escape is a word break; what is
// replaced is cut from s itself. The hand rules' scan is linear: every rule
// either consumes what it matched or looks at a bounded number of bytes.
// The gitleaks rules (rules.go) then add their secrets.
func redactPass(s string) (string, bool) {
	sc := scratchPool.Get().(*scratch)
	defer scratchPool.Put(sc)
	return replaceSpans(s, secretSpans(s, sc))
}

// redactFilter is filter(redactPass(s)) without writing the redacted text:
// the filter reads s and RedactedToken in place of each span replaced. It
// reports what each step changed.
func redactFilter(s string) (out string, redacted, stripped, removed bool) {
	sc := scratchPool.Get().(*scratch)
	defer scratchPool.Put(sc)
	repl := secretSpans(s, sc)
	if len(repl) == 0 {
		out, stripped, removed = filter(s)
		return out, false, stripped, removed
	}
	out, stripped, removed = filterSpans(s, repl)
	return out, true, stripped, removed
}

// secretSpans runs the hand rules and the gitleaks rules over
// escapeView(s), widens the gitleaks rules' spans to their tokens, merges
// all spans and returns, in order, those that change s when replaced by
// RedactedToken. They live in sc's storage until sc's next pass.
func secretSpans(s string, sc *scratch) []span {
	view, decoded := s, false
	if escapeBytes(s) {
		view, decoded = escapeDecode(s)
	}
	r := redactor{s: view, spans: sc.spans[:0]}
	handScan(&r)
	hand := len(r.spans)
	spans := ruleSpans(view, sc, r.spans)
	widen(view, spans[hand:])
	spans = mergeSpans(spans)
	if decoded && len(spans) > 0 {
		spans = mergeSpans(startAtEscapes(s, spans))
	}
	out := spans[:0]
	for _, sp := range spans {
		if s[sp.from:sp.to] != RedactedToken && !benignSpan(s, sp.from, sp.to) {
			out = append(out, sp)
		}
	}
	sc.spans = out[:0]
	return out
}

// replaceSpans writes s with each of spans (in order, apart) replaced by
// RedactedToken, and reports whether there was one.
func replaceSpans(s string, spans []span) (string, bool) {
	if len(spans) == 0 {
		return s, false
	}
	n := len(s)
	for _, sp := range spans {
		n += len(RedactedToken) - (sp.to - sp.from)
	}
	var out strings.Builder
	out.Grow(n)
	last := 0
	for _, sp := range spans {
		out.WriteString(s[last:sp.from])
		out.WriteString(RedactedToken)
		last = sp.to
	}
	out.WriteString(s[last:])
	return out.String(), true
}

// handScan runs the hand rules over r.s, left to right. It tries the same
// rules at the same places as handScanRef (reference_test.go), the plain
// loop it replaced, but rules most words out without a call: a word is
// tried as a key only when its run of key bytes is followed by a pair
// separator, and as a token only when its first two bytes can start one
// (tokenStart). TestHandScanMatchesReference and FuzzHandScan hold the two
// to the same spans.
func handScan(r *redactor) {
	s := r.s
	for i := 0; i < len(s); {
		switch byteClass[s[i]] {
		case classOther:
			i++
			for i < len(s) && byteClass[s[i]] == classOther {
				i++
			}
		case classDash:
			// pemBlock and urlUserinfo start with a prefix ("-----BEGIN ",
			// "://"): its second byte is looked at before the call.
			if i+1 < len(s) && s[i+1] == '-' {
				if end, ok := pemBlock(s, i); ok {
					r.replace(i, end)
					i = end
					continue
				}
			}
			i++
		case classColon:
			if i+1 >= len(s) || s[i+1] != '/' {
				i++
				continue
			}
			if from, to, ok := urlUserinfo(s, i); ok {
				r.replace(from, to)
				i = to
				continue
			}
			i++
		case classWord:
			if i > 0 && byteClass[s[i-1]] == classWord {
				i++
				continue
			}
			// The word's end, and whether it holds a '_' (a glued token may
			// start after it).
			e := i + 1
			u := wordFlags[s[i]]
			for e < len(s) {
				c := wordFlags[s[e]]
				if c == 0 {
					break
				}
				u |= c
				e++
			}
			under := u&flagUnder != 0
			if i >= r.keyEnd {
				// keyValue's run of key bytes (a word is a part of it).
				k := e
				for k < len(s) && keyTable[s[k]] {
					k++
				}
				r.keyStart, r.keyEnd = i, k
				// Every word start in this run is tried as a key ending
				// at k; when the run's end can end no secret name, none
				// can be one (secretTail) and no separator is looked for.
				// (secretTail rejects more places than separatorAhead, at
				// less cost.)
				if k < len(s) && sepStart[s[k]] && (s[k] != ' ' || (k+1 < len(s) && sepAfterBlank[s[k+1]])) &&
					secretTail(s[i:k]) && separatorAhead(s, k) {
					r.sepAt, r.sep, r.sepLen = pairSeparator(s, k)
				} else {
					r.sepAt, r.sep, r.sepLen = 0, 0, 0
				}
			}
			if r.sep != 0 {
				if next, ok := r.keyValue(i); ok {
					i = next
					continue
				}
			}
			if tokenStart(s, i) {
				if next, ok := r.tokenRule(i); ok {
					i = next
					continue
				}
			}
			// Inside escaped JSON ("failed\tsk-..."), the escape's letter
			// glues onto the token: try the word that starts after it.
			if i > 0 && s[i-1] == '\\' && escapeLetter(s[i]) && i+1 < len(s) && byteClass[s[i+1]] == classWord {
				if next, ok := r.word(i + 1); ok {
					i = next
					continue
				}
			}
			// Not a secret at the word's start. A token glued behind '_'
			// (key_sk-proj-…, id_eyJ…) still starts a token rule.
			if under {
				for k := i + 1; k < e; k++ {
					if s[k-1] == '_' && s[k] != '_' && tokenStart(s, k) {
						if next, ok := r.tokenRule(k); ok {
							e = next
							break
						}
					}
				}
			}
			i = e
		default:
			// No class but the four above exists; a byte of a class added
			// to byteClass and not here is passed over, never looped on
			// (handScanRef panics on it, so the tests name it).
			i++
		}
	}
}

// lineEnd is lineEnd(r.s, p), from the last one found when p lies
// before it on its line: the scan asks along one line many times (each key
// of "a=1 b=2 …"), and finds each line's end once.
func (r *redactor) lineEnd(p int) int {
	if p < r.lineFrom || p >= r.linePast {
		r.lineFrom, r.linePast = p, lineEnd(r.s, p)+1
	}
	return r.linePast - 1
}

// separatorAhead is pairSeparator's quick reject: it follows the same
// steps (a closing quote or escaped quote, then blanks) and returns false
// when the byte reached can neither be a separator nor start a Unicode
// space or a fullwidth sign, so that pairSeparator finds none.
func separatorAhead(s string, k int) bool {
	if k >= len(s) {
		return false
	}
	p := k
	switch s[p] {
	case '"', '\'':
		p++
	case '\\':
		q := p
		for q < len(s) && s[q] == '\\' {
			q++
		}
		if q < len(s) && s[q] == '"' {
			p = q + 1
		}
	}
	for ; p < len(s); p++ {
		switch b := s[p]; b {
		case ' ', '\t':
			continue
		case ':', '=', 0xc2, 0xe2, 0xe3, 0xef:
			// A separator, or the first byte of a no-break, ideographic or
			// other Unicode space, or of a fullwidth colon or equals sign:
			// pairSeparator decides.
			return true
		default:
			return false
		}
	}
	return false
}

// wordFlags marks the word bytes (flagWord) and '_' (also flagUnder):
// handScan finds a word's end and whether it holds a '_' with one load a
// byte.
const (
	flagWord  = 1
	flagUnder = 2
)

var wordFlags = func() (t [256]uint8) {
	for b := 0; b < 256; b++ {
		if byteClass[b] == classWord {
			t[b] = flagWord
		}
	}
	t['_'] |= flagUnder
	return t
}()

// blankByte is 1 for ' ', 0 for any other byte.
var blankByte = [256]uint8{' ': 1}

// sepStart marks the bytes separatorAhead can return true at, and
// sepAfterBlank those it can return true at after a blank: handScan's
// inlined first look, so that most words cost no call.
var sepStart, sepAfterBlank = func() (start, blank [256]bool) {
	for _, b := range []byte{' ', '\t', ':', '=', 0xc2, 0xe2, 0xe3, 0xef} {
		start[b], blank[b] = true, true
	}
	for _, b := range []byte{'"', '\'', '\\'} {
		start[b] = true
	}
	return start, blank
}()

// tokenStart reports whether tokenRule can match at i: s[i:] starts with
// "bearer" (any case) or with the first two bytes of a prefix rule.
func tokenStart(s string, i int) bool {
	return i+1 < len(s) && tokenSecond[s[i]].has(s[i+1])
}

// tokenSecond is prefixSecond plus the second byte of "bearer": the pairs
// a word can start with where tokenRule can match (it needs the pair, and
// "bearer" needs seven bytes).
var tokenSecond = func() (t [256]byteSet256) {
	t = prefixSecond
	for _, b := range []byte{'B', 'b'} {
		t[b].add('E')
		t[b].add('e')
	}
	return t
}()

// escapeLetter is the letter of a JSON escape that glues onto a word
// (\t, \n, \r, \b, \f).
func escapeLetter(b byte) bool {
	return b == 't' || b == 'n' || b == 'r' || b == 'b' || b == 'f'
}

// scratch holds one pass's working slices, reused across calls so that a
// pass over clean text allocates nothing.
type scratch struct {
	hits   []kwHit
	cands  []candidate
	spans  []span
	litPos [][]int32 // per literal slot, where the keyword pass found it
	// runs is collectHits' memo of secret runs, one per rule
	runs []runEnd
	// tail is matchFrom's memo for the gap rule being run (leakRule.run)
	tail tailMemo
	// sortKeys and sorted are sortCandidates' room
	sortKeys []uint64
	sorted   []candidate
}

// memoHits is how many keyword hits a text needs before collectHits
// remembers the runs of secret bytes it reads: with few hits, clearing a
// memo per rule would cost more than reading the runs again.
const memoHits = 64

// secretRuns is the cleared memo of one per rule of rs for a text of hits
// keyword hits, or nil when there are too few of them.
func (sc *scratch) secretRuns(rs *ruleSet, hits int) []runEnd {
	if hits < memoHits {
		return nil
	}
	if len(sc.runs) < len(rs.rules) {
		sc.runs = make([]runEnd, len(rs.rules))
	}
	sc.runs = sc.runs[:len(rs.rules)]
	clear(sc.runs)
	return sc.runs
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// widen grows each rule span to the whole token around it, so no piece of
// a secret stays beside the placeholder when a rule's group is shorter
// than the token.
func widen(s string, spans []span) []span {
	for k := range spans {
		sp := &spans[k]
		for sp.from > 0 && widenLeft(s[sp.from-1]) {
			sp.from--
		}
		for sp.to < len(s) && tokenTable[s[sp.to]] {
			sp.to++
		}
		for sp.to > sp.from+1 && s[sp.to-1] == '.' {
			sp.to--
		}
	}
	return spans
}

func widenLeft(b byte) bool { return alnum(b) || b == '+' || b == '/' || b == '-' }

// mergeSpans sorts spans and joins the overlapping ones. A span that only
// touches a RedactedToken stays apart from it.
func mergeSpans(spans []span) []span {
	if len(spans) < 2 {
		return spans
	}
	slices.SortFunc(spans, func(a, b span) int { return a.from - b.from })
	out := spans[:1]
	for _, sp := range spans[1:] {
		last := &out[len(out)-1]
		if sp.from < last.to {
			if sp.to > last.to {
				last.to = sp.to
			}
			continue
		}
		out = append(out, sp)
	}
	return out
}

// escapeBytes reports whether s holds a byte that starts an escape
// ('\\' or '%'): without one, escapeView(s) is s.
func escapeBytes(s string) bool {
	return strings.IndexByte(s, '\\') >= 0 || strings.IndexByte(s, '%') >= 0
}

// escapeView returns s with every JSON escape (\uXXXX, \n, \r, \t, \b,
// \f, after any run of backslashes) and URL escape (%XX) replaced by
// spaces ending in the character it stands for (a space when that is not
// printable ASCII or is a backslash; a newline for \n). The result has the
// length of s, so positions carry over. A '%' (%25) stays one: as a space
// it let a rule read what follows it as a value of its own
// ("Pwd=%257B&…" doubly escaped read "7B", which hid the brace the
// decoded reading needs).
func escapeView(s string) string {
	if !escapeBytes(s) {
		return s
	}
	view, _ := escapeDecode(s)
	return view
}

// escapeDecode is escapeView for s that holds an escape byte, and whether
// an escape was decoded (the view is then a copy, not s).
func escapeDecode(s string) (string, bool) {
	var b []byte
	eachEscape(s, func(from, to int, c byte) {
		if b == nil {
			b = []byte(s)
		}
		for k := from; k < to-1; k++ {
			b[k] = ' '
		}
		b[to-1] = c
	})
	if b == nil {
		return s, false
	}
	return string(b), true
}

// startAtEscapes moves the start of each of spans (in order, apart) that
// falls inside an escape of s back to the escape's first byte, and returns
// spans. escapeView writes an escape's character at the escape's last
// byte, where a rule reading the view starts a value: "Pwd=%25ab…"
// redacted from the "5" on kept "%2", a piece of the password's encoding.
func startAtEscapes(s string, spans []span) []span {
	k := 0
	eachEscape(s, func(from, to int, _ byte) {
		for ; k < len(spans) && spans[k].from < to; k++ {
			if spans[k].from > from {
				spans[k].from = from
			}
		}
	})
	return spans
}

// eachEscape calls put for each escape escapeView decodes in s, in order:
// its bytes s[from:to] and the character it reads as.
func eachEscape(s string, put func(from, to int, c byte)) {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			j := i
			for j < len(s) && s[j] == '\\' {
				j++
			}
			if j == len(s) {
				i = j
				continue
			}
			switch c := s[j]; {
			case c == 'u' && j+4 < len(s) && hexByte(s[j+1]) && hexByte(s[j+2]) && hexByte(s[j+3]) && hexByte(s[j+4]):
				v := unhex(s[j+1])<<12 | unhex(s[j+2])<<8 | unhex(s[j+3])<<4 | unhex(s[j+4])
				put(i, j+5, printable(v))
				i = j + 4
			case c == 'n' || c == 't' || c == 'r' || c == 'b' || c == 'f':
				put(i, j+1, ' ')
				i = j
			default:
				i = j - 1
			}
		case '%':
			if i+2 < len(s) && hexByte(s[i+1]) && hexByte(s[i+2]) {
				put(i, i+3, printable(unhex(s[i+1])<<4|unhex(s[i+2])))
				i += 2
			}
		}
	}
}

func printable(v int) byte {
	if v > ' ' && v < 0x7f && v != '\\' {
		return byte(v)
	}
	return ' '
}

func hexByte(b byte) bool {
	return ('0' <= b && b <= '9') || ('a' <= b && b <= 'f') || ('A' <= b && b <= 'F')
}

func unhex(b byte) int {
	switch {
	case '0' <= b && b <= '9':
		return int(b - '0')
	case 'a' <= b && b <= 'f':
		return int(b-'a') + 10
	default:
		return int(b-'A') + 10
	}
}

const (
	classOther = iota
	classWord  // [A-Za-z0-9_]: rules start at the beginning of a word
	classDash  // '-': a PEM block may start
	classColon // ':': a URL's "://" may follow
)

var byteClass = func() (t [256]uint8) {
	for b := 0; b < 256; b++ {
		switch {
		case wordByte(byte(b)):
			t[b] = classWord
		case b == '-':
			t[b] = classDash
		case b == ':':
			t[b] = classColon
		}
	}
	return t
}()

type redactor struct {
	s     string // the text as the rules see it (escapeView)
	spans []span // what to redact, in scan order
	// keyStart and keyEnd bound the last run of key bytes scanned, and
	// sepAt, sep, sepLen the separator after it (sep is 0 when there is
	// none).
	keyStart, keyEnd int
	sepAt, sepLen    int
	sep              byte
	// lineEnd(s, p) is linePast-1 for p in [lineFrom, linePast).
	lineFrom, linePast int
	// tokenEnd(s, p) for p in [tokenFrom, tokenTo), the last run of token
	// bytes read, is max(p, tokenTrim) (tokenTo less its trailing dots).
	tokenFrom, tokenTo, tokenTrim int
}

// tokenEnd is tokenEnd(r.s, p), each run of token bytes read once: the
// token rules ask it at every prefix inside one token ("eyJ=eyJ=…"), and
// read to the token's end again each time (32 KiB of "eyJ=" took 75 ms).
func (r *redactor) tokenEnd(p int) int {
	if p < r.tokenFrom || p >= r.tokenTo {
		e := p
		for e < len(r.s) && tokenTable[r.s[e]] {
			e++
		}
		r.tokenFrom, r.tokenTo, r.tokenTrim = p, e, e
		for r.tokenTrim > p && r.s[r.tokenTrim-1] == '.' {
			r.tokenTrim--
		}
	}
	return max(p, r.tokenTrim)
}

// replace redacts s[from:to].
func (r *redactor) replace(from, to int) {
	if to > from {
		r.spans = append(r.spans, span{from, to})
	}
}

// word tries every rule that starts at the beginning of a word.
func (r *redactor) word(i int) (int, bool) {
	if next, ok := r.keyValue(i); ok {
		return next, true
	}
	return r.tokenRule(i)
}

// tokenRule tries the Bearer rule and the prefix rules at i.
func (r *redactor) tokenRule(i int) (int, bool) {
	s := r.s
	if (s[i] == 'B' || s[i] == 'b') && len(s)-i > 7 && lower(s[i+1]) == 'e' && strings.EqualFold(s[i:i+6], "bearer") {
		p := skipSpaces(s, i+6, true)
		if p > i+6 {
			e := r.tokenEnd(p)
			if e-p >= 8 && credentialLike(s[p:e]) {
				r.replace(p, e)
				return e, true
			}
		}
	}
	if i+1 >= len(s) || !prefixSecond[s[i]].has(s[i+1]) {
		return 0, false
	}
	// Only the rules whose prefix starts with these two bytes can match,
	// tried in prefixRules' order.
	var group []prefixRule
	for _, g := range prefixPairs[s[i]] {
		if g.second == s[i+1] {
			group = g.rules
			break
		}
	}
	for _, t := range group {
		if !strings.HasPrefix(s[i:], t.prefix) {
			continue
		}
		p := i + len(t.prefix)
		if t.class != nil {
			if len(s)-p < t.min {
				continue
			}
			ok := true
			for k := p; k < p+t.min; k++ {
				if !t.class(s[k]) {
					ok = false
					break
				}
			}
			if !ok {
				continue
			}
		}
		e := r.tokenEnd(i)
		if e-p < t.min || t.token != nil && !t.token(s[i:e]) {
			continue
		}
		r.replace(i, e)
		return e, true
	}
	return 0, false
}

// jwtTextRead is how much of a token jwtText decodes (a multiple of 4):
// a JWT's header is shorter, and decoding a long token whole at each of
// its eyJ read a text of many quadratically often.
const jwtTextRead = 1024

// jwtText reports whether tok, which starts with eyJ, is base64 of JSON
// text up to its first '.', as a JWT's header (or a payload cut short)
// is: an id that happens to start with eyJ ("proj_eyJtpWYORx2uHo…", once
// in a few hundred thousand) decodes to bytes no text holds, and is left
// to the other rules.
func jwtText(tok string) bool {
	seg, _, _ := strings.Cut(tok[:min(len(tok), jwtTextRead)], ".")
	seg = strings.TrimRight(seg, "=")
	if len(seg)%4 == 1 {
		seg = seg[:len(seg)-1] // cut inside a character: read what is whole
	}
	for _, enc := range []*base64.Encoding{base64.RawURLEncoding, base64.RawStdEncoding} {
		if b, err := enc.DecodeString(seg); err == nil {
			// A text cut short may end inside a character.
			for k := 1; k <= 3 && k < len(b) && !utf8.Valid(b); k++ {
				if !utf8.FullRune(b[len(b)-k:]) {
					b = b[:len(b)-k]
					break
				}
			}
			return printableText(b)
		}
	}
	return false
}

// skipSpaces skips blanks at p: ASCII space and tab, the no-break and
// other Unicode spaces, and, when lines is set, line breaks too (a token on
// the line after "Authorization: Bearer").
func skipSpaces(s string, p int, lines bool) int {
	for p < len(s) {
		if b := s[p]; b < utf8.RuneSelf && b != ' ' && b != '\t' && b != '\n' && b != '\r' {
			return p
		}
		switch {
		case s[p] == ' ' || s[p] == '\t':
			p++
		case lines && (s[p] == '\n' || s[p] == '\r'):
			p++
		case strings.HasPrefix(s[p:], "\u00a0"):
			p += 2
		case strings.HasPrefix(s[p:], "\u3000"), strings.HasPrefix(s[p:], "\u202f"), strings.HasPrefix(s[p:], "\u205f"):
			p += 3
		case p+2 < len(s) && s[p] == 0xe2 && s[p+1] == 0x80 && s[p+2] >= 0x80 && s[p+2] <= 0x8a: // U+2000–U+200A
			p += 3
		default:
			return p
		}
	}
	return p
}

// credentialLike tells a token that may be a credential from a plain word:
// a word of letters only (optionally ending in punctuation) is prose, as in
// "Bearer authentication failed" or "token: expired".
func credentialLike(tok string) bool {
	return !plainWord(tok)
}

// shortNumber is a number of at most 5 digits: a status or a count
// ("token: 400 Bad Request"), not a credential.
func shortNumber(w string) bool {
	w = strings.TrimRight(w, ".,;:!?)")
	if w == "" || len(w) > 5 {
		return false
	}
	for i := 0; i < len(w); i++ {
		if w[i] < '0' || w[i] > '9' {
			return false
		}
	}
	return true
}

// plainWord reports whether w is a word of ASCII letters, at most 24 of
// them, possibly joined by single '-' or '\” and followed by sentence
// punctuation.
func plainWord(w string) bool {
	w = strings.TrimRight(w, ".,;:!?)")
	if w == "" || len(w) > 24 {
		return false
	}
	for i := 0; i < len(w); i++ {
		b := w[i]
		if ('a' <= b && b <= 'z') || ('A' <= b && b <= 'Z') {
			continue
		}
		if (b == '-' || b == '\'') && i > 0 && i < len(w)-1 {
			continue
		}
		return false
	}
	return true
}

type prefixRule struct {
	prefix string
	min    int               // characters required after the prefix
	class  func(b byte) bool // when set, the first min characters must be of this class
	token  func(string) bool // when set, the whole token must pass it
}

var prefixRules = func() (t [256][]prefixRule) {
	for _, r := range []prefixRule{
		{"sk-", 8, nil, nil},
		{"sk_live_", 8, nil, nil},
		{"sk_test_", 8, nil, nil},
		{"rk_live_", 8, nil, nil},
		{"rk_test_", 8, nil, nil},
		{"whsec_", 8, nil, nil},
		{"ghp_", 1, nil, nil},
		{"gho_", 1, nil, nil},
		{"ghu_", 1, nil, nil},
		{"ghs_", 1, nil, nil},
		{"ghr_", 1, nil, nil},
		{"github_pat_", 1, nil, nil},
		{"glpat-", 1, nil, nil},
		{"xoxb-", 1, nil, nil},
		{"xoxp-", 1, nil, nil},
		{"xoxa-", 1, nil, nil},
		{"xoxr-", 1, nil, nil},
		{"xoxs-", 1, nil, nil},
		{"xoxe-", 1, nil, nil},
		{"xapp-", 1, nil, nil},
		{"tskey-", 1, nil, nil},
		{"eyJ", 1, nil, jwtText},
		{"AKIA", 16, upperAlnum, nil},
		{"ASIA", 16, upperAlnum, nil},
		{"AIza", 35, googleKeyByte, nil},
		{"npm_", 36, alnum, nil},
		{"hf_", 30, alnum, nil},
		{"SG.", 40, nil, nil},
		// Cloud, CI and AI platform tokens (prefixes and lengths from each
		// vendor's public token format documentation). gitleaks has rules
		// for many of them too, but requires a quote, space or end of text
		// after the token; these also match inside parentheses, URLs and
		// prose.
		{"IQoJb3JpZ2luX2Vj", 60, b64Byte, nil}, // AWS STS session tokens
		{"FwoGZXIvYXdzE", 60, b64Byte, nil},
		{"ya29.", 20, googleKeyByte, nil}, // Google OAuth access token
		{"1//0", 40, googleKeyByte, nil},  // Google OAuth refresh token
		{"GOCSPX-", 20, googleKeyByte, nil},
		{"hvs.", 20, googleKeyByte, nil}, // HashiCorp Vault service, batch, recovery tokens
		{"hvb.", 20, googleKeyByte, nil},
		{"hvr.", 20, googleKeyByte, nil},
		{"dckr_pat_", 20, googleKeyByte, nil},
		{"dckr_oat_", 20, googleKeyByte, nil},
		{"pypi-", 50, googleKeyByte, nil},
		{"gldt-", 20, googleKeyByte, nil}, // GitLab deploy, runner, trigger, feed, … tokens
		{"glrt-", 20, googleKeyByte, nil},
		{"glptt-", 20, googleKeyByte, nil},
		{"glft-", 20, googleKeyByte, nil},
		{"glsoat-", 20, googleKeyByte, nil},
		{"glcbt-", 20, googleKeyByte, nil},
		{"glimt-", 20, googleKeyByte, nil},
		{"gloas-", 20, googleKeyByte, nil},
		{"glagent-", 20, googleKeyByte, nil},
		{"glsa_", 32, alnum, nil}, // Grafana service account and cloud tokens
		{"glc_", 32, b64Byte, nil},
		{"gsk_", 40, alnum, nil},   // Groq
		{"xai-", 60, alnum, nil},   // xAI
		{"r8_", 30, alnum, nil},    // Replicate
		{"lsv2_pt_", 32, hex, nil}, // LangSmith
		{"lsv2_sk_", 32, hex, nil},
		{"pcsk_", 40, googleKeyByte, nil}, // Pinecone
		{"dapi", 32, hex, nil},            // Databricks
		{"shpat_", 32, hex, nil},          // Shopify
		{"shpss_", 32, hex, nil},
		{"shpca_", 32, hex, nil},
		{"shppa_", 32, hex, nil},
		{"AGE-SECRET-KEY-1", 50, upperAlnum, nil},
		{"LS0tLS1CRUdJTi", 40, b64Byte, nil}, // base64 of "-----BEGIN" (kubeconfig *-data)
		{"MII", 60, b64Byte, nil},            // bare base64 DER (PKCS#8, PKCS#1 keys)
		{"SK", 32, hex, nil},                 // Twilio API key
		{"key-", 32, hex, nil},               // Mailgun
		{"EAAA", 60, googleKeyByte, nil},     // Square, Meta
		{"dop_v1_", 64, hex, nil},            // DigitalOcean
		{"doo_v1_", 64, hex, nil},
		{"dor_v1_", 64, hex, nil},
		{"lin_api_", 40, alnum, nil}, // Linear
		{"ntn_", 40, alnum, nil},     // Notion
		{"secret_", 40, alnum, nil},
		{"figd_", 40, googleKeyByte, nil}, // Figma
		{"PMAK-", 24, hex, nil},           // Postman
		{"sbp_", 40, hex, nil},            // Supabase
		{"dp.pt.", 40, alnum, nil},        // Doppler
		{"dp.st.", 40, alnum, nil},
		{"dp.sa.", 40, alnum, nil},
		{"sntryu_", 64, hex, nil}, // Sentry
		{"sntrys_", 60, googleKeyByte, nil},
		{"NRAK-", 27, upperAlnum, nil}, // New Relic
		{"pplx-", 40, alnum, nil},      // Perplexity
		{"fw_", 20, alnum, nil},        // Fireworks
		{"ops_eyJ", 50, googleKeyByte, nil},
		{"bkua_", 40, hex, nil}, // Buildkite
		{"CCIPAT_", 20, alnum, nil},
		{"ATBB", 32, alnum, nil}, // Bitbucket, Atlassian
		{"ATATT3", 50, googleKeyByte, nil},
		{"oy2", 43, lowerAlnum, nil}, // NuGet
		{"rubygems_", 48, hex, nil},
		{"CLOJARS_", 60, lowerAlnum, nil},
		{"LTAI", 20, alnum, nil}, // Alibaba Cloud
		{"AKID", 32, alnum, nil}, // Tencent Cloud
		{"sk.eyJ", 50, googleKeyByte, nil},
		{"sl.", 100, googleKeyByte, nil}, // Dropbox
		{"pscale_tkn_", 32, googleKeyByte, nil},
		{"pscale_pw_", 32, googleKeyByte, nil},
		{"pscale_oauth_", 32, googleKeyByte, nil},
		{"pul-", 40, hex, nil},
		{"xkeysib-", 64, hex, nil},
		{"CFPAT-", 40, googleKeyByte, nil},
		{"dt0c01.", 24, upperAlnum, nil},
		{"sgp_", 40, hex, nil},
		{"sha256~", 43, googleKeyByte, nil}, // OpenShift
		{"pnu_", 36, alnum, nil},
		{"rdme_", 60, lowerAlnum, nil},
		{"tfp_", 40, googleKeyByte, nil},
		{"FLWSECK-", 32, hex, nil},
		{"EZAK", 50, alnum, nil},
		{"aio_", 28, alnum, nil},
		{"discord.com/api/webhooks/", 20, nil, nil},
		{"discordapp.com/api/webhooks/", 20, nil, nil},
		{"hooks.slack.com/services/", 20, nil, nil},
		{"hooks.slack.com/triggers/", 20, nil, nil},
		{"hooks.slack.com/workflows/", 20, nil, nil},
	} {
		t[r.prefix[0]] = append(t[r.prefix[0]], r)
	}
	return t
}()

// prefixSecond holds, per first byte, the second bytes of the prefix
// rules that start with it: most words are ruled out by two loads.
var prefixSecond = func() (t [256]byteSet256) {
	for b := range prefixRules {
		for _, r := range prefixRules[b] {
			t[b].add(r.prefix[1])
		}
	}
	return t
}()

// prefixPairs groups each first byte's prefix rules by their second byte,
// each group in prefixRules' order (the first rule that matches wins).
var prefixPairs = func() (t [256][]prefixGroup) {
	for b := range prefixRules {
		for _, r := range prefixRules[b] {
			k := slices.IndexFunc(t[b], func(g prefixGroup) bool { return g.second == r.prefix[1] })
			if k < 0 {
				k = len(t[b])
				t[b] = append(t[b], prefixGroup{second: r.prefix[1]})
			}
			t[b][k].rules = append(t[b][k].rules, r)
		}
	}
	return t
}()

type prefixGroup struct {
	second byte
	rules  []prefixRule
}

// byteSet256 is a set of bytes.
type byteSet256 [4]uint64

func (s *byteSet256) add(b byte)      { s[b>>6] |= 1 << (b & 63) }
func (s *byteSet256) has(b byte) bool { return s[b>>6]&(1<<(b&63)) != 0 }

// pairSeparator finds the separator of a key whose run of key bytes ends
// at k: past a closing quote (or escaped quote) and blanks. It returns the
// separator's position, the byte it stands for and its length, or a zero
// byte when there is none.
func pairSeparator(s string, k int) (at int, sep byte, n int) {
	if k >= len(s) {
		return 0, 0, 0
	}
	p := k
	switch {
	case s[p] == '"' || s[p] == '\'':
		p++
	case s[p] == '\\':
		// An escaped quote at any depth of JSON-in-JSON: \", \\\", ...
		q := p
		for q < len(s) && s[q] == '\\' {
			q++
		}
		if q < len(s) && s[q] == '"' {
			p = q + 1
		}
	}
	p = skipSpaces(s, p, false)
	if p >= len(s) {
		return 0, 0, 0
	}
	switch {
	case s[p] == ':' || s[p] == '=':
		return p, s[p], 1
	case s[p] != 0xef:
		return 0, 0, 0
	case strings.HasPrefix(s[p:], "\uff1a"): // fullwidth colon
		return p, ':', 3
	case strings.HasPrefix(s[p:], "\uff1d"): // fullwidth equals sign
		return p, '=', 3
	}
	return 0, 0, 0
}

// keyValue redacts the value of a key=value / key: value / "key": "value"
// pair whose key names a secret.
func (r *redactor) keyValue(i int) (int, bool) {
	s := r.s
	const maxKey = 64
	if i >= r.keyEnd {
		// A new run of key bytes; every later word start inside it shares
		// its end and what follows it, so each run is scanned once.
		k := i
		for k < len(s) && keyTable[s[k]] {
			k++
		}
		r.keyStart, r.keyEnd = i, k
		r.sepAt, r.sep, r.sepLen = pairSeparator(s, k)
	}
	k := r.keyEnd
	if k-i > maxKey || r.sep == 0 {
		return 0, false
	}
	key := s[i:k]
	p, sep, sepLen := r.sepAt, r.sep, r.sepLen
	if sep == '=' && p+1 < len(s) && s[p+1] == '=' {
		return 0, false // a comparison, not an assignment
	}
	kind := secretKey(key)
	if kind == notSecret {
		return 0, false
	}
	// Everything else it reads is on this line, but for a header whose
	// value goes on on the next line (noted there).
	p += sepLen
	if sep == '=' && p < len(s) && s[p] == '>' {
		p++ // Ruby's and Perl's "key => value"
	}
	if sep == ':' {
		for n := 0; n < 2 && p+1 < len(s) && s[p] == ':' && (s[p+1] == ':' || s[p+1] == '='); n++ {
			p++ // Make's "key ::= value" and ":::="; an operator is no value
		}
		if p < len(s) && s[p] == '=' {
			p++ // Go's and Pascal's "key := value"
		}
	}
	afterSep := p
	p = skipSpaces(s, p, false)
	if p >= len(s) {
		return 0, false
	}
	// "password: must contain a digit", "token: expired": a colon, a space
	// and a plain word is prose naming a problem, not a credential.
	spaced := p > afterSep && sep == ':'
	if sep == ':' {
		p = yamlValueStart(s, p, r.keyStart)
	}
	if (s[p] == '"' || s[p] == '\'') && closesString(s, i, k, r.sepAt, s[p]) {
		// getpass("Password: "), read -p "Password: " PW: the key ends a
		// prompt, and its quote closes the prompt's string.
		return 0, false
	}
	if listOfPasswords(key) {
		return 0, false // the second layer reads it item by item (listValues)
	}
	var vs, ve int
	switch {
	case s[p] == '"':
		vs = p + 1
		ve = scanQuoted(s, vs)
	case s[p] == '\'':
		vs = p + 1
		ve = vs
		for ve < len(s) && s[ve] != '\'' && s[ve] != '\n' {
			ve++
		}
	case s[p] == '\\' && escapedQuote(s, p) > p:
		vs = escapedQuote(s, p)
		ve = vs
		for ve < len(s) && s[ve] != '\n' && s[ve] != '"' {
			if s[ve] != '\\' {
				ve++
				continue
			}
			// A backslash run ends the value only when a quote closes it;
			// skipping the whole run keeps the scan linear.
			q := ve
			for q < len(s) && s[q] == '\\' {
				q++
			}
			if q < len(s) && s[q] == '"' {
				break
			}
			ve = q
		}
	case kind == headerSecret:
		vs = p
		ve = quotedHeaderEnd(s, r.keyStart, p, lineEnd(s, p))
		line := s[vs:ve]
		if spaced && headerProse(line) {
			return 0, false
		}
		if authScheme(strings.TrimSpace(line)) && ve < len(s) {
			// "Authorization: Bearer" with the token on the next line.
			q := skipSpaces(s, ve, true)
			if q < len(s) {
				ve = lineEnd(s, q)
			}
		}
	default:
		vs = p
		ve = p
		for ve < len(s) && !bareStop(s[ve]) {
			ve++
		}
		ve = valueRunEnd(s, vs, ve, bareStop) // password=;Xy9Zq8Lm2Pw, Xy9Zq;8Lm2Pw
		if escapedStop(s[vs:ve]) || yamlIndicator(s[vs:ve]) {
			// "Pwd=%7B&OuVC…%7D": an escaped brace or quote, whose value
			// a decoded reading reads whole; "password: |" whose block
			// yamlValueStart found no line of.
			return 0, false
		}
		if ve < len(s) && strings.Contains(s[vs:ve], "://") {
			// A URL, whose userinfo may hold what ends a bare value
			// ("credentials: https://ci:;9bZB-2aynq@git.local").
			for ve < len(s) && !urlStop(s[ve]) {
				ve++
			}
		}
		if spaced && ve > vs && (plainWord(s[vs:ve]) || shortNumber(s[vs:ve])) {
			return 0, false
		}
		if sep == '=' && p > afterSep && ve > vs && plainWord(s[vs:ve]) && blobKey(s[r.keyStart:k]) {
			return 0, false // "h1:…/6EO8uBPwd= mismatch": see blobKey
		}
		if ve > vs && (s[vs] == '/' || s[vs] == '~') && strings.HasSuffix(strings.ToLower(key), "pwd") {
			return 0, false // the shell's PWD=/home/…, not ODBC's PWD=secret
		}
	}
	if ve <= vs || kind != headerSecret && filePath(s[vs:ve]) {
		return 0, false
	}
	r.replace(vs, ve)
	return ve, true
}

// closesString reports whether a quote q after the separator at s[sep]
// closes a string that the key at s[key:keyEnd] stands in: no quote
// closes the key itself (as "password": "VALUE" has) and the line holds
// an odd count of q before it. Only the 256 bytes before the key are read
// (a long line of many keys is not read again for each); past them the
// quote is taken to open a value.
func closesString(s string, key, keyEnd, sep int, q byte) bool {
	if strings.IndexByte(s[keyEnd:sep], q) >= 0 {
		return false
	}
	from := max(0, key-256)
	line := s[from:key]
	if nl := strings.LastIndexByte(line, '\n'); nl >= 0 {
		line = line[nl+1:]
	} else if from > 0 {
		return false
	}
	return strings.Count(line, string(q))%2 == 1
}

// yamlValueStart is where a YAML value starts when s[p:] begins with what
// YAML writes before one: a tag ("password: !!str VALUE"; a tag alone
// stays), then or alone a block scalar's indicator (| or >, a chomping
// sign, an indent: yamlIndicator) that ends its line, whose value is on
// the next line, indented past its key (at s[key]). p itself otherwise.
func yamlValueStart(s string, p, key int) int {
	q := p
	if s[q] != '!' && s[q] != '|' && s[q] != '>' {
		return p
	}
	if s[q] == '!' {
		for q < len(s) && !blank(s[q]) && s[q] != '\n' {
			q++
		}
		if q = skipSpaces(s, q, false); q >= len(s) || s[q] == '\n' {
			return p
		}
	}
	if s[q] != '|' && s[q] != '>' {
		return q // most values: not read twice
	}
	e := q
	for e < len(s) && !blank(s[e]) && s[e] != '\n' {
		e++
	}
	if !yamlIndicator(s[q:e]) {
		return q
	}
	if e = skipSpaces(s, e, false); e >= len(s) || s[e] != '\n' {
		return q
	}
	line := e + 1
	v := skipSpaces(s, line, false)
	keyIndent := key - (strings.LastIndexByte(s[:key], '\n') + 1)
	if v < len(s) && s[v] != '\n' && v-line > keyIndent {
		return v
	}
	return q
}

// yamlIndicator is a YAML block scalar's header: | or >, then at most a
// chomping sign and an indent digit, in either order.
func yamlIndicator(w string) bool {
	if w == "" || w[0] != '|' && w[0] != '>' || len(w) > 3 {
		return false
	}
	for i := 1; i < len(w); i++ {
		if c := w[i]; c != '-' && c != '+' && (c < '1' || c > '9') {
			return false
		}
	}
	return true
}

// blobKey reports whether a run of key bytes reads as a piece of an
// encoded blob, not a name: eight bytes or more mixing digits with both
// cases and no separator. A go.sum hash's "…/6EO8uBPwd" ends in a
// password's name; with "= " and a plain word after it (a fresh ordinary
// message, "…6EO8uBPwd= mismatch") it is no assignment.
func blobKey(run string) bool {
	if len(run) < 8 || strings.ContainsAny(run, "_-.") {
		return false
	}
	k := classesOf(run)
	return k.digit && k.upper && k.lower
}

func lineEnd(s string, p int) int {
	if e := strings.IndexByte(s[p:], '\n'); e >= 0 {
		return p + e
	}
	return len(s)
}

// authSchemes are the HTTP authentication schemes a header value starts
// with; a value that starts with one is a credential whatever follows.
var authSchemes = []string{"bearer", "basic", "token", "digest", "negotiate", "ntlm", "apikey", "aws4-hmac-sha256", "hoba", "mutual", "vapid", "scram-sha-256", "dpop", "gsslogin"}

func authScheme(w string) bool {
	for _, a := range authSchemes {
		if strings.EqualFold(w, a) {
			return true
		}
	}
	return false
}

// proseLine reports whether a header-like value is a sentence of plain
// words ("Authorization: missing in request", "cookie: expired") rather
// than a credential: every word is plain and the first is not a scheme.
// It walks the words as strings.Fields splits them, without making the
// list (proseLineRef in reference_test.go is the version that does).
func proseLine(line string) bool { return proseWords(line, 0) }

// headerProse is proseLine on a header's value up to its 16th word: a
// credential is a word or two, so a value that starts with 16 plain words
// is prose. Read whole, a line of many headers ("Authorization:
// Authorization: …") was read to its end once for each: 32 KiB of them
// took 0.2 s.
func headerProse(line string) bool { return proseWords(line, maxHeaderProseWords) }

// maxHeaderProseWords is how many words of a header's value headerProse
// reads.
const maxHeaderProseWords = 16

// proseWords is proseLine reading at most limit words (0: all of them).
func proseWords(line string, limit int) bool {
	words := 0
	for i := 0; ; {
		s, e := fieldAt(line, i)
		if s == len(line) {
			return words > 0
		}
		w := line[s:e]
		if words == 0 && authScheme(w) || !plainWord(w) {
			return false
		}
		if words++; words == limit {
			return true
		}
		i = e
	}
}

// fieldAt is the next word of s from i, as strings.Fields splits words
// (at Unicode spaces); start is len(s) when there is none.
func fieldAt(s string, i int) (start, end int) {
	space := func(j int) (bool, int) {
		r, size := rune(s[j]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[j:])
		}
		return unicode.IsSpace(r), size
	}
	for i < len(s) {
		sp, size := space(i)
		if !sp {
			break
		}
		i += size
	}
	end = i
	for end < len(s) {
		sp, size := space(end)
		if sp {
			break
		}
		end += size
	}
	return i, end
}

// scanQuoted returns the end of a double-quoted value's content starting at
// p: the closing quote, the end of the line, or the end of s.
func scanQuoted(s string, p int) int {
	for p < len(s) {
		switch s[p] {
		case '\\':
			if p+1 < len(s) && s[p+1] == '\n' {
				return p + 1
			}
			p += 2
			continue
		case '"', '\n':
			return p
		}
		p++
	}
	return len(s)
}

type secretKind int

const (
	notSecret    secretKind = iota
	valueSecret             // redact the value
	headerSecret            // an unquoted value runs to the end of the line
)

// Secret key names, normalised: lower case without '-', '_', '.' or ' '.
var (
	secretSuffixes = []struct {
		name string
		kind secretKind
	}{
		{"authorization", headerSecret},
		{"cookie", headerSecret},
		{"password", valueSecret},
		{"passwords", valueSecret}, // a list of them: each item is one
		{"passwd", valueSecret},
		{"passphrase", valueSecret},
		{"secret", valueSecret},
		{"token", valueSecret},
		{"apikey", valueSecret},
		{"privatekey", valueSecret},
		{"secretkey", valueSecret},
		{"secretaccesskey", valueSecret},
		{"accountkey", valueSecret},
		{"sharedaccesskey", valueSecret},
		{"credential", valueSecret},
		{"credentials", valueSecret},
		{"signature", valueSecret},
		{"sessionid", valueSecret},
		{"accesskey", valueSecret},
		{"keydata", valueSecret}, // kubeconfig client-key-data
		{"pwd", valueSecret},     // ODBC PWD=
	}
	secretExact = []string{"pass", "auth", "session", "sig", "jwt"}
	// publicKeyNames end in a secret name but name a paging or sync
	// cursor, not a credential (nextPageToken, continuation_token).
	publicKeyNames = []string{"pagetoken", "continuationtoken", "synctoken", "resumetoken", "cursortoken"}
)

// strongNames can only hold a secret: under them even a plain word or a
// number is one. The other secret names (token, session, auth,
// credentials, signature, …) also name routing codes, scopes and states.
var strongNames = []string{"password", "passwords", "passwd", "passphrase", "secret", "apikey", "privatekey",
	"secretkey", "secretaccesskey", "accesskey", "accountkey", "sharedaccesskey", "keydata", "pwd", "authorization", "cookie"}

// listOfPasswords says key names a list of passwords (passwords: ["…",
// "…"], or "- …" items below it): the first layer reads a key's one value,
// so its value is left to the second layer, whose listValues reads each
// item (and valueAfter a single value, as any password's).
func listOfPasswords(key string) bool {
	_, ok := matchTail(key, "passwords")
	return ok
}

// strongSecretKey reports whether key ends with a strong name (or is
// exactly "pass").
func strongSecretKey(key string) bool {
	for _, n := range strongNames {
		if _, ok := matchTail(key, n); ok {
			return true
		}
	}
	if rest, ok := matchTail(key, "pass"); ok && onlySeparators(key[:rest]) {
		return true
	}
	return false
}

// secretNames indexes the names above by their last byte, so a key is
// compared with the two or three names that can end it.
var secretNames = func() (t [256][]secretName) {
	for _, n := range secretSuffixes {
		t[n.name[len(n.name)-1]] = append(t[n.name[len(n.name)-1]], secretName{n.name, n.kind, false})
	}
	for _, n := range secretExact {
		t[n[len(n)-1]] = append(t[n[len(n)-1]], secretName{n, valueSecret, true})
	}
	return t
}()

// secretTail is secretKey's quick reject: every name has at least three
// letters, so its last two must end the key (separators skipped) or no
// name can. It is false for a key and so for every suffix of it.
func secretTail(key string) bool {
	if n := len(key); n >= 2 && !keySeparator(key[n-1]) && !keySeparator(key[n-2]) {
		return secretPairs[lower(key[n-1])].has(lower(key[n-2]))
	}
	k := len(key)
	for k > 0 && keySeparator(key[k-1]) {
		k--
	}
	j := k - 1
	for j > 0 && keySeparator(key[j-1]) {
		j--
	}
	return j > 0 && secretPairs[lower(key[k-1])].has(lower(key[j-1]))
}

// secretPairs holds, per last byte of a secret name, the bytes that come
// before it in one: secretKey's quick reject.
var secretPairs = func() (t [256]byteSet256) {
	for b := range secretNames {
		for _, n := range secretNames[b] {
			t[b].add(n.name[len(n.name)-2])
		}
	}
	return t
}()

type secretName struct {
	name  string
	kind  secretKind
	exact bool // the whole key, not a suffix
}

// secretKey classifies a key name. It compares from the end, ASCII case
// insensitively, skipping the separators '-', '_', '.' and ' '.
func secretKey(key string) secretKind {
	k := len(key)
	for k > 0 && keySeparator(key[k-1]) {
		k--
	}
	if k == 0 || !secretTail(key) {
		return notSecret
	}
	for _, n := range secretNames[lower(key[k-1])] {
		rest, ok := matchTail(key, n.name)
		if ok && (!n.exact || onlySeparators(key[:rest])) {
			for _, p := range publicKeyNames {
				if _, ok := matchTail(key, p); ok {
					return notSecret
				}
			}
			return n.kind
		}
	}
	return notSecret
}

// matchTail reports whether key, without separators, ends with name (lower
// case), and where in key the match begins.
func matchTail(key, name string) (int, bool) {
	k := len(key)
	for j := len(name) - 1; j >= 0; j-- {
		for k > 0 && keySeparator(key[k-1]) {
			k--
		}
		if k == 0 || lower(key[k-1]) != name[j] {
			return 0, false
		}
		k--
	}
	return k, true
}

func onlySeparators(s string) bool {
	for i := 0; i < len(s); i++ {
		if !keySeparator(s[i]) {
			return false
		}
	}
	return true
}

func keySeparator(b byte) bool { return b == '-' || b == '_' || b == '.' || b == ' ' }

// quotedHeaderEnd is where a header's value that starts at p and runs to
// its line's end at e ends when the header line is itself quoted, as a
// command passes it (curl -H "Authorization: Basic …" https://…): at the
// quote that closes it, when one does on the line; the words after it are
// the command's, not the header's.
func quotedHeaderEnd(s string, keyStart, p, e int) int {
	if keyStart == 0 || s[keyStart-1] != '"' && s[keyStart-1] != '\'' {
		return e
	}
	if q := strings.IndexByte(s[p:e], s[keyStart-1]); q > 0 {
		return p + q
	}
	return e
}

// pemBlock matches a PEM private-key block starting at i and returns its
// end: after the END line, or the end of s when there is none.
func pemBlock(s string, i int) (int, bool) {
	const begin = "-----BEGIN "
	if !strings.HasPrefix(s[i:], begin) {
		return 0, false
	}
	p, ok := pemLabel(s, i+len(begin))
	if !ok {
		return 0, false
	}
	const end = "-----END "
	for {
		j := strings.Index(s[p:], end)
		if j < 0 {
			return len(s), true
		}
		if q, ok := pemLabel(s, p+j+len(end)); ok {
			return q, true
		}
		p += j + 1
	}
}

// pemLabel reads "<label>-----" at p, where the label is [A-Z0-9 ]{,64} and
// contains "PRIVATE KEY", and returns the position after the dashes.
func pemLabel(s string, p int) (int, bool) {
	q := p
	for q < len(s) && q-p <= 64 && (('A' <= s[q] && s[q] <= 'Z') || ('0' <= s[q] && s[q] <= '9') || s[q] == ' ') {
		q++
	}
	if !strings.HasPrefix(s[q:], "-----") || !strings.Contains(s[p:q], "PRIVATE KEY") {
		return 0, false
	}
	return q + 5, true
}

// urlUserinfo matches "://user:pass@" at i (s[i] == ':') and returns the
// userinfo's bounds. The authority ends at whitespace, '/', '?', '#', a
// quote, '<', '>', '`' or '\'; its last '@' ends the userinfo, which must
// contain ':' or be a token of at least 16 characters on its own (a Sentry
// DSN's key, a token used as the user name). When the authority has a ':'
// that is not followed by a port and no '@', the password may hold '/',
// '#' or '?' ("postgres://app:pa/ss#1@db"): the first '@' within 256 bytes,
// before any whitespace or quote, ends it then.
func urlUserinfo(s string, i int) (int, int, bool) {
	if !strings.HasPrefix(s[i:], "://") {
		return 0, 0, false
	}
	from := i + 3
	at := -1
	k := from
	for ; k < len(s); k++ {
		b := s[k]
		if urlStop(b) || b == '/' || b == '?' || b == '#' {
			break
		}
		if b == '@' {
			at = k
		}
	}
	if at > from {
		user := s[from:at]
		if strings.IndexByte(user, ';') >= 0 && strings.IndexByte(user, '=') >= 0 {
			// jdbc:sqlserver://db:1433;user=sa;password=p@ss: properties
			// after the authority, not a userinfo (the password key is
			// the second layer's).
			return 0, 0, false
		}
		if strings.IndexByte(user, ':') >= 0 {
			return from, at, true
		}
		if at-from >= 16 && credentialLike(user) && tokenRun(user) {
			return from, at, true
		}
		return 0, 0, false
	}
	authEnd := k
	c := strings.IndexByte(s[from:authEnd], ':')
	if c < 0 || authEnd == len(s) {
		return 0, 0, false
	}
	if port := s[from+c+1 : authEnd]; port != "" && digits(port) {
		return 0, 0, false
	}
	for k := authEnd; k < len(s) && k-from < 256; k++ {
		b := s[k]
		if urlStop(b) {
			break
		}
		if b == '@' {
			if k+1 < len(s) && alnum(s[k+1]) {
				return from, k, true
			}
			break
		}
	}
	return 0, 0, false
}

func urlStop(b byte) bool {
	return b <= ' ' || b == '"' || b == '\'' || b == '<' || b == '>' || b == '`' || b == '\\' || b == 0x7f
}

func tokenRun(s string) bool {
	for i := 0; i < len(s); i++ {
		if !tokenTable[s[i]] {
			return false
		}
	}
	return true
}

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// tokenEnd returns the end of the token starting at p, without trailing
// dots.
func tokenEnd(s string, p int) int {
	e := p
	for e < len(s) && tokenTable[s[e]] {
		e++
	}
	for e > p && s[e-1] == '.' {
		e--
	}
	return e
}

func tokenByte(b byte) bool {
	return alnum(b) || b == '.' || b == '_' || b == '~' || b == '+' || b == '/' || b == '=' || b == '-'
}

func alnum(b byte) bool {
	return ('a' <= b && b <= 'z') || ('A' <= b && b <= 'Z') || ('0' <= b && b <= '9')
}

func upperAlnum(b byte) bool { return ('A' <= b && b <= 'Z') || ('0' <= b && b <= '9') }

func googleKeyByte(b byte) bool { return alnum(b) || b == '_' || b == '-' }

func b64Byte(b byte) bool { return alnum(b) || b == '+' || b == '/' || b == '=' }

func hex(b byte) bool { return ('0' <= b && b <= '9') || ('a' <= b && b <= 'f') }

func lowerAlnum(b byte) bool { return ('a' <= b && b <= 'z') || ('0' <= b && b <= '9') }

func wordByte(b byte) bool { return alnum(b) || b == '_' }

func keyByte(b byte) bool { return alnum(b) || b == '_' || b == '.' || b == '-' }

var keyTable, tokenTable = func() (k, t [256]bool) {
	for b := 0; b < 256; b++ {
		k[b] = keyByte(byte(b))
		t[b] = tokenByte(byte(b))
	}
	return k, t
}()

func blank(b byte) bool { return b == ' ' || b == '\t' }

// escapedStop reports whether v is nothing but one byte that ends a bare
// value, percent-escaped once or more ("%7B", "%257B").
func escapedStop(v string) bool {
	for strings.HasPrefix(v, "%25") && len(v) > 3 {
		v = "%" + v[3:]
	}
	return len(v) == 3 && v[0] == '%' && hexByte(v[1]) && hexByte(v[2]) && bareStop(byte(unhex(v[1])<<4|unhex(v[2])))
}

// bareStop ends an unquoted value.
func bareStop(b byte) bool {
	switch b {
	case '"', '\'', '&', ';', ',', '<', '>', '(', ')', '{', '}', '`', '\\', 0x7f:
		return true
	}
	return b <= ' '
}

// escapedQuote returns the index after a run of backslashes ending in a
// quote that starts at p, or p when there is none.
func escapedQuote(s string, p int) int {
	q := p
	for q < len(s) && s[q] == '\\' {
		q++
	}
	if q > p && q < len(s) && s[q] == '"' {
		return q + 1
	}
	return p
}
