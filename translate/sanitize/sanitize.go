// Package sanitize makes upstream (untrusted) text safe to copy into an
// envelope, a log line or the Code Mode sandbox. It follows the reference's
// "Sanitising upstream text" rules (labby_runtime sanitize_error_text) and
// goes further where a secret could otherwise reach an output.
//
// # Pipeline of Text(s, cap)
//
//  1. A trailing truncation marker (" …[truncated]") is set aside, so that a
//     text this package already cut keeps its marker and is not cut again.
//  2. At most 4×cap bytes are inspected. The cut is moved back to a UTF-8
//     boundary, and when it falls inside a token (a run of the token bytes
//     below) of at most 2048 bytes in all, before that token, so a secret split by
//     this cut is never half shown; a longer run (base64, minified data) is
//     cut where it is, after redaction has seen its start, so a run that a
//     secret rule matches is redacted as a whole and any other keeps the
//     cap's worth of text. Such a text is always marked as truncated.
//  3. Secrets are redacted once on the raw text (so "Bearer<TAB>token" is
//     seen before the tab is dropped), then:
//  4. Forbidden characters are dropped: U+0000–U+001F except '\n' (so tab
//     and '\r' go, and "\r\n" becomes "\n"; lines stay separated by "\n"),
//     U+007F–U+009F, the bidi embeddings and isolates U+202A–U+202E and
//     U+2066–U+2069, and, going further, the invisible characters that can
//     hide or smuggle text: U+00AD, U+061C, U+180E, U+200B–U+200F,
//     U+2028–U+2029, U+2060–U+2065, U+FEFF and the tag block
//     U+E0000–U+E007F. Invalid UTF-8 is replaced by U+FFFD, one per run of
//     invalid bytes (reported as Stripped).
//  5. Prompt-injection markers are deleted until none is left (a linear
//     stack scan, so "<<<system>" and "##<system>#" leave nothing): the
//     reference's `<system>`, `[INST]`, `###` and `<<`, plus the closing
//     forms `</system>` and `[/INST]`. The four tag forms match ASCII case
//     insensitively (`<SYSTEM>`, `[inst]`).
//  6. Secrets are redacted again until the text is stable (see below).
//  7. The text is capped at cap runes. A cut text ends with " …[truncated]"
//     (space, U+2026, "[truncated]"); text of exactly cap runes is not
//     marked. A cut never splits a "[REDACTED]" token (it moves back before
//     it). The result is never longer than cap runes plus the marker.
//
// Text is idempotent: Text(Text(x, c), c) == Text(x, c), and the output of
// Text(x, c) is also a fixed point of Text(·, d) for any d >= c.
//
// # What is redacted
//
// Each secret becomes "[REDACTED]". Two rule sets run on every pass: the
// hand rules below, and a maintained rule set, gitleaks v8's default rules
// (its gitleaks.toml, loaded with gitleaks' own config package) plus
// errsvc's rules in the same format (errsvc_rules.toml: Telegram bot URLs,
// mysql -p…, curl -u user:pw, ?key=/sig= query parameters, .netrc and
// PuTTY key lines, a here-string into sudo -S, an expect script's send,
// openssl passwd's argument); see rules.go for how they are applied and kept fast
// (one keyword pass; a rule's regex runs only at its keywords, and only
// where a byte scan says it can match there).
//
// All rules match on a view of the text in which JSON escapes (\uXXXX,
// \n, \t, … after any run of backslashes) and URL escapes (%XX) read as
// the character they stand for, padded with spaces to the escape's length,
// so an escape is a word break: "\u003csk-proj-…\u003e" and
// "password%3D…" are seen as "<sk-proj-…>" and "password=…". What is
// replaced is always the original bytes.
//
// A token is a run of [A-Za-z0-9._~+/=-] and '_' (the reference's class
// plus '_', which real keys such as sk-proj-…, sk-ant-… and github_pat_…
// contain); trailing dots are left outside the token so a sentence's full
// stop survives. Token rules apply at the start of a word (the previous
// byte is not [A-Za-z0-9_]), so "task-1234" is not "sk-1234", and also
// right after a '_' inside a word, so a token glued behind a name
// ("key_sk-proj-…", "session_eyJ…") is found.
//
//   - Tokens starting sk- (at least 8 more characters, so the locale "sk-SK"
//     and "sk-learn" survive; this covers sk-proj-, sk-svcacct-, sk-or-v1-
//     and Anthropic's sk-ant-), ghp_, gho_, ghu_, ghs_, ghr_, github_pat_,
//     glpat-, xoxb-, xoxp-, xoxa-, xoxr-, xoxs-, xoxe-, xapp-, tskey-, eyJ
//     (JWTs), Stripe sk_live_, sk_test_, rk_live_, rk_test_, whsec_; AWS
//     access key ids AKIA/ASIA followed by 16 [A-Z0-9]; Google API keys AIza
//     followed by 35 [A-Za-z0-9_-]; npm_ followed by 36 alphanumerics;
//     Hugging Face hf_ followed by 30 alphanumerics; SendGrid SG. followed by
//     40 token characters; and the cloud, CI and AI platform prefixes listed
//     in redact.go's prefixRules, each with its format's minimum length and
//     alphabet (AWS session tokens, Google ya29./1//0/GOCSPX-, Vault hvs.,
//     Docker dckr_pat_, PyPI pypi-, GitLab gldt-/glrt-/glptt-…, Grafana
//     glsa_/glc_, Groq gsk_, xAI xai-, Replicate r8_, LangSmith lsv2_,
//     Pinecone pcsk_, Databricks dapi, Shopify shpat_…, AGE-SECRET-KEY-1,
//     base64 PEM LS0tLS1CRUdJTi…, bare base64 DER keys MII…, Slack and
//     Discord webhook URLs, and more).
//   - "Bearer <token>" (any case; the word may be followed by spaces, tabs,
//     a no-break or other Unicode space, or a line break; the token has 8+
//     token characters and is not a plain word, so "Bearer authentication
//     failed" is prose) keeps the word: "Bearer [REDACTED]".
//   - PEM private-key blocks: "-----BEGIN <label>-----" whose label contains
//     "PRIVATE KEY", through the matching "-----END …-----" line (across
//     lines), or to the end of the text when no END follows.
//   - URL credentials: "scheme://user:pass@" becomes "scheme://[REDACTED]@"
//     (the last '@' of the authority is used; the userinfo must contain ':'
//     or be a credential-like token of 16+ characters, as a Sentry DSN's
//     key). A password holding '/', '#' or '?' (the authority then seems to
//     end early, at a ':' not followed by a port) runs to the first '@'
//     within 256 bytes.
//   - key=value, key: value, "key": "value" and \"key\":\"value\" pairs
//     (and Ruby's key => value; a fullwidth colon or equals sign counts as
//     ':' or '=') whose key (case-insensitive, ignoring '-', '_', '.' and
//     ' ') is or ends with a secret name: password, passwd, passphrase,
//     secret (client_secret, aws_secret_access_key…), token (access_token,
//     refresh_token, GITHUB_TOKEN, …; not "tokens", so max_tokens survives,
//     nor paging cursors such as nextPageToken), apikey (api_key, x-api-key,
//     OPENAI_API_KEY), privatekey, secretkey, accesskey, accountkey,
//     sharedaccesskey, keydata (kubeconfig client-key-data), pwd (ODBC; not
//     a path, as in the shell's PWD=/home/…), credential(s), signature,
//     sessionid, authorization and cookie; or is exactly pass, auth, session,
//     sig or jwt. A quoted value loses its content (quotes kept), an unquoted
//     one its run of characters up to whitespace or one of "'&;,<>(){}`\ .
//     "name: problem" prose is kept: after a colon and a space, a plain word
//     of letters or a number of at most 5 digits is not a credential
//     ("password: must contain a digit", "token: expired", "token: 400").
//   - Authorization, Proxy-Authorization, Cookie and Set-Cookie (any key
//     ending in authorization or cookie) with an unquoted value: the rest
//     of the line is redacted ("Authorization: [REDACTED]"), and the next
//     line too when this one holds only an auth scheme ("Bearer"); a line
//     of plain words that does not start with a scheme is prose and kept.
package sanitize

