package sanitize

import (
	"fmt"
	"iter"
	"slices"
	"strings"
	"unicode/utf8"
)

// The implementations the faster code replaced, kept as references: the
// differential tests (reference_diff_test.go) require the same result.

// handScanRef is handScan as it was before its fast paths (the
// reference the differential tests hold handScan to).
func handScanRef(r *redactor) {
	s := r.s
	i := 0
	for i < len(s) {
		switch byteClass[s[i]] {
		case classOther:
			i++
			for i < len(s) && byteClass[s[i]] == classOther {
				i++
			}
		case classDash:
			if end, ok := pemBlock(s, i); ok {
				r.replace(i, end)
				i = end
				continue
			}
			i++
		case classColon:
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
			if next, ok := r.wordRef(i); ok {
				i = next
				continue
			}
			// Inside escaped JSON ("failed\tsk-..."), the escape's letter
			// glues onto the token: try the word that starts after it.
			if i > 0 && s[i-1] == '\\' && strings.IndexByte("tnrbf", s[i]) >= 0 && i+1 < len(s) && byteClass[s[i+1]] == classWord {
				if next, ok := r.wordRef(i + 1); ok {
					i = next
					continue
				}
			}
			// Not a secret at the word's start. A token glued behind '_'
			// (key_sk-proj-…, id_eyJ…) still starts a token rule.
			i++
			e := i
			for e < len(s) && byteClass[s[e]] == classWord {
				e++
			}
			if strings.IndexByte(s[i-1:e], '_') >= 0 {
				for k := i; k < e; k++ {
					if s[k-1] == '_' && s[k] != '_' {
						if next, ok := r.tokenRuleRef(k); ok {
							e = next
							break
						}
					}
				}
			}
			i = e
		default:
			// A class added to byteClass and not here would otherwise
			// leave i where it is and hang the test instead of failing it.
			panic(fmt.Sprintf("handScanRef: byte %q at %d has class %d, which the reference does not handle", s[i], i, byteClass[s[i]]))
		}
	}
}

// proseLineRef is proseLine as it was, on the list strings.Fields makes.
func proseLineRef(line string) bool {
	words := strings.Fields(line)
	if len(words) == 0 || authScheme(words[0]) {
		return false
	}
	for _, w := range words {
		if !plainWord(w) {
			return false
		}
	}
	return true
}

// filterRef is filter as it was, copying one non-ASCII rune at a time. It
// drops forbidden characters, replaces each run of invalid UTF-8
// bytes with one U+FFFD, and deletes prompt-injection markers until none is
// left. Marker deletion is a stack: every kept byte is pushed once; after a
// push a marker can only end at the top, and is popped. The stack never
// holds a marker, so neither does the result, and the scan is linear.
func filterRef(s string) (out string, stripped, removed bool) {
	// Fast path: nothing to drop and no byte that starts a marker.
	i := 0
	for i < len(s) {
		b := s[i]
		if !filterStop[b] {
			i++
			continue
		}
		if b < utf8.RuneSelf {
			break
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || forbidden(r) {
			break
		}
		i += size
	}
	if i == len(s) {
		return s, false, false
	}
	o := filterRefOut{s: s, n: i}
	invalid := false
	for i < len(s) {
		// A run of bytes that are kept and cannot end a marker is copied
		// at once.
		if j := i; !filterSlow[s[j]] {
			for j < len(s) && !filterSlow[s[j]] {
				j++
			}
			o.keep(i, j)
			invalid = false
			if i = j; i == len(s) {
				break
			}
		}
		b := s[i]
		if b >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			i += size
			switch {
			case r == utf8.RuneError && size == 1:
				stripped = true
				o.change()
				if !invalid {
					o.buf = utf8.AppendRune(o.buf, utf8.RuneError)
					invalid = true
				}
			case forbidden(r):
				stripped = true
				o.change()
			default:
				o.keep(i-size, i)
				invalid = false
			}
			continue
		}
		i++
		if (b < 0x20 && b != '\n') || b == 0x7f {
			stripped = true
			o.change()
			continue
		}
		invalid = false
		o.keep(i-1, i)
		if b != '>' && b != ']' && b != '#' && b != '<' {
			continue
		}
		for _, m := range markers {
			if m.text[len(m.text)-1] == b && o.hasSuffix(m.text, m.fold) {
				o.cut(len(m.text))
				removed = true
				break
			}
		}
	}
	if !stripped && !removed {
		return s, false, false
	}
	return string(o.buf), stripped, removed
}

