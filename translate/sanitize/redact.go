package sanitize

import "strings"

// redactPass scans s once, left to right, and replaces every secret it
// finds by RedactedToken. It reports whether the text changed (a value that
// already reads "[REDACTED]" is left as it is and is not a change). The scan
// is linear: every rule either consumes what it matched or looks at a
// bounded number of bytes.
func redactPass(s string) (string, bool) {
	r := redactor{s: s}
	i := 0
	for i < len(s) {
		switch byteClass[s[i]] {
		case classOther:
			i++
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
			if next, ok := r.word(i); ok {
				i = next
				continue
			}
			// Inside escaped JSON ("failed\tsk-..."), the escape's letter
			// glues onto the token: try the word that starts after it.
			if i > 0 && s[i-1] == '\\' && strings.IndexByte("tnrbf", s[i]) >= 0 && i+1 < len(s) && byteClass[s[i+1]] == classWord {
				if next, ok := r.word(i + 1); ok {
					i = next
					continue
				}
			}
			// Not a secret: no other word starts before this word ends.
			i++
			for i < len(s) && byteClass[s[i]] == classWord {
				i++
			}
		}
	}
	if r.out == nil {
		return s, false
	}
	r.out = append(r.out, s[r.last:]...)
	return string(r.out), true
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
	s    string
	out  []byte // nil until the first real change
	last int    // s[last:] is not yet copied to out
	// keyEnd is the end of the last run of key bytes scanned.
	keyEnd int
}

// replace redacts s[from:to].
func (r *redactor) replace(from, to int) {
	if r.s[from:to] == RedactedToken {
		return
	}
	if r.out == nil {
		r.out = make([]byte, 0, len(r.s))
	}
	r.out = append(r.out, r.s[r.last:from]...)
	r.out = append(r.out, RedactedToken...)
	r.last = to
}

// word tries every rule that starts at the beginning of a word.
func (r *redactor) word(i int) (int, bool) {
	if next, ok := r.keyValue(i); ok {
		return next, true
	}
	s := r.s
	if (s[i] == 'B' || s[i] == 'b') && len(s)-i > 7 && strings.EqualFold(s[i:i+6], "bearer") && blank(s[i+6]) {
		p := i + 6
		for p < len(s) && blank(s[p]) {
			p++
		}
		if e := tokenEnd(s, p); e-p >= 8 {
			r.replace(p, e)
			return e, true
		}
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
		if e-p < t.min {
			continue
		}
		r.replace(i, e)
		return e, true
	}
	return 0, false
}

type prefixRule struct {
	prefix string
	min    int               // characters required after the prefix
	class  func(b byte) bool // when set, the first min characters must be of this class
}

var prefixRules = func() (t [256][]prefixRule) {
	for _, r := range []prefixRule{
		{"sk-", 8, nil},
		{"sk_live_", 8, nil},
		{"sk_test_", 8, nil},
		{"rk_live_", 8, nil},
		{"rk_test_", 8, nil},
		{"whsec_", 8, nil},
		{"ghp_", 1, nil},
		{"gho_", 1, nil},
		{"ghu_", 1, nil},
		{"ghs_", 1, nil},
		{"ghr_", 1, nil},
		{"github_pat_", 1, nil},
		{"glpat-", 1, nil},
		{"xoxb-", 1, nil},
		{"xoxp-", 1, nil},
		{"xoxa-", 1, nil},
		{"xoxr-", 1, nil},
		{"xoxs-", 1, nil},
		{"xoxe-", 1, nil},
		{"xapp-", 1, nil},
		{"tskey-", 1, nil},
		{"eyJ", 1, nil},
		{"AKIA", 16, upperAlnum},
		{"ASIA", 16, upperAlnum},
		{"AIza", 35, googleKeyByte},
		{"npm_", 36, alnum},
		{"hf_", 30, alnum},
		{"SG.", 40, nil},
	} {
		t[r.prefix[0]] = append(t[r.prefix[0]], r)
	}
	return t
}()

// keyValue redacts the value of a key=value / key: value / "key": "value"
// pair whose key names a secret.
func (r *redactor) keyValue(i int) (int, bool) {
	s := r.s
	const maxKey = 64
	if i >= r.keyEnd {
		// A new run of key bytes; every later word start inside it shares
		// its end, so each run is scanned once.
		k := i
		for k < len(s) && keyTable[s[k]] {
			k++
		}
		r.keyEnd = k
	}
	k := r.keyEnd
	if k-i > maxKey || k == len(s) {
		return 0, false
	}
	key := s[i:k]
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
	for p < len(s) && blank(s[p]) {
		p++
	}
	if p >= len(s) || (s[p] != ':' && s[p] != '=') {
		return 0, false
	}
	if s[p] == '=' && p+1 < len(s) && s[p+1] == '=' {
		return 0, false // a comparison, not an assignment
	}
	kind := secretKey(key)
	if kind == notSecret {
		return 0, false
	}
	p++
	if s[p-1] == '=' && p < len(s) && s[p] == '>' {
		p++ // Ruby's and Perl's "key => value"
	}
	for p < len(s) && blank(s[p]) {
		p++
	}
	if p >= len(s) {
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
		ve = strings.IndexByte(s[p:], '\n')
		if ve < 0 {
			ve = len(s)
		} else {
			ve += p
		}
	default:
		vs = p
		ve = p
		for ve < len(s) && !bareStop(s[ve]) {
			ve++
		}
	}
	if ve <= vs {
		return 0, false
	}
	r.replace(vs, ve)
	return ve, true
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
	}
	secretExact = []string{"pass", "auth", "session", "sig", "jwt"}
)

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
	if k == 0 {
		return notSecret
	}
	for _, n := range secretNames[lower(key[k-1])] {
		rest, ok := matchTail(key, n.name)
		if ok && (!n.exact || onlySeparators(key[:rest])) {
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
// contain ':'.
func urlUserinfo(s string, i int) (int, int, bool) {
	if !strings.HasPrefix(s[i:], "://") {
		return 0, 0, false
	}
	from := i + 3
	at, colon := -1, false
	for k := from; k < len(s); k++ {
		b := s[k]
		if b <= ' ' || b == '/' || b == '?' || b == '#' || b == '"' || b == '\'' || b == '<' || b == '>' || b == '`' || b == '\\' || b == 0x7f {
			break
		}
		if b == '@' {
			at = k
		}
	}
	if at <= from {
		return 0, 0, false
	}
	colon = strings.IndexByte(s[from:at], ':') >= 0
	if !colon {
		return 0, 0, false
	}
	return from, at, true
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