import (
	"math"
	"strings"
	"unicode/utf8"
)

// Caps used across errsvc (the reference's numbers).
const (
	// CauseCap bounds transport causes and Code Mode messages.
	CauseCap = 4096
	// EvidenceCap bounds evidence text.
	EvidenceCap = 8192
)

// TruncationMarker ends every text that Text had to cut.
const TruncationMarker = " …[truncated]"

// RedactedToken replaces every secret.
const RedactedToken = "[REDACTED]"

// maxRedactPasses bounds the redaction fixed-point loop. A text that is not
// stable by then is replaced by RedactedToken as a whole.
const maxRedactPasses = 8

// redactPassesFor is the first layer's fixed-point bound for a text of n
// bytes: maxRedactPasses, and 3 for a text of largePassText bytes or more.
// A hostile text can keep a rule finding one more secret each pass: 32 KiB
// of "curl -u a:{" made gitleaks' curl-auth-user, whose greedy ".*" the
// engine cuts at ruleAfter, find the secret before the last one in every
// window at each pass, 8 passes of 28 ms (3 passes now take 14 ms in
// all: see gapRule). Of the corpus, the fresh corpus
// and the ordinary messages (about 2,000 texts), none needed more than one
// pass after the first (TestFirstLayerPassesStayFew).
func redactPassesFor(n int) int {
	if n >= largePassText {
		return 3
	}
	return maxRedactPasses
}