// The hand rules' tries as they were (handScanRef runs these, so the
// differential tests hold the faster ones to them).

// wordRef is word as it was.
func (r *redactor) wordRef(i int) (int, bool) {
	if next, ok := r.keyValueRef(i); ok {
		return next, true
	}
	return r.tokenRuleRef(i)
}

func (r *redactor) tokenRuleRef(i int) (int, bool) {
	s := r.s
	if (s[i] == 'B' || s[i] == 'b') && len(s)-i > 7 && strings.EqualFold(s[i:i+6], "bearer") {
		if p := skipSpaces(s, i+6, true); p > i+6 {
			if e := tokenEnd(s, p); e-p >= 8 && credentialLike(s[p:e]) {
				r.replace(p, e)
				return e, true
			}
		}
	}
	if i+1 >= len(s) || !prefixSecond[s[i]].has(s[i+1]) {
		return 0, false
	}
	for _, t := range prefixRules[s[i]] {
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
		e := tokenEnd(s, i)
		if e-p < t.min || t.token != nil && !t.token(s[i:e]) {
			continue
		}
		r.replace(i, e)
		return e, true
	}
	return 0, false
}

func (r *redactor) keyValueRef(i int) (int, bool) {
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
	kind := secretKeyRef(key)
	if kind == notSecret {
		return 0, false
	}
	p += sepLen
	if sep == '=' && p < len(s) && s[p] == '>' {
		p++ // Ruby's and Perl's "key => value"
	}
	if sep == ':' {
		for n := 0; n < 2 && p+1 < len(s) && s[p] == ':' && (s[p+1] == ':' || s[p+1] == '='); n++ {
			p++ // Make's "key ::= value" and ":::="
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
		return 0, false // the key ends a prompt: getpass("Password: ")
	}
	if listOfPasswords(key) {
		return 0, false
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
			if q := skipSpaces(s, ve, true); q < len(s) {
				ve = lineEnd(s, q)
			}
		}
	default:
		vs = p
		ve = p
		for ve < len(s) && !bareStop(s[ve]) {
			ve++
		}
		ve = valueRunEnd(s, vs, ve, bareStop)
		if escapedStop(s[vs:ve]) || yamlIndicator(s[vs:ve]) {
			return 0, false
		}
		if ve < len(s) && strings.Contains(s[vs:ve], "://") {
			for ve < len(s) && !urlStop(s[ve]) {
				ve++
			}
		}
		if spaced && ve > vs && (plainWord(s[vs:ve]) || shortNumber(s[vs:ve])) {
			return 0, false
		}
		if sep == '=' && p > afterSep && ve > vs && plainWord(s[vs:ve]) && blobKey(s[r.keyStart:k]) {
			return 0, false
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

func secretKeyRef(key string) secretKind {
	k := len(key)
	for k > 0 && keySeparator(key[k-1]) {
		k--
	}
	if k == 0 {
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

// filterRefOut is filter's output: s[:n] as long as nothing was dropped (no
// copy is made), then buf.
type filterRefOut struct {
	s      string
	n      int
	buf    []byte
	copied bool
}

// keep appends s[from:to] (right after what is kept so far, until a change).
func (o *filterRefOut) keep(from, to int) {
	if o.copied {
		o.buf = append(o.buf, o.s[from:to]...)
		return
	}
	o.n = to
}

// change makes the output a copy, before something is dropped or added.
func (o *filterRefOut) change() {
	if !o.copied {
		o.buf = append(make([]byte, 0, len(o.s)), o.s[:o.n]...)
		o.copied = true
	}
}

// cut drops the last k bytes of the output.
func (o *filterRefOut) cut(k int) {
	if !o.copied {
		o.n -= k
		o.change()
		return
	}
	o.buf = o.buf[:len(o.buf)-k]
}

// hasSuffix reports whether the output so far ends with m (ASCII case
// insensitively when fold is set).
func (o *filterRefOut) hasSuffix(m string, fold bool) bool {
	if o.copied {
		return hasSuffixFold(o.buf, m, fold)
	}
	return hasSuffixFold(o.s[:o.n], m, fold)
}

// foldWordsAtRef yields, in one scan of s, each word start i where words[n]
// (any ASCII case) begins, as (n, i). A word start is a byte after none of
// a key's bytes.
func foldWordsAtRef(s string, ix *foldIndex) iter.Seq2[int, int] {
	return func(yield func(int, int) bool) {
		for i := 0; i < len(s); {
			for _, n := range ix.first[lower(s[i])] {
				if hasFoldPrefix(s[i:], ix.words[n]) {
					if !yield(n, i) {
						return
					}
				}
			}
			// The rest of a key run starts no word.
			if !ctxKeyByte(s[i]) {
				i++
				continue
			}
			for i++; i < len(s) && ctxKeyByte(s[i]); i++ {
			}
		}
	}
}

// mayHoldContextSecretRef is mayHoldContextSecret as it was: the token
// runs and markup, then each word check and hasMnemonic in a pass of its
// own.
func mayHoldContextSecretRef(s string) bool {
	return tokenRunOrMarkupRef(s) || hasCredentialWordRef(s) || hasTranscriptWordRef(s) || hasMnemonic(s) || strings.Contains(s, "334 ")
}

// tokenRunOrMarkupRef is the quick reject's byte part: a run of 16 glue
// bytes, a byte a decoding starts at, or a colon inside a token.
func tokenRunOrMarkupRef(s string) bool {
	run := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if glueByte(c) {
			if run++; run >= 16 {
				return true
			}
			continue
		}
		run = 0
		if c >= 0x80 || strings.IndexByte("&\\%=>[", c) >= 0 ||
			c == ':' && i > 0 && glueByte(s[i-1]) && i+1 < len(s) && s[i+1] > ' ' &&
				(s[i+1] != ':' || strings.IndexByte(s[i:], '@') >= 0) {
			return true
		}
	}
	return false
}

// hasTranscriptWordRef is the transcript word check as it was: every word start
// tries the words of its first byte.
func hasTranscriptWordRef(s string) bool {
	for range foldWordsAtRef(s, transcriptWordIndex) {
		return true
	}
	return false
}

// hasCredentialWordRef is the credential word check as plain loops: at each
// position every credential word tried from its first letter (2facode from
// its f), its head's letters together (three; for a code under a
// qualifier of fewer letters, that many; a two-letter word whole, with a
// byte but an ASCII letter after it) and separators between the rest
// taken out.
func hasCredentialWordRef(s string) bool {
	for i := 0; i < len(s); i++ {
		for _, cw := range credentialWords {
			w := strings.TrimLeft(cw.word, "0123456789")
			together := min(3, len(w))
			if q, ok := strings.CutSuffix(cw.word, "code"); ok && slices.Contains(codeQualifiers, q) {
				together = min(3, len(strings.TrimLeft(q, "0123456789")))
			}
			if i+together > len(s) || w[:together] != strings.ToLower(s[i:i+together]) {
				continue
			}
			if len(w) == 2 {
				if i+2 < len(s) && !('a' <= lower(s[i+2]) && lower(s[i+2]) <= 'z') {
					return true
				}
				continue
			}
			// The rest in ASCII lower case, every separator taken out.
			rest := strings.Map(func(r rune) rune {
				switch {
				case r == '-' || r == '_' || r == '.' || r == ' ':
					return -1
				case 'A' <= r && r <= 'Z':
					return r + 'a' - 'A'
				}
				return r
			}, s[i+together:])
			if strings.HasPrefix(rest, w[together:]) {
				return true
			}
		}
	}
	return false
}