// largePassText is where redactPassesFor's lower bound starts.
const largePassText = 4 << 10

// Report says what sanitising changed.
type Report struct {
	Stripped  bool // control, bidi or invisible characters dropped, invalid UTF-8 replaced
	Redacted  bool // a secret was redacted
	Removed   bool // a prompt-injection marker was deleted
	Truncated bool // the text (or a structured value) was capped
}

// Changed reports whether anything was changed.
func (r Report) Changed() bool {
	return r.Stripped || r.Redacted || r.Removed || r.Truncated
}

func (r *Report) merge(o Report) {
	r.Stripped = r.Stripped || o.Stripped
	r.Redacted = r.Redacted || o.Redacted
	r.Removed = r.Removed || o.Removed
	r.Truncated = r.Truncated || o.Truncated
}

// Text runs the whole pipeline (see the package documentation) and returns
// text of at most cap runes, plus TruncationMarker when it was cut. A
// negative cap counts as 0.
func Text(s string, cap int) string {
	out, _ := TextReport(s, cap)
	return out
}

// TextReport is Text plus a Report of what changed.
func TextReport(s string, cap int) (string, Report) {
	var rep Report
	if cap < 0 {
		cap = 0
	}
	if len(s) <= cap && plainWords(s) {
		return s, rep
	}
	return textReport(s, cap)
}

// textReport is the whole pipeline, without TextReport's shortcut.
func textReport(s string, cap int) (string, Report) {
	var rep Report
	body, hadMarker := strings.CutSuffix(s, TruncationMarker)
	cut := false
	if cap <= math.MaxInt/4 && len(body) > 4*cap {
		body = window(body, 4*cap)
		cut = true
	}
	c := clean(body, &rep)
	var p string
	switch {
	case cut || (len(c) > cap && utf8.RuneCountInString(c) > cap):
		p = cutRunes(c, cap)
		rep.Truncated = true
	case hadMarker:
		p = c
	default:
		q, ok := strings.CutSuffix(c, TruncationMarker)
		if !ok {
			return c, rep
		}
		p = q
	}
	return settle(p, cap, &rep) + TruncationMarker, rep
}

// clean is the cap-free part of the pipeline. Its result contains no
// forbidden character and no marker, and is a fixed point of redaction.
//
// A forbidden character between two words is dropped as the reference
// drops it, which joins the words: PASSWORD<TAB>value and
// api_key<U+200B>value become one word, in which neither layer reads a key
// before its secret. So a text the filter changed is read again with a
// space for each such character (spaceJoins), and that reading is kept
// when it keeps fewer bytes outside its redactions (unjoined); a text
// without one, or whose secrets are the same either way, keeps the
// reference's reading.
func clean(s string, rep *Report) string {
	var r Report
	c := cleanLayers(s, &r)
	if r.Stripped {
		if spaced, ok := spaceJoins(s); ok {
			var rs Report
			c, r = unjoined(c, r, cleanLayers(spaced, &rs), rs)
		}
	}
	rep.merge(r)
	return c
}

// unjoined is the reading of a text, c, or the reading of it with spaces
// for the characters that joined words, cs, whichever keeps fewer bytes
// outside its redactions (its spaces counted: the same redactions keep c).
// A count of redactions would not do: a reading may redact a span of the
// other in two pieces, and keep what lay between them.
func unjoined(c string, r Report, cs string, rs Report) (string, Report) {
	kept := func(s string) int { return len(s) - strings.Count(s, RedactedToken)*len(RedactedToken) }
	if kept(cs) < kept(c) {
		rs.Stripped = true // the characters are gone, spaces in their place
		return cs, rs
	}
	return c, r
}

// spaceJoins is s with one space for each run of forbidden characters
// between two bytes of words (token bytes or quotes), and whether there
// was one. It skips what cannot start a forbidden character eight bytes at
// a time (joinStop), as filter does: it reads every text the filter
// changed, and decoding each rune made Text 6-8% slower.
func spaceJoins(s string) (string, bool) {
	word := func(b byte) bool { return tokenByte(b) || b == '"' || b == '\'' }
	var b []byte
	last := 0
	for i := 0; i < len(s); {
		for i+8 <= len(s) && !(joinStop[s[i]] || joinStop[s[i+1]] || joinStop[s[i+2]] || joinStop[s[i+3]] ||
			joinStop[s[i+4]] || joinStop[s[i+5]] || joinStop[s[i+6]] || joinStop[s[i+7]]) {
			i += 8
		}
		if i == len(s) {
			break
		}
		n := forbiddenAt(s, i)
		if n == 0 {
			i++
			continue
		}
		j := i + n
		for j < len(s) {
			m := forbiddenAt(s, j)
			if m == 0 {
				break
			}
			j += m
		}
		if i > 0 && j < len(s) && word(s[i-1]) && word(s[j]) {
			b = append(append(b, s[last:i]...), ' ')
			last = j
		}
		i = j
	}
	if last == 0 {
		return s, false
	}
	return string(append(b, s[last:]...)), true
}

// joinStop marks the bytes a forbidden character can start with.
var joinStop = func() (t [256]bool) {
	for b := 0; b < 256; b++ {
		t[b] = (b < 0x20 && b != '\n') || b == 0x7f || b >= utf8.RuneSelf
	}
	return t
}()

// forbiddenAt is the length of the forbidden character at s[i], 0 when
// there is none (an invalid byte is the filter's U+FFFD, not dropped).
func forbiddenAt(s string, i int) int {
	c := s[i]
	if c < utf8.RuneSelf {
		if joinStop[c] {
			return 1
		}
		return 0
	}
	if plainRuneLen(s, i) > 0 {
		return 0
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	if (r == utf8.RuneError && n == 1) || !forbidden(r) {
		return 0
	}
	return n
}

// cleanLayers is clean without unjoined's second reading.
func cleanLayers(s string, rep *Report) string {
	c := cleanFirst(s, rep)
	// The second layer (context.go) on the first's clean text, until both
	// leave it as it is: what it redacts, the first may read anew.
	for i := 0; i < maxRedactPasses; i++ {
		t, changed := contextPass(c)
		if !changed {
			return c
		}
		rep.Redacted = true
		c = cleanFirst(t, rep)
	}
	rep.Redacted = true
	return RedactedToken
}

// cleanFirst is the first layer's part of clean: gitleaks' rules and the
// hand rules, the character filter and the markers.
//
// What the first layer's hand-built parts earn (issue 42), all of them
// against the plain pipeline they replaced (reference_pass_test.go, which
// Text is held to byte for byte): with a provider answer as a fifth of
// the calls, gRPC Translate cold (a) +0.8% / -0.8% at 16 / 64 callers,
// REST (c) +2.7% / -0.5% (bench/ab.sh, 5 interleaved rounds, 2026-12-05;
// a first run of 3 gave c -12% at 16, an outlier): nothing a caller
// sees. They stay on the sanitiser's goal: Text 64 KiB 1.28 ms against 1.71, 1 KiB
// 24.9 µs against 31.4, a short message 617 ns against 938 (provider core
// 3.56 µs against 3.95; medians of 3 interleaved).
func cleanFirst(s string, rep *Report) string {
	s, red, st, rm := redactFilter(s)
	rep.Redacted = rep.Redacted || red
	rep.Stripped = rep.Stripped || st
	rep.Removed = rep.Removed || rm
	if !red && !st && !rm {
		// Nothing changed: the raw pass already saw this very text.
		return s
	}
	return redactFix(s, rep)
}

// redactFix redacts until the text is stable.
func redactFix(s string, rep *Report) string {
	for i, n := 0, redactPassesFor(len(s)); i < n; i++ {
		t, changed := redactPass(s)
		if !changed {
			return s
		}
		rep.Redacted = true
		s = t
	}
	rep.Redacted = true
	return RedactedToken
}

// settle makes p (a prefix of a clean text, at most cap runes) a fixed point
// of redaction that still fits the cap, so that p+TruncationMarker is a fixed
// point of Text. A prefix of a clean text is almost always clean already;
// this only guards the rare value that a cut shortened.
func settle(p string, cap int, rep *Report) string {
	for i := 0; i < maxRedactPasses; i++ {
		q, changed := redactPass(p)
		if !changed {
			q, changed = contextPass(p)
		}
		if !changed {
			return p
		}
		rep.Redacted = true
		p = cutRunes(q, cap)
	}
	return ""
}

// window cuts body to at most lim bytes: on a UTF-8 boundary, and, when
// the cut would split a token (a run of token bytes, where a secret could
// sit) no longer than maxSplitToken as a whole, before that token. A longer token (a
// base64 blob, a minified run of data) is cut where it is: the redaction
// that follows sees its first bytes, and a secret rule that matches there
// redacts the whole kept part.
func window(body string, lim int) string {
	o := lim
	for k := 0; k < utf8.UTFMax-1 && o > 0 && !utf8.RuneStart(body[o]); k++ {
		o--
	}
	if o > 0 && glueByte(body[o-1]) && glueByte(body[o]) {
		start, end := o, o
		for start > 0 && o-start <= maxSplitToken && glueByte(body[start-1]) {
			start--
		}
		for end < len(body) && end-start <= maxSplitToken && glueByte(body[end]) {
			end++
		}
		if end-start <= maxSplitToken {
			o = start
		}
	}
	return body[:o]
}

// glueByte is a token byte, or a control byte that filtering drops and so
// glues the bytes around it into one token.
func glueByte(b byte) bool { return glueTable[b] }

var glueTable = func() (t [256]bool) {
	for b := 0; b < 256; b++ {
		t[b] = tokenTable[b] || (b < 0x20 && b != '\n') || b == 0x7f
	}
	return t
}()

// maxSplitToken is the longest token a window cut moves back over: longer
// than any credential format (JWTs and PKCS#8 keys included, whose start
// rules match anyway), far shorter than the 4×cap window.
const maxSplitToken = 2048

// cutRunes keeps the first n runes of s, moved back so that it never ends
// inside a RedactedToken.
func cutRunes(s string, n int) string {
	o, count := 0, 0
	for o < len(s) && count < n {
		_, size := utf8.DecodeRuneInString(s[o:])
		o += size
		count++
	}
	if o >= len(s) {
		return s
	}
	for k := 1; k < len(RedactedToken) && k <= o; k++ {
		if strings.HasPrefix(s[o-k:], RedactedToken) {
			o -= k
			break
		}
	}
	return s[:o]
}

// forbidden reports whether r must never appear in an output.
func forbidden(r rune) bool {
	switch {
	case r < 0x20:
		return r != '\n'
	case r < 0x7f:
		return false
	case r <= 0x9f:
		return true
	case r == 0xad, r == 0x61c, r == 0x180e, r == 0xfeff:
		return true
	case r >= 0x200b && r <= 0x200f, // zero width, LRM, RLM
		r >= 0x2028 && r <= 0x202e,   // line/paragraph separators, bidi embeddings
		r >= 0x2060 && r <= 0x2069,   // invisible operators, bidi isolates
		r >= 0xe0000 && r <= 0xe007f: // tag characters
		return true
	}
	return false
}

// filter drops forbidden characters, replaces each run of invalid UTF-8
// bytes with one U+FFFD, and deletes prompt-injection markers until none is
// left. Marker deletion is a stack: every kept byte is pushed once; after a
// push a marker can only end at the top, and is popped. The stack never
// holds a marker, so neither does the result, and the scan is linear.
func filter(s string) (out string, stripped, removed bool) {
	// Fast path: nothing to drop and no byte that starts a marker.
	i := 0
	for i < len(s) {
		for i+8 <= len(s) && !(filterStop[s[i]] || filterStop[s[i+1]] || filterStop[s[i+2]] || filterStop[s[i+3]] ||
			filterStop[s[i+4]] || filterStop[s[i+5]] || filterStop[s[i+6]] || filterStop[s[i+7]]) {
			i += 8
		}
		if i == len(s) {
			break
		}
		b := s[i]
		if !filterStop[b] {
			i++
			continue
		}
		if b < utf8.RuneSelf {
			break
		}
		if n := plainRuneLen(s, i); n > 0 {
			i += n
			continue
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
	o := filterOut{s: s, pe: i}
	o.run(i, len(s))
	if !o.stripped && !o.removed {
		return s, false, false
	}
	return o.finish(), o.stripped, o.removed
}

// filterSpans is filter(t) for t, s with each span replaced by
// RedactedToken (the spans in order, apart), without writing t: it reads
// s and adds the token in place of each span. No marker holds a byte of the
// token, nor a run of invalid bytes, so the filter keeps the token as it is
// and the token ends what comes before it.
func filterSpans(s string, spans []span) (out string, stripped, removed bool) {
	o := filterOut{s: s, size: len(s)}
	for _, sp := range spans {
		o.size += len(RedactedToken) - (sp.to - sp.from)
	}
	last := 0
	for _, sp := range spans {
		o.run(last, sp.from)
		o.add(RedactedToken)
		o.invalid = false
		last = sp.to
	}
	o.run(last, len(s))
	return o.finish(), o.stripped, o.removed
}

// run filters s[i:end) onto the output.
func (o *filterOut) run(i, end int) {
	s := o.s[:end]
	for i < len(s) {
		// A run of bytes that are kept and cannot end a marker (valid,
		// allowed non-ASCII runes included) is kept at once.
		if j := keptRun(s, i); j > i {
			o.keep(i, j)
			o.invalid = false
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
				o.stripped = true
				if !o.invalid {
					o.add(runeErrorUTF8)
					o.invalid = true
				}
			case forbidden(r):
				o.stripped = true
			default:
				o.keep(i-size, i)
				o.invalid = false
			}
			continue
		}
		i++
		if (b < 0x20 && b != '\n') || b == 0x7f {
			o.stripped = true
			continue
		}
		o.invalid = false
		o.keep(i-1, i)
		if b != '>' && b != ']' && b != '#' && b != '<' {
			continue
		}
		// Every marker is two bytes or more: the byte before b rules
		// most places out.
		prev := o.prev()
		for _, m := range markers {
			if n := len(m.text); m.text[n-1] == b && lower(prev) == lower(m.text[n-2]) && o.hasSuffix(m.text, m.fold) {
				o.cut(len(m.text))
				o.removed = true
				break
			}
		}
	}
}

// runeErrorUTF8 is U+FFFD, which replaces a run of invalid bytes.
const runeErrorUTF8 = "\uFFFD"

// keptRun returns the end of the run at i of bytes that filter keeps one
// by one without a marker check: ASCII bytes not in filterSlow, and
// runes of valid UTF-8 that are not forbidden.
func keptRun(s string, i int) int {
	for i < len(s) {
		// Eight bytes at a time while none of them needs a look.
		for i+8 <= len(s) {
			w := s[i : i+8]
			if filterSlow8[w[0]]|filterSlow8[w[1]]|filterSlow8[w[2]]|filterSlow8[w[3]]|
				filterSlow8[w[4]]|filterSlow8[w[5]]|filterSlow8[w[6]]|filterSlow8[w[7]] != 0 {
				break
			}
			i += 8
		}
		if i == len(s) {
			break
		}
		b := s[i]
		if !filterSlow[b] {
			i++
			continue
		}
		if b < utf8.RuneSelf {
			return i
		}
		if n := plainRuneLen(s, i); n > 0 {
			i += n
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || forbidden(r) {
			return i
		}
		i += size
	}
	return i
}

// plainRuneLen is the length of the rune at i when it is a valid two- or
// three-byte rune that the filter keeps and its lead byte alone says so,
// 0 otherwise (then the rune is decoded). The lead bytes 0xc3–0xd7 start
// U+00C0–U+05FF (accented Latin, Greek, Cyrillic, Hebrew) and 0xe3–0xec
// start U+3000–U+CFFF (CJK, kana, Hangul): none of them is forbidden,
// and with these leads every continuation byte is valid (no overlong
// form, no surrogate). Decoding each such rune was the filter's cost on
// non-Latin text; TestPlainRuneLen and the filter's reference tests hold
// it to the decoder.
func plainRuneLen(s string, i int) int {
	b := s[i]
	if b >= 0xc3 && b <= 0xd7 && i+1 < len(s) && s[i+1]&0xc0 == 0x80 {
		return 2
	}
	if b >= 0xe3 && b <= 0xec && i+2 < len(s) && s[i+1]&0xc0 == 0x80 && s[i+2]&0xc0 == 0x80 {
		return 3
	}
	return 0
}

// filterOut is filter's output: buf followed by s[pf:pe], the run of s
// kept since the last change. A kept byte that follows that run only
// extends it, so the copy into buf is made once per run, when something
// is dropped or added after it; a result that is one run of s is s's
// bytes, not a copy.
type filterOut struct {
	s      string
	pf, pe int
	buf    []byte
	// what it changed, and whether the last byte was an invalid one
	stripped, removed, invalid bool
	size                       int // buf's capacity when more than len(s) (filterSpans)
}

// keep appends s[from:to] to the output.
func (o *filterOut) keep(from, to int) {
	if from != o.pe {
		o.flush()
		o.pf = from
	}
	o.pe = to
}

// flush copies the pending run into buf.
func (o *filterOut) flush() {
	if o.buf == nil {
		o.buf = make([]byte, 0, max(o.size, len(o.s), 1))
	}
	if o.pe == o.pf {
		return
	}
	o.buf = append(o.buf, o.s[o.pf:o.pe]...)
	o.pf = o.pe
}

// add appends t, which is not a copy of s.
func (o *filterOut) add(t string) {
	o.flush()
	o.buf = append(o.buf, t...)
}

// hasSuffix reports whether the output ends with m (ASCII case
// insensitively when fold is set).
func (o *filterOut) hasSuffix(m string, fold bool) bool {
	if o.pe-o.pf >= len(m) {
		return hasSuffixFold(o.s[o.pe-len(m):o.pe], m, fold)
	}
	o.flush()
	return hasSuffixFold(o.buf, m, fold)
}

// prev is the output's last byte but one (0 when it has one byte).
func (o *filterOut) prev() byte {
	if o.pe-o.pf >= 2 {
		return o.s[o.pe-2]
	}
	if n := len(o.buf) - 2 + (o.pe - o.pf); n >= 0 {
		return o.buf[n]
	}
	return 0
}

// cut drops the last k bytes of the output.
func (o *filterOut) cut(k int) {
	if o.pe-o.pf >= k {
		o.pe -= k
		return
	}
	o.flush()
	o.buf = o.buf[:len(o.buf)-k]
}

// finish returns the output.
func (o *filterOut) finish() string {
	if o.buf == nil {
		// One run of s: its bytes.
		return o.s[o.pf:o.pe]
	}
	o.flush()
	return string(o.buf)
}

// filterStop marks the bytes filter's fast path stops at: the ASCII bytes
// it drops or that start a marker, and every non-ASCII byte (decoded
// there).
var filterStop = func() (t [256]bool) {
	for b := 0; b < 256; b++ {
		t[b] = (b < 0x20 && b != '\n') || b == 0x7f || b == '<' || b == '#' || b == '[' || b >= utf8.RuneSelf
	}
	return t
}()

// filterSlow adds the bytes that end a marker to filterStop: filter's
// copy loop handles these one by one.
var filterSlow = func() (t [256]bool) {
	t = filterStop
	t['>'], t[']'] = true, true
	return t
}()

// filterSlow8 is filterSlow as bytes, which keptRun ORs without a branch.
var filterSlow8 = func() (t [256]uint8) {
	for b, slow := range filterSlow {
		if slow {
			t[b] = 1
		}
	}
	return t
}()

// Prompt-injection markers. The tag forms match ASCII case-insensitively.
var markers = []struct {
	text string
	fold bool
}{
	{"<system>", true},
	{"</system>", true},
	{"[INST]", true},
	{"[/INST]", true},
	{"###", false},
	{"<<", false},
}

func hasSuffixFold[T string | []byte](buf T, m string, fold bool) bool {
	if len(buf) < len(m) {
		return false
	}
	tail := buf[len(buf)-len(m):]
	for i := 0; i < len(m); i++ {
		a, b := tail[i], m[i]
		if fold {
			a, b = lower(a), lower(b)
		}
		if a != b {
			return false
		}
	}
	return true
}

func lower(b byte) byte {
	if 'A' <= b && b <= 'Z' {
		return b + 'a' - 'A'
	}
	return b
}

// plainWordMax is the longest word plainWords lets through: shorter than
// any secret a rule finds without punctuation around it (the shortest such
// formats, a Databricks dapi… or a hex API key, are 32 characters and more).
const plainWordMax = 15

// plainWords reports whether s is short prose no step of the pipeline can
// change: lower-case ASCII letters, digits and single spaces, every word
// at most plainWordMax bytes. No control, invisible or non-ASCII
// character to drop, no '<', '[' or '#' for a prompt-injection marker, no
// ':' or '=' for a key-value secret, no '-', '_', '.' or '/' that every
// prefixed token format needs, no upper case for AKIA…, AIza… or eyJ…, and
// no run long enough for a bare token rule, and no "bearer". Most upstream messages ("slow
// down", "timed out") are such text; TestPlainWordsNeedNoRule holds the
// shortcut to the whole pipeline.
func plainWords(s string) bool {
	word := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			word++
			if word > plainWordMax {
				return false
			}
		case c == ' ' && word > 0:
			word = 0
		default:
			return false
		}
	}
	// "Bearer <token>" needs no punctuation: the word after it is a token
	// when it is not a plain word; nor does "password hunter2" (the second
	// layer, context.go).
	return !strings.Contains(s, "bearer") && !plainProseSecret(s)
}

// Cut caps already-sanitised text at cap runes, as Text does, with
// TruncationMarker when it cut; a redaction marker is never split. It is
// for text assembled from pieces Text has sanitised each (an operator
// policy's kept ids between them).
func Cut(s string, cap int) (string, bool) {
	if cap < 0 {
		cap = 0
	}
	if len(s) <= cap || utf8.RuneCountInString(s) <= cap {
		return s, false
	}
	return cutRunes(s, cap) + TruncationMarker, true
}
