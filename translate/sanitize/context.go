package sanitize

import (
	"iter"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tyler-smith/go-bip39/wordlists"

	"github.com/errsvc/errsvc/internal/ablation"
)

// The second detection layer. gitleaks' rules (the first layer) find a
// secret by a vendor prefix or a keyword beside a value on one line; the
// text errsvc carries is error text (stack traces, CLI transcripts,
// connection strings, config dumps), where a credential often has neither.
// This layer is a mechanism, not a list of formats:
//
//   - credential context: after a password word (password, passwd, pwd,
//     pass, passphrase, psk) any value but a placeholder or a mask; after a
//     weaker word (secret, token, key, auth, credential, session, cookie,
//     sid) a value that could be a secret (not a plain word, a number, a
//     placeholder or a readable identifier); in k=v, k: v, "k": "v",
//     <k>v</k>, YAML name/value pairs, command-line flags, connection
//     string segments ({...} values), header and cookie lines, and k v in
//     prose (there only a value that is not a plain word);
//   - terminal transcripts: FTP PASS, IMAP LOGIN, SMTP AUTH PLAIN/LOGIN;
//     the passwords tools take as flags (sshpass -p, redis-cli -a,
//     ldapsearch -w, mysql -pX);
//   - shapes that are secrets whatever their context: a .pgpass line, a
//     keypair as a JSON array of 32 or more bytes, a BIP-39 mnemonic of 12
//     or more words, a SAML assertion's signature and values;
//   - bare tokens: a long high-entropy token in prose with no key name at
//     all, unless its shape says what else it is (a UUID, a hex digest
//     after a hash name, an ARN, a provider's request id, a version, a
//     model name);
//
// each matched on a decoded view of the text (decode.go: HTML entities,
// \xHH, repeated %XX, \uXXXX, fullwidth forms, ANSI remnants), the
// redaction covering the original bytes. Placeholders (${VAR}, <redacted>,
// ****) and errsvc's own [REDACTED] are never touched.
//
// contextPass runs after the first layer on its clean output (clean), until
// the text is stable, so Text stays idempotent.

// contextPass redacts what the second layer finds in s: on s itself (URL
// userinfo, whose percent-encoded password must not be decoded before its
// '@' is found; hex and base64 runs that decode to text holding a secret),
// on its decoded view, and on that view with soft line wraps joined.
func contextPass(s string) (string, bool) {
	if !ablation.Growth || !mayHoldContextSecret(s) {
		return s, false
	}
	return contextPassAll(s)
}

// contextPassAll is contextPass without its quick reject: every reading
// of s, however plain (TestQuickRejectIsSound holds the reject to it).
func contextPassAll(s string) (string, bool) {
	sc := scanView(s) // the text as it is: its runs serve encodedRuns and its own reading
	spans := encodedRuns(s, sc.glue)
	spans = append(spans, redactedTails(s)...)
	v := decodedView(s)
	// Every decoding, the text as it is first: a password encoded once more
	// than its URL keeps its '@' and '/' escaped at exactly one of them,
	// and a password holding "%20" or "%C1" reads whole only before that is
	// decoded.
	if v.rounds == nil {
		spans = v.findIn(spans, sc)
	}
	for k, r := range v.rounds {
		if k == 0 { // the original: scanned above
			spans = r.findIn(spans, sc)
			continue
		}
		// The lines this decoding left as they were have been read in
		// the reading before it: only those near a change are read again.
		r = r.around(aroundLines, aroundLines, false)
		spans = r.findIn(spans, scanView(r.text))
		// And the first layer's rules: a text quoted in a JSON string
		// inside another (`token .= \"v\"` in an MCP block's JSON
		// document) is one gitleaks' rules read only decoded (17 of its
		// rules' own true positives leaked so, the walks found).
		spans = r.original(firstLayerSpans(r.text), spans)
	}
	if j, ok := v.joinWraps(); ok {
		// Likewise the joined lines: a wrapped value's key is on the line
		// it was joined into, and the next line's first word may be the
		// rest of a token redacted before the wrap (redactedTails).
		j = j.around(0, 0, true)
		spans = j.original(findContextSecrets(j.text, scanView(j.text)), spans)
		spans = j.original(userinfoSpans(j.text, nil), spans)
	}
	if len(spans) == 0 {
		return s, false
	}
	return view{text: s}.redact(s, mergeCtxSpans(spans)), true
}

// firstLayerSpans are the spans the first layer (secretSpans: the hand
// rules and gitleaks' rules) redacts in v, a decoded reading.
func firstLayerSpans(v string) []ctxSpan {
	sc := scratchPool.Get().(*scratch)
	defer scratchPool.Put(sc)
	var out []ctxSpan
	for _, sp := range secretSpans(v, sc) {
		out = append(out, ctxSpan{sp.from, sp.to})
	}
	return out
}

// mayHoldContextSecret is the layer's quick reject: a text with no run of
// 16 token bytes, no credential word (in any case, anywhere), no
// transcript word at a word start, no mnemonic, no SMTP challenge
// ("334 ") and no markup a decoding
// could turn into one of them holds nothing this layer finds. It is also
// the plainWords shortcut's check, so its words must never be missed.
//
// One pass asks each byte all of it, from one table read (rejectByte):
// the token run; a credential word by the byte's letter code with the last
// two carried along, so a position costs one more read until three letters
// begin a credential word;
// a transcript word only after a byte that is not a key's (every
// transcript word begins with one, and the rest of a key run starts no
// word), behind a byte-pair check. Against three passes, the provider
// translation 3.4% faster (medians of 4 interleaved runs, 3907 against
// 4044 ns), BenchmarkTextShort 10%, BenchmarkContextPass 16%. One table
// for the four per-byte questions instead of four: BenchmarkTextShort 650
// -> 578 ns, BenchmarkContextPass 2.80 -> 2.20 µs (medians of 4
// interleaved), the provider translation about 1% (3603 -> 3582 ns, 6
// interleaved: within the noise).
// TestWordChecksMatchReference holds it to the plain loops it replaced.
//
// At service level it does not earn issue 42's 3%: with this reject, the
// mnemonic reject (mnemonicRoom) and the plainWords shortcut all turned
// off, gRPC Translate cold (a) ran 0.3 to 1.6% slower and REST (c) 1.1 to
// 3.3% (bench/ab.sh, 3 interleaved rounds, 2026-12-05; the rounds' ranges
// overlap); with a provider answer as a fifth of the calls
// (ERRSVC_BENCH_PROVIDER_MIX=1, 5 rounds) a 1.9% and 2.0%, c -1.1% and
// +1.0%. They stay on the core goals the issue sets beside the rule: the
// three off, Labby 0.68 -> 1.01 µs (over its 1 µs), agent 0.86 -> 1.16,
// classified 1.60 -> 2.27, mcp 2.36 -> 2.74, provider 3.46 -> 4.16
// (BenchmarkTranslate, medians of 5 interleaved).
func mayHoldContextSecret(s string) bool {
	run := 0
	a, b := letterCodes-1, letterCodes-1 // the letter codes of s[i-2] and s[i-1]
	afterKey := false                    // s[i-1] is a key's byte: s[i] starts no word
	lastAt := -2                         // the last '@' of s (-1: none), read at the first "::"
	for i := 0; i < len(s); i++ {
		c := s[i]
		r := rejectByte[c]
		l := int(r & rejectLetter)
		if credentialHeads[a*letterCodes+b]>>l&1 != 0 && credentialWordAt(s[i-2:], a*letterCodes+b) {
			return true
		}
		a, b = b, l
		if !afterKey && transcriptHeadAt(s, i) && foldWordAt(s[i:], transcriptWordIndex) {
			return true
		}
		afterKey = r&rejectKey != 0
		if r&rejectGlue != 0 {
			run++
			if run >= 16 {
				return true
			}
			continue
		}
		run = 0
		if r&rejectMarkup != 0 {
			return true
		}
		// A colon inside a token (user:pass@host, a .pgpass line), not
		// one that ends a label ("(RPM): Limit 500") nor a path's "::"
		// with no '@' after it (an MCP tool's "github::create_issue",
		// Rust's std::io): there the layer reads a password only in a
		// userinfo ("://::pw@", TestQuickRejectIsSound), and every MCP
		// translation's tool name ran the whole layer. The last '@' is
		// found once, so a text of many "::" stays one pass.
		if c == ':' && i > 0 && glueByte(s[i-1]) && i+1 < len(s) && s[i+1] > ' ' {
			if s[i+1] != ':' {
				return true
			}
			if lastAt == -2 {
				lastAt = strings.LastIndexByte(s, '@')
			}
			if lastAt > i {
				return true
			}
		}
		if c == '(' && i > 0 && callNameEnds[s[i-1]] && passwordCall(s[:i]) >= 0 {
			return true
		}
	}
	return hasMnemonic(s) || strings.Contains(s, "334 ") // an SMTP challenge: smtpLoginPasswords
}

// passwordCall is the passwordCalls entry whose name ends s, or -1.
func passwordCall(s string) int {
	for n, c := range passwordCalls {
		if strings.HasSuffix(s, c.name) {
			return n
		}
	}
	return -1
}

// callNameEnds holds the last bytes of passwordCalls' names: most calls'
// names end otherwise, and are not compared.
var callNameEnds = func() (t [256]bool) {
	for _, c := range passwordCalls {
		t[c.name[len(c.name)-1]] = true
	}
	return t
}()

// rejectByte is all mayHoldContextSecret asks of a byte in one read: its
// letter code (letterCode, the low five bits), whether it is a glue byte,
// a key's byte, or markup a decoding could turn into a secret (a byte that
// is not glue: >= 0x80, & \ % = > [). Not '{': a JSON document's brace
// starts nothing any reading finds (TestQuickRejectIsSound), and every
// MCP block's JSON text ran the whole layer for it.
var rejectByte = func() (t [256]uint8) {
	for c := range t {
		t[c] = letterCode[c]
		if glueByte(byte(c)) {
			t[c] |= rejectGlue
		} else if c >= 0x80 || strings.IndexByte("&\\%=>[", byte(c)) >= 0 {
			t[c] |= rejectMarkup
		}
		if ctxKeyByte(byte(c)) {
			t[c] |= rejectKey
		}
	}
	return t
}()

const (
	rejectLetter = 1<<5 - 1 // the letter code's bits
	rejectGlue   = 1 << 5
	rejectKey    = 1 << 6
	rejectMarkup = 1 << 7
)

// transcriptHeadsByByte is transcriptHeads by a byte in either case.
var transcriptHeadsByByte = func() (t [256]uint32) {
	for c := range t {
		t[c] = transcriptHeads[lower(byte(c))]
	}
	return t
}()

// plainProseSecret reports whether the second layer changes s, a text of
// plain words (plainWords): only a password word before a value, a
// mnemonic or a transcript can be found in such text, and contextPass's
// quick reject looks for exactly those first.
func plainProseSecret(s string) bool {
	_, changed := contextPass(s)
	return changed
}

// hasMnemonic reports whether s holds a run of 12 BIP-39 words. Its
// separators are counted first, cheapest, which rejects most short texts,
// then mnemonicRoom looks for room for one. (Counting spaces alone missed
// a mnemonic whose words are on lines of their own.)
func hasMnemonic(s string) bool {
	// A text shorter than mnemonicMinBytes has no room (a 9-byte "slow
	// down" paid two counts for it).
	return len(s) >= mnemonicMinBytes && strings.Count(s, " ")+strings.Count(s, "\n") >= 11 && mnemonicRoom(s) && len(mnemonics(s)) > 0
}

// mnemonicMinBytes is the shortest stretch mnemonicStretches yields:
// twelve three-letter words and the eleven spaces or line breaks between
// them.
const mnemonicMinBytes = 12*3 + 11

// mnemonicRoom is hasMnemonic's quick reject: s holds a run of at least
// mnemonicMinBytes lower-case letters, spaces and line breaks, as every
// stretch does. Each window is read from its end, so a byte outside the
// run skips the window's whole start. On the benchmarked provider answer's
// 110-byte message it took hasMnemonic from 205 ns to 26 (on a machine
// 1.4x slower than the reference): the provider translation 3.6% faster
// (median of 8 interleaved runs, with the clock change of refNoClock),
// BenchmarkTextShort 17%.
func mnemonicRoom(s string) bool {
	for i := 0; i+mnemonicMinBytes <= len(s); {
		j := i + mnemonicMinBytes - 1
		for j >= i && mnemonicByte[s[j]] {
			j--
		}
		if j < i {
			return true
		}
		i = j + 1
	}
	return false
}

// mnemonicByte marks the bytes of a stretch: a-z, space and line break.
var mnemonicByte = func() (t [256]bool) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = true
	}
	t[' '], t['\n'] = true, true
	return t
}()

// transcriptWords name the tools and protocols transcriptValues reads:
// the protocol verbs and phrases its other readers look for, and every
// tool of transcriptCommands, taken from that table (a tool listed there
// alone, lftp's, was read only where something else made the quick
// reject read the text).
var transcriptWords = func() []string {
	words := []string{"login", "auth", "echo", "printf", "identified by", "set password"}
	for _, c := range transcriptCommands {
		if c.tool != "" && !slices.Contains(words, c.tool) && !slices.Contains(colonTools, c.tool) {
			words = append(words, c.tool)
		}
	}
	return words
}()

// colonTools are transcriptCommands' tools that are no transcript words:
// HTTPie's "http" starts every URL, and as a word of the quick reject
// (mayHoldContextSecret) it sent every text with a URL on to the whole
// layer (BenchmarkTextClean, a clean 119-byte message with a URL, +7.2%);
// as a head of keyRun's it still cost that message 3.5%. Their secret is
// user:secret, whose colon inside a token passes the reject, and keyRun
// finds them by their key run's length and a blank after it (colonTool).
var colonTools = []string{"http -a", "https -a"}

// colonTool records the colonTools entry the key run at v[i:j] starts.
func (out *viewScan) colonTool(v string, i, j int) {
	if (j-i != 4 && j-i != 5) || v[i]|0x20 != 'h' || j+1 >= len(v) || v[j] != ' ' || v[j+1] != '-' {
		return
	}
	for _, n := range transcriptToolIndex.first['h'] {
		if w := transcriptToolIndex.words[n]; slices.Contains(colonTools, w) && hasFoldPrefix(v[i:], w) {
			out.tools = append(out.tools, [2]int{n, i})
			out.transcriptWord = true
		}
	}
}

// transcriptHeadAt is foldWordAt's quick reject: s[i:] begins with the
// first two bytes of a transcript word or tool, in any case. A letter's low
// five bits are its lower case's, so the second byte needs no folding.
func transcriptHeadAt(s string, i int) bool {
	if i+1 >= len(s) || transcriptHeadsByByte[s[i]]>>(s[i+1]&31)&1 == 0 {
		return false
	}
	var third byte // past the end: as a space, which ends a word of two
	if i+2 < len(s) {
		third = s[i+2]
	}
	return transcriptThirds[int(s[i]&31)<<5|int(s[i+1]&31)]>>(third&31)&1 != 0
}

// transcriptThirds is, by the low five bits of a transcript word's or
// tool's first two bytes, the set of its third bytes (by their low five
// bits; every byte after a word of two). The two bytes alone let
// foldWordAt compare whole words at every "re" of record, retry and
// returned, every "un" of unable and unknown, once a few tools share
// them (rar, unzip, rdesktop cost BenchmarkContextPassCommonWords 9%).
var transcriptThirds = func() (t [32 * 32]uint32) {
	for _, ix := range []*foldIndex{transcriptWordIndex, transcriptToolIndex} {
		for _, w := range ix.words {
			if len(w) < 2 {
				continue
			}
			if slices.Contains(colonTools, w) {
				continue // keyRun finds them (colonTool)
			}
			k := int(w[0]&31)<<5 | int(w[1]&31)
			if len(w) == 2 {
				t[k] = ^uint32(0)
			} else {
				t[k] |= 1 << (w[2] & 31)
			}
		}
	}
	return t
}()

// foldWordAt reports whether s begins with one of ix's words, in any case.
func foldWordAt(s string, ix *foldIndex) bool {
	for _, n := range ix.first[lower(s[0])] {
		if hasFoldPrefix(s, ix.words[n]) {
			return true
		}
	}
	return false
}

// foldIndex groups words by their first byte, lower case: foldWordAt
// tries at a word start only the words that can begin there.
type foldIndex struct {
	words []string
	first [256][]int
}

func newFoldIndex(words []string) *foldIndex {
	ix := &foldIndex{words: words}
	for n, w := range words {
		if w != "" {
			ix.first[lower(w[0])] = append(ix.first[lower(w[0])], n)
		}
	}
	return ix
}

var (
	transcriptWordIndex = newFoldIndex(transcriptWords)
	transcriptToolIndex = newFoldIndex(func() []string {
		tools := make([]string, len(transcriptCommands))
		for n, c := range transcriptCommands {
			tools[n] = c.tool
		}
		return tools
	}())
)

// transcriptHeads is, by a transcript word's or tool's first byte (lower
// case), the set of its second bytes (lower case, by their low five bits):
// keyRun's quick reject before it compares whole words.
var transcriptHeads = func() (t [256]uint32) {
	for _, ix := range []*foldIndex{transcriptWordIndex, transcriptToolIndex} {
		for _, w := range ix.words {
			if len(w) >= 2 && !slices.Contains(colonTools, w) {
				t[lower(w[0])] |= 1 << (lower(w[1]) & 31)
			}
		}
	}
	return t
}()

// ctxSpan is a byte range of the decoded view to redact.
type ctxSpan struct{ start, end int }

// credentialWord is a key word and whether any value after it is a secret
// (a password word) or only one that looks like one.
type credentialWord struct {
	word   string
	strong bool
}

// credentialWords, lower case; a key matches when it ends with one (so
// DB_PASSWORD, client_secret, X-Insert-Key and AWS_SECRET_ACCESS_KEY do),
// separators '-', '_', '.' and ' ' aside.
var credentialWords = append([]credentialWord{
	{"password", true}, {"passwd", true}, {"sshpass", true}, {"passphrase", true}, {"pwd", true}, {"pw", true}, {"pass", true}, {"psk", true},
	{"secret", false}, {"token", false}, {"key", false}, {"auth", false}, {"credential", false},
	{"credentials", false}, {"session", false}, {"cookie", false}, {"sid", false}, {"team", false},
	{"signature", false}, {"apikey", false}, {"samlresponse", false}, {"secretkeybase", false}, {"accesskey", false}, {"privatekey", false},
	{"authorization", true},
	// A bearer token by its scheme's name as a key (bearer=…, "bearer": …).
	{"bearer", false},
	// Session and anti-forgery cookies by their frameworks' names
	// (PHPSESSID, Express's _csrf, Angular's XSRF).
	{"sessid", false}, {"csrf", false}, {"xsrf", false},
	// Jenkins' anti-forgery token (the Jenkins-Crumb header, .crumb).
	{"crumb", false},
	// Tailscale's auth keys (--authkey=…, TS_AUTHKEY: "key" ends a word
	// there, which a short word must not).
	{"authkey", false},
	// A personal access token by its short name (ado_pat, GITHUB_PAT,
	// gitlabPat; Nosey Parker's Azure DevOps examples): a short word, so
	// only as a key's last part.
	{"pat", false},
	// One-time codes and PINs: numbers, which after a weaker word pass as
	// plain values, so they are password words (pin=4821, otp: 482913);
	// in prose a number after them is not read as one ("pin 3 pages").
	// The codes under a name (otp_code=…) are codeQualifiers'.
	{"pin", true}, {"otp", true}, {"totp", true}, {"mfa", true},
	// A card's security code (cvv=123, CVC: 123) and the answer to an
	// account's security question, which recovers it as a password does.
	{"cvv", true}, {"cvc", true}, {"securityanswer", true}, {"secretanswer", true},
	// A sign-up form's second password (Rails' password_confirmation).
	{"passwordconfirmation", true}, {"passwordconfirm", true},
	// The password in other languages, as forms and configuration keys
	// spell it in ASCII (German, Norwegian, Dutch, Danish, Finnish, Polish,
	// Czech, Portuguese, Spanish, Swedish, Turkish, Hungarian; the
	// spellings with their own letters are foreignPasswordWords'), and
	// French's "mot de passe" by its last word (motdepasse, mot_de_passe,
	// "Mot de passe : VALUE").
	{"passwort", true}, {"passord", true}, {"wachtwoord", true}, {"adgangskode", true}, {"salasana", true},
	{"kennwort", true}, {"haslo", true}, {"heslo", true}, {"senha", true}, {"contrasena", true},
	{"passe", true}, {"losenord", true}, {"sifre", true}, {"jelszo", true},
}, codeWords()...)

// codeQualifiers name a one-time code: a key that ends in one of them and
// "code" (separators aside: sms_code, oneTimeCode, AUTH-CODE) names a
// code, a password word's value. They are a pass code's, the factor's or
// the channel's name (otp_code, mfa_code, sms_code, twofactor_code,
// tfa_code, 2fa_code, verification_code), the factor's spare codes
// (recovery_code, backup_code), the other names producers give a code
// (Apple's security code, a login, e-mail, access, one-time or
// confirmation code, a PIN code, OAuth's authorization code: auth_code,
// authorization_code), and the codes that reset, unlock or activate an
// account. credentialWords holds each with "code" after it, for the quick
// reject; credentialKey reads a key's "code" once and then its qualifier
// (codeKey), not every such word in turn.
var codeQualifiers = []string{
	"pass", "otp", "mfa", "verification", "sms", "recovery", "backup", "twofactor", "tfa", "2fa",
	"auth", "authorization", "security", "confirmation", "onetime", "login", "email", "access", "pin",
	"reset", "unlock", "activation",
}

// codeWords is each code qualifier with "code" after it, a password word.
func codeWords() []credentialWord {
	out := make([]credentialWord, len(codeQualifiers))
	for n, q := range codeQualifiers {
		out[n] = credentialWord{q + "code", true}
	}
	return out
}

// isCodeWord says w is one of codeWords.
func isCodeWord(w string) bool {
	q, ok := strings.CutSuffix(w, "code")
	return ok && slices.Contains(codeQualifiers, q)
}

// codeKey reports whether k (its trailing separators gone) ends in a
// code qualifier and "code".
func codeKey(k string) bool {
	rest, ok := matchTail(k, "code")
	if !ok {
		return false
	}
	for _, q := range codeQualifiers {
		if _, ok := matchTail(k[:rest], q); ok {
			return true
		}
	}
	return false
}

// credentialTails holds, by the last two letters of a key (lower case,
// separators aside), the credential words that end so: a key with none
// is no credential key (credentialKey's quick reject, which runs on every
// key of every text).
var credentialTails = func() (t [26][26][]uint8) {
	for n, w := range credentialWords {
		if isCodeWord(w.word) {
			continue // codeKey's
		}
		a, b := w.word[len(w.word)-2]-'a', w.word[len(w.word)-1]-'a'
		t[a][b] = append(t[a][b], uint8(n))
	}
	return t
}()

// notCredentialTails is notCredentialKeys by their last two letters.
var notCredentialTails = func() (t [26][26][]string) {
	for _, w := range notCredentialKeys {
		a, b := w[len(w)-2]-'a', w[len(w)-1]-'a'
		t[a][b] = append(t[a][b], w)
	}
	return t
}()

// credentialTails3 holds the last three letters of every credential word,
// and of a two-letter word (pw) every letter before it.
var credentialTails3 = func() (t [26][26][26]bool) {
	for _, w := range credentialWords {
		n := len(w.word)
		if n == 2 {
			for z := range t {
				t[z][w.word[0]-'a'][w.word[1]-'a'] = true
			}
			continue
		}
		t[w.word[n-3]-'a'][w.word[n-2]-'a'][w.word[n-1]-'a'] = true
	}
	return t
}()

// twoLetterWords holds the two-letter credential words: a key of two
// letters (PW) is one of them or none.
var twoLetterWords = func() (t [26][26]bool) {
	for _, w := range credentialWords {
		if len(w.word) == 2 {
			t[w.word[0]-'a'][w.word[1]-'a'] = true
		}
	}
	return t
}()

// notCredentialKeys end in a credential word but name something else.
var notCredentialKeys = []string{"pagetoken", "nexttoken", "continuationtoken", "synctoken", "resumetoken", "cursortoken",
	"publickey", "keyid", "primarykey", "foreignkey", "sortkey", "partitionkey", "idempotencykey", "cachekey", "routingkey",
	"keyspace", "monkey", "hotkey", "turkey", "donkey", "bypass", "compass", "surpass", "overpass", "trespass", "ukey",
	"tokens", "maxtokens", "tokencount", "passed", "passes", "passing", "team", "steam", "keycode", "subpass", "firstpass",
	"impasse"}

// credentialWordAt reports whether s begins with a credential word as the
// quick reject reads one (rejectWords), in any case, its head's letters
// together and separators between the rest aside, as credentialKey reads
// a key (sms_code, Recovery-Code, 2fa_code): the quick reject must find
// every word the layer reads. head is s's first
// two letters' codes (credentialHeads' index): only the words that begin
// so are tried, since a common head ("rec" of record, "bac" of backend)
// begins a text's own words as often as a credential word. On such a
// text (BenchmarkContextPassCommonWords: error code, record, backend) the
// reject took 8.6 µs trying every word, 2.6 µs trying those of the head,
// 2.1 µs before the words of the channel and the spare codes (medians of
// 3 interleaved runs).
//
// It stays out of the reject's loop (noinline), where it runs only after
// three letters begin a credential word: inlined there, with its call to
// matchHead, it made BenchmarkContextPass 3-7% slower (3 interleaved runs),
// though its text begins no word.
//
//go:noinline
func credentialWordAt(s string, head int) bool {
	for _, n := range credentialsByHead[head] {
		if w := &rejectWords[n]; matchHead(s, w.word, w.together) {
			return true
		}
	}
	return false
}

// rejectWord is a credential word as the quick reject reads it: from its
// first letter, with the letters of its head that stand together in every
// key that ends in it. That is three, but for a code qualifier of two
// letters after a digit (2fa_code: the reject reads "fa", then "code"
// after a separator or none) and a word of two letters (pw, which the
// reject reads where a byte but a letter follows it: pwd is a word of
// its own).
type rejectWord struct {
	word     string
	together int
}

// rejectWords is credentialWords as the quick reject reads them.
var rejectWords = func() []rejectWord {
	out := make([]rejectWord, len(credentialWords))
	for n, w := range credentialWords {
		word := strings.TrimLeft(w.word, "0123456789")
		together := min(3, len(word))
		if q, ok := strings.CutSuffix(word, "code"); ok && isCodeWord(w.word) {
			together = min(together, len(q))
		}
		out[n] = rejectWord{word, together}
	}
	return out
}()

// credentialsByHead lists rejectWords by their first two letters' codes,
// as credentialHeads holds their third.
var credentialsByHead = func() (t [letterCodes * letterCodes][]uint8) {
	for n, w := range rejectWords {
		h := int(w.word[0]-'a')*letterCodes + int(w.word[1]-'a')
		t[h] = append(t[h], uint8(n))
	}
	return t
}()

// matchHead reports whether s begins with word (lower case), in any case,
// separators (keySeparator) between its letters after the first together
// aside: matchTail's reading from the front.
func matchHead(s, word string, together int) bool {
	k := 0
	for j := 0; j < len(word); j++ {
		for j >= together && k < len(s) && keySeparator(s[k]) {
			k++
		}
		if k == len(s) || lower(s[k]) != word[j] {
			return false
		}
		k++
	}
	return true
}

// letterCodes counts letterCode's values: 0 to 25 for the letters in
// either case, 26 for every other byte.
const letterCodes = 27

var letterCode = func() (t [256]uint8) {
	for c := range t {
		t[c] = letterCodes - 1
		if l := lower(byte(c)); 'a' <= l && l <= 'z' {
			t[c] = l - 'a'
		}
	}
	return t
}()

// credentialHeads holds the first three letters of every reject word: by
// the first two letters' codes, a bit for the third's, and the bit of a
// byte but a letter (a separator) where only two stand together.
var credentialHeads = func() (t [letterCodes * letterCodes]uint32) {
	for _, w := range rejectWords {
		h := int(w.word[0]-'a')*letterCodes + int(w.word[1]-'a')
		if len(w.word) > 2 {
			t[h] |= 1 << (w.word[2] - 'a')
		}
		if w.together < 3 {
			t[h] |= 1 << (letterCodes - 1)
		}
	}
	return t
}()

func hasFoldPrefix(s, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for j := 0; j < len(prefix); j++ {
		if lower(s[j]) != prefix[j] {
			return false
		}
	}
	return true
}

// findContextSecrets returns the spans of v to redact, in order, without
// overlaps; sc is scanView(v).
func findContextSecrets(v string, sc viewScan) []ctxSpan {
	var out []ctxSpan
	add := func(s ctxSpan) {
		if s.end <= s.start {
			return
		}
		if k := hiddenTail(v, s.start, s.end); k > 0 {
			s.end = max(s.end, k+len(RedactedToken)) // the whole redaction, when a reading stopped inside it
		} else if placeholder(v[s.start:s.end]) {
			return
		}
		out = append(out, s)
	}
	for _, s := range keyedValues(v, sc.keyed) {
		add(s)
	}
	for _, s := range passwordCallArgs(v, sc.calls) {
		add(s)
	}
	for _, s := range transcriptValues(v, sc) {
		add(s)
	}
	for _, s := range shapeSecrets(v, sc) {
		add(s)
	}
	for _, s := range bareTokens(v, sc.glue) {
		add(s)
	}
	for _, s := range jwkMembers(v) {
		add(s)
	}
	for _, s := range secureStrings(v, sc.glue) {
		add(s)
	}
	for _, s := range foreignPasswords(v, sc.foreign) {
		add(s)
	}
	for _, s := range wifiPasswords(v, sc.wifi) {
		add(s)
	}
	// Last, and not through add: a tail glued to a redaction is never a
	// placeholder of its own.
	out = append(out, redactedTails(v)...)
	return mergeCtxSpans(out)
}

func mergeCtxSpans(in []ctxSpan) []ctxSpan {
	if len(in) < 2 {
		return in
	}
	// Not an insertion sort: most texts hold few spans, but a hostile one
	// holds a span per few bytes from each reader, and sorted by insertion
	// 1 MiB of "password = os.getenv(" took 0.8 s.
	slices.SortFunc(in, func(a, b ctxSpan) int { return a.start - b.start })
	out := in[:1]
	for _, s := range in[1:] {
		last := &out[len(out)-1]
		if s.start <= last.end {
			last.end = max(last.end, s.end)
			continue
		}
		out = append(out, s)
	}
	return out
}

// ctxKeyByte is a byte of a key name.
func ctxKeyByte(c byte) bool { return ctxKeyTable[c] }

var ctxKeyTable = func() (t [256]bool) {
	for c := 0; c < 256; c++ {
		t[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '.'
	}
	return t
}()

// viewScan is what one scan of a view finds for the detectors that read
// runs of bytes: keyedValues, transcriptValues and bareTokens.
type viewScan struct {
	keyed          []keyedRun // key runs (leading dashes aside) that end in a credential word
	tools          [][2]int   // (transcriptCommands entry, start) of each tool named at a key run's start
	calls          [][2]int   // (passwordCalls entry, start of its arguments) of each such call
	transcriptWord bool       // a transcriptWords entry starts some key run
	glue           []ctxSpan  // runs of glue bytes of 20 or more: bareTokens' candidates
	// mnemonicWords bounds the longest run of words mnemonics can find:
	// under 12, it finds none.
	mnemonicWords int
	foreign       []int // the ends of foreignPasswordWords labels
	wifi          []int // where the fields of each "WIFI:" payload start
}

// keyedRun is a key at v[start:end] and whether its credential word is a
// password word (credentialWord.strong).
type keyedRun struct {
	start, end int
	strong     bool
}

// scanView reads v's glue runs and the key runs (runs of ctxKeyByte,
// whose bytes are all glue bytes) inside them, once. A word of
// transcriptWords and transcriptToolIndex starts with a key byte, so it
// starts a key run (the word starts mayHoldContextSecret reads).
func scanView(v string) viewScan {
	var out viewScan
	// An upper bound of mnemonicStretches' runs of candidate words, glue
	// run by glue run: a run of 3 to 8 lower-case letters is one word; any
	// other run holds a break (a byte but a letter, or a word too short or
	// too long), with at most one word before it, which may go on the
	// words before, and one after it, which may start the next run of
	// words; a byte between runs but a space or a line break is a break.
	words, gapClean := 0, true
	for i := 0; i < len(v); {
		if c := v[i]; scanClass[c]&classGlue == 0 {
			gapClean = gapClean && (c == ' ' || c == '\n')
			if foreignLeads[c] {
				out.foreignLabel(v, i)
			}
			i++
			continue
		}
		// One glue run, and the key runs in it (a key byte is a glue
		// byte), in one pass.
		j, ks := i, -1
		var seen uint8
		for ; j < len(v); j++ {
			k := scanClass[v[j]]
			if k&classGlue == 0 {
				break
			}
			seen |= k
			if k&classKey != 0 {
				if ks < 0 {
					ks = j
				}
			} else if ks >= 0 {
				out.keyRun(v, i, ks, j)
				ks = -1
			}
		}
		if ks >= 0 {
			out.keyRun(v, i, ks, j)
		}
		if j-i >= 20 {
			out.glue = append(out.glue, ctxSpan{i, j})
		}
		if !gapClean {
			words = 0
		}
		words++
		out.mnemonicWords = max(out.mnemonicWords, words)
		if seen&classNotLower != 0 || j-i < 3 || j-i > 8 {
			words = 1
		}
		gapClean = true
		i = j
	}
	return out
}

// scanClass holds what scanView asks of a byte.
var scanClass = func() (t [256]uint8) {
	for c := range t {
		if glueByte(byte(c)) {
			t[c] |= classGlue
		}
		if ctxKeyByte(byte(c)) {
			t[c] |= classKey
		}
		if c < 'a' || c > 'z' {
			t[c] |= classNotLower
		}
	}
	return t
}()

const (
	classGlue     = 1 << iota // glueByte
	classKey                  // ctxKeyByte
	classNotLower             // not 'a' to 'z'
)

// keyRun records what the key run v[i:j], in the glue run from gs, starts
// or ends.
func (out *viewScan) keyRun(v string, gs, i, j int) {
	if transcriptHeadAt(v, i) {
		out.transcriptStart(v, i, lower(v[i]))
	} else {
		out.colonTool(v, i, j)
	}
	if j-i == 4 && j < len(v) && v[j] == ':' && v[i:j] == "WIFI" {
		out.wifi = append(out.wifi, j+1)
	}
	if j < len(v) && v[j] == '(' {
		if n := passwordCall(v[:j]); n >= 0 { // the name may hold more than its key run (mysqli->__construct)
			out.calls = append(out.calls, [2]int{n, j + 1})
		}
	}
	ks := i
	for ks < j && v[ks] == '-' {
		ks++ // --password VALUE: the dashes are the flag's, not the key's
	}
	if w, ok := credentialKey(v[ks:j]); ok && !tokenAsKey(v[ks:j]) && !blobPiece(v, gs, ks, j) {
		out.keyed = append(out.keyed, keyedRun{ks, j, w.strong})
	} else if j-ks >= 6 && qualifierTails[int(letterCode[v[j-3]])*letterCodes+int(letterCode[v[j-2]])]>>letterCode[v[j-1]]&1 != 0 &&
		qualifiedPasswordKey(v[ks:j]) && !blobPiece(v, gs, ks, j) {
		out.keyed = append(out.keyed, keyedRun{ks, j, true})
	} else if j-ks == len("code") && v[ks]|0x20 == 'c' {
		if qs := spacedCodeKey(v, ks, j); qs >= 0 {
			out.keyed = append(out.keyed, keyedRun{qs, j, true})
		}
	}
}

// qualifiedPasswordKey: a password word's key with a qualifier after it
// (db_pass_secure, my_password_sec, password_prod, PASSWORD_B64), as
// detect-secrets' keyword detector reads a credential word anywhere in a
// key. Only a password word, and only the qualifiers passwordQualifiers
// holds: password_policy and token_count name no secret.
func qualifiedPasswordKey(k string) bool {
	// The qualifier is the last segment, of 3 to 10 bytes.
	p := len(k) - 1
	for p >= 0 && len(k)-p <= 11 && !(k[p] == '_' || k[p] == '-' || k[p] == '.') {
		p--
	}
	if p <= 0 || len(k)-p-1 < 3 || len(k)-p > 11 {
		return false
	}
	if !mayEndInCredentialWord(k[:p]) {
		return false // most keys: one table read
	}
	var low [10]byte
	q := k[p+1:]
	for i := range len(q) {
		low[i] = lower(q[i])
	}
	if !passwordQualifiers[string(low[:len(q)])] {
		return false
	}
	w, ok := credentialKey(k[:p])
	return ok && w.strong && w.word != "code"
}

// passwordQualifiers say which password, or in what form, a key names.
// Words that end as common words do ("production", "staging", "string",
// "encrypted", "test": -ion, -ing, -ted, -est) are left out: keyRun asks
// every key run's last three bytes (qualifierTails) before reading one.
var passwordQualifiers = map[string]bool{"secure": true, "sec": true, "enc": true, "prod": true, "dev": true,
	"old": true, "new": true, "plain": true, "clear": true, "raw": true, "value": true, "val": true, "str": true,
	"b64": true, "base64": true}

// qualifierTails holds the last three bytes' letter codes (letterCode) of
// every passwordQualifiers entry: by the first two, a bit for the third.
var qualifierTails = func() (t [letterCodes * letterCodes]uint32) {
	for q := range passwordQualifiers {
		n := len(q)
		t[int(letterCode[q[n-3]])*letterCodes+int(letterCode[q[n-2]])] |= 1 << letterCode[q[n-1]]
	}
	return t
}()

// trailingDigits is how many digits end s.
func trailingDigits(s string) int {
	n := 0
	for n < len(s) && '0' <= s[len(s)-1-n] && s[len(s)-1-n] <= '9' {
		n++
	}
	return n
}

// tokenAsKey: a run that ends in a credential word by chance, a random
// token's tail ("h1:…LGwWTVquCVC= mismatch", a go.sum hash ending in CVC,
// fresh corpus seed 7421), not a name: its value is none of a key's. A
// long name (githubPersonalAccessToken2) is cased as words.
func tokenAsKey(k string) bool {
	return len(k) >= 20 && highEntropyToken(k) && !casedAsWords(k)
}

// blobPiece: a key run v[ks:j] that a base64 blob's '+' or '/' starts,
// in a glue run from gs that is a random token up to it: a piece of the
// blob ("h1:…u0e+FAzMFa= mismatch", a go.sum hash ending in MFa, fresh
// corpus seed 9674), not a name. A path's last name is cased as words
// ("/etc/app/db_password = "). The blob is read back blobReach bytes at
// most: a 32 KiB run of "h1:ab+Pass=" was read from its start at each key.
func blobPiece(v string, gs, ks, j int) bool {
	return ks > gs && (v[ks-1] == '+' || v[ks-1] == '/') && tokenAsKey(v[max(gs, ks-blobReach):j])
}

// blobReach is how far back blobPiece reads a blob: a go.sum hash is 47
// bytes, a SHA-512 in base64 88.
const blobReach = 128

// oneTimeCode: the digits a one-time code is sent as, 4 to 10 of them,
// in two groups at most ("492817", "492-817").
func oneTimeCode(s string) bool {
	digits, groups := 0, 1
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case '0' <= c && c <= '9':
			digits++
		case c == '-' && i > 0 && i < len(s)-1 && groups == 1:
			groups++
		default:
			return false
		}
	}
	return 4 <= digits && digits <= 10
}

// codeValue: a one-time code's digits, or a backup code's letters and
// digits in groups ("8f3k-29dk-x8s2").
func codeValue(s string) bool {
	if oneTimeCode(s) {
		return true
	}
	k := classesOf(s)
	return len(s) >= 8 && k.digit && (k.lower || k.upper) && strings.Trim(s, "-0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") == ""
}

// spacedCodeKey is where a code's name of two words starts when the key
// run v[ks:j], four bytes, is "code" and the word before it, one space
// away, is one of codeQualifiers ("verification code: 492817", "Enter the
// 2FA code:", "one-time code"): prose writes with a space the key a form
// writes with '_' (codeKey). -1 when it is not ("error code: 42").
func spacedCodeKey(v string, ks, j int) int {
	if !hasFoldPrefix(v[ks:], "code") || ks < 2 || v[ks-1] != ' ' {
		return -1
	}
	qs := ks - 1
	for qs > 0 && ctxKeyByte(v[qs-1]) {
		qs--
	}
	if qs == ks-1 || !codeKey(v[qs:j]) {
		return -1
	}
	return qs
}

// transcriptStart records the transcript tools and words that start at
// v[i] (c, lower case).
func (out *viewScan) transcriptStart(v string, i int, c byte) {
	for _, n := range transcriptToolIndex.first[c] {
		if hasFoldPrefix(v[i:], transcriptToolIndex.words[n]) {
			out.tools = append(out.tools, [2]int{n, i})
		}
	}
	if out.transcriptWord {
		return
	}
	for _, n := range transcriptWordIndex.first[c] {
		if hasFoldPrefix(v[i:], transcriptWordIndex.words[n]) {
			out.transcriptWord = true
			return
		}
	}
}

// yamlChildValue is where the value of a YAML key with none on its line
// (ending at v[eol]; the key at v[key]) starts when that value is a
// mapping whose first member holds it: Travis CI's "password:\n  secure:
// VALUE", a chart's "apiKey:\n  value: VALUE". The member is on the next
// line, indented past the key, and does not name where the secret is kept
// (namingChildKeys: "valueFrom:", "file: /run/secrets/db"); 0 when there
// is none.
func yamlChildValue(v string, eol, key int) int {
	line := eol + 1
	if v[eol] == '\r' && line < len(v) && v[line] == '\n' {
		line++
	}
	c := line
	for c < len(v) && (v[c] == ' ' || v[c] == '\t') {
		c++
	}
	if c-line <= key-(strings.LastIndexByte(v[:key], '\n')+1) {
		return 0
	}
	k, sep, ok := keyAndSeparator(v[c:])
	if !ok || v[c+sep] != ':' || v[c+sep+1] != ' ' && v[c+sep+1] != '\t' || namingChildKeys[strings.ToLower(v[c:c+k])] {
		return 0
	}
	if at := skipSpaces(v, c+sep+1, false); at < len(v) && v[at] != '\n' && v[at] != '\r' {
		return at
	}
	return 0
}

// phpVisibility is where a property's name in PHP's var_dump ends, past
// its class and visibility (["password":"Config":private]=>,
// ["password":protected]=>) when the quote at v[i-1] closed the name and
// they follow it; i otherwise.
func phpVisibility(v string, i int) int {
	rest := v[i:min(len(v), i+128)]
	e := strings.Index(rest, "]=>")
	if e < 0 || rest[0] != ':' {
		return i
	}
	m := rest[:e]
	if c, ok := strings.CutPrefix(m, `:"`); ok {
		q := strings.IndexByte(c, '"')
		if q < 0 {
			return i
		}
		m = c[q+1:]
	}
	if m != ":private" && m != ":protected" {
		return i
	}
	return i + e + 1
}

// varDumpString is where the string PHP's var_dump writes on the line
// after a member's "=>" (at v[eol]) starts, its quote: `  string(12)
// "VALUE"`; eol when the next line is none.
func varDumpString(v string, eol int) int {
	j := skipSpaces(v, eol+1, false)
	rest, ok := strings.CutPrefix(v[j:], "string(")
	if !ok {
		return eol
	}
	d := 0
	for d < len(rest) && d < 8 && '0' <= rest[d] && rest[d] <= '9' {
		d++
	}
	if d == 0 || !strings.HasPrefix(rest[d:], `) "`) {
		return eol
	}
	return j + len("string(") + d + len(") ")
}

// namingChildKeys are a secret's mapping's members that say where it is
// kept or what it is, not what it is: Kubernetes' secretKeyRef's name and
// key, a file's path, an environment variable's name.
var namingChildKeys = map[string]bool{
	"name": true, "key": true, "file": true, "path": true, "env": true, "ref": true,
	"kind": true, "type": true, "description": true, "from": true, "source": true,
}

// keyInValueSkip is how far inside the value before it a key must sit for
// keyedValues to take its value as read: near that value's end, the key's
// own value may go on past it.
const keyInValueSkip = 64

// keyedValues finds, for every key ending in a credential word (keys, from
// scanView), the value its syntax gives it.
func keyedValues(v string, keys []keyedRun) []ctxSpan {
	var out []ctxSpan
	covered := 0    // the end of the last value read
	capped := false // that value was read to maxValueLen, not to its end
	inserts := maxInsertReads
	var stops stopMemo
	for _, k := range keys {
		if k.start < covered && (capped || covered-k.end >= keyInValueSkip) {
			// A key well inside the value read before it: what it names
			// is redacted with that value. Read again, a text of many such
			// keys joined into one run (wrapped lines joined) would be
			// read to its end once per key. Near the end of a value cut
			// at maxValueLen, the keys would each read maxValueLen again.
			continue
		}
		if k.strong {
			if s, ok := valueNoted(v, k.end); ok {
				out = append(out, s)
			}
		}
		if k.strong && listOfPasswords(v[k.start:k.end]) {
			if items, end, ok := listValues(v, k.start, k.end, out); ok {
				out = items // a list, read item by item (none when empty)
				if end > covered {
					covered, capped = end, false // the keys inside it, as a value's
				}
				continue
			}
		}
		if s, ok := assignedAmong(v, k.start, k.end, k.strong); ok {
			if s.end > s.start {
				out = append(out, s)
			}
			continue
		}
		if s, ok := valueAfter(v, k.start, k.end, k.strong, &stops); ok {
			cut := s.end-s.start >= maxValueLen-1
			if cut {
				// Cut at maxValueLen: the value goes on to the blank that
				// ends its run, and the keys inside it are not read.
				for s.end < len(v) && v[s.end] > ' ' {
					s.end++
				}
			}
			if s.end > covered || cut && s.end == covered {
				covered, capped = s.end, cut
			}
			out = append(out, s)
		} else if s, ok := calledWith(v, k.end, k.strong, &inserts); ok {
			out = append(out, s)
		} else if s, ok := comparedWith(v, k.start, k.end, k.strong); ok {
			out = append(out, s)
		} else if k.strong {
			if s, ok := insertedValue(v, k.start, k.end, &inserts); ok {
				out = append(out, s)
			} else if s, ok := valueBelow(v, k.start, k.end); ok {
				out = append(out, s)
			} else if s, ok := valueBefore(v, k.start, k.end); ok {
				out = append(out, s)
			}
		}
	}
	out = append(out, nameValuePairs(v, keys)...)
	return out
}

// valueBefore reads a password a sentence names before its key, as
// validators and login forms report one: "'V' is not a valid password",
// "The value 'V' for password does not meet the requirements", "Invalid
// value "V" for parameter 'password'", "V is not the correct password".
// Between the value and the key, on one line, only valueBeforeLinks'
// words; after the key, the sentence goes on to no noun the key would
// qualify ("'bob' is not valid for password grant" names a grant). The
// value is quoted, in parentheses, or a bare token that looks random
// (secretLooking: "This is not a valid password" keeps its "This").
func valueBefore(v string, ks, ke int) (ctxSpan, bool) {
	// After the key: its closing quote, then the end of the clause or
	// a word that goes on about the value.
	a := ke
	if a < len(v) && (v[a] == '\'' || v[a] == '"') {
		a++
	}
	if a = skipSpaces(v, a, false); a < len(v) && !strings.ContainsRune(".,;:!?)\n\r", rune(v[a])) {
		w := a
		for w < len(v) && 'a' <= lower(v[w]) && lower(v[w]) <= 'z' {
			w++
		}
		if !slices.Contains(valueBeforeNext, strings.ToLower(v[a:w])) {
			return ctxSpan{}, false
		}
	}
	// Before the key: its opening quote, then linking words back to the
	// value.
	i := ks
	if i > 0 && (v[i-1] == '\'' || v[i-1] == '"') {
		i--
	}
	floor := max(0, ks-96)
	links := 0
	for ; ; links++ {
		for i > floor && (v[i-1] == ' ' || v[i-1] == '\t') {
			i--
		}
		if i <= floor || links > 6 {
			return ctxSpan{}, false
		}
		w := i
		for w > floor && 'a' <= lower(v[w-1]) && lower(v[w-1]) <= 'z' {
			w--
		}
		if w == i || w > floor && v[w-1] > ' ' {
			break // no word, or a word glued to more: the value, or none
		}
		if !slices.Contains(valueBeforeLinks, strings.ToLower(v[w:i])) {
			return ctxSpan{}, false
		}
		i = w
	}
	if links == 0 {
		return ctxSpan{}, false // "'V' password": no sentence names it
	}
	// The value ends at v[i-1].
	switch c := v[i-1]; c {
	case '\'', '"', ')':
		open := byte(c)
		if c == ')' {
			open = '('
		}
		j := strings.LastIndexByte(v[floor:i-1], open)
		if j < 0 {
			return ctxSpan{}, false
		}
		j += floor
		if val := v[j+1 : i-1]; val == "" || strings.ContainsAny(val, "\n\r") || placeholder(val) {
			return ctxSpan{}, false
		}
		if kindWords[lastWord(v[max(floor, j-24):j])] {
			return ctxSpan{}, false // "None is not of type 'string' for password": a type's name
		}
		return ctxSpan{j + 1, i - 1}, true
	}
	j := i
	for j > floor && v[j-1] > ' ' {
		j--
	}
	if val := v[j:i]; !secretLooking(val) || placeholder(val) {
		return ctxSpan{}, false
	}
	return ctxSpan{j, i}, true
}

// enteredValue reads a login form's words after a password's key, from
// v[i]: "you entered", "entered", "you provided", "supplied", then a
// comma or a colon, if any. It returns where the value starts.
func enteredValue(v string, i int) (int, bool) {
	if hasFoldPrefix(v[i:], "you ") {
		i = skipSpaces(v, i+len("you "), false)
	}
	for _, w := range enteredWords {
		if hasFoldPrefix(v[i:], w) && i+len(w) < len(v) && (v[i+len(w)] == ' ' || v[i+len(w)] == ',' || v[i+len(w)] == ':') {
			j := i + len(w)
			if v[j] == ',' || v[j] == ':' {
				j++
			}
			j = skipSpaces(v, j, false)
			// "the password you entered is incorrect": a copula, no value.
			if e := strings.IndexAny(v[j:], " ,.\n"); e > 0 && isCopula(v[j:j+e]) {
				return 0, false
			}
			return j, j < len(v)
		}
	}
	return 0, false
}

var enteredWords = []string{"entered", "provided", "supplied", "typed", "given"}

// valueNoted reads a password a sentence notes after its key, in its
// clause (up to a full stop or a line's end, at most 64 bytes on): Python's
// "expected bytes for password, got str (value 'VALUE')".
func valueNoted(v string, ke int) (ctxSpan, bool) {
	clause := v[ke:min(len(v), ke+64)]
	if e := strings.IndexAny(clause, ".\n"); e >= 0 {
		clause = clause[:e]
	}
	n := strings.Index(clause, "(value ")
	if n < 0 {
		return ctxSpan{}, false
	}
	i := ke + n + len("(value ")
	start, end, ok := quotedValue(v, i)
	if !ok || end <= start || placeholder(v[start:end]) {
		return ctxSpan{}, false
	}
	return ctxSpan{start, end}, true
}

// kindWords name a kind before the quoted word that names it ("of type
// 'string'", "dtype 'int64'", "format 'uuid'", "encoding 'utf-8'"): what
// valueBefore reads there is a type's name, not a value (lastWord's form:
// lower case, no '-', '_' or '.').
var kindWords = map[string]bool{
	"type": true, "types": true, "datatype": true, "dtype": true, "subtype": true, "kind": true, "class": true,
	"format": true, "encoding": true, "charset": true, "scheme": true, "algorithm": true, "mode": true,
}

// valueBeforeLinks are the words valueBefore reads between a value and its
// key.
var valueBeforeLinks = []string{"for", "is", "was", "not", "a", "an", "the", "valid", "invalid", "correct",
	"incorrect", "wrong", "right", "accepted", "rejected", "allowed", "acceptable", "parameter", "field",
	"argument", "option", "property", "attribute", "setting", "as", "your", "new", "current", "old", "too",
	"weak", "short", "long", "strong", "secure", "enough", "value", "given"}

// valueBeforeNext are the words valueBefore lets follow the key.
var valueBeforeNext = []string{"does", "do", "did", "is", "was", "has", "field", "parameter", "argument",
	"for", "of", "because", "and", "but", "value", "provided", "given", "entered", "supplied"}

// assignedAmong reads a multiple assignment the key at v[ks:ke] is one
// name of (Go's "const a, b string = "x", "y"" and "a, b := …", Python's
// "user, password = "admin", "VALUE""; whispers' language.go): its value
// is the one at its own place in the list after the operator, not the
// first. It says whether the key is such a name; the span is empty when
// its value is none to read (a call's results, a variable, a
// placeholder).
func assignedAmong(v string, ks, ke int, strong bool) (ctxSpan, bool) {
	// A comma after the key or before it, or it is no such name.
	b := ks
	for b > 0 && (v[b-1] == ' ' || v[b-1] == '\t') {
		b--
	}
	if a := skipSpaces(v, ke, false); (a >= len(v) || v[a] != ',') && (b == 0 || v[b-1] != ',') {
		return ctxSpan{}, false
	}
	// The names: identifiers joined by ", " on the key's line, after a
	// declaration's keyword, within maxNamesLen of the line's start.
	const maxNamesLen = 256
	from := max(0, ks-maxNamesLen-len("const "))
	start := strings.LastIndexByte(v[from:ks], '\n') + 1 + from
	if start == from && from > 0 {
		return ctxSpan{}, false // the line starts further back
	}
	for start < ks && (v[start] == ' ' || v[start] == '\t') {
		start++
	}
	for _, kw := range [...]string{"var ", "const ", "let ", "local "} {
		if strings.HasPrefix(v[start:ks], kw) {
			start += len(kw)
			break
		}
	}
	if ks-start > maxNamesLen {
		return ctxSpan{}, false
	}
	place, names := -1, 0
	i := start
	for {
		n := i
		for n < len(v) && identifierByte(v[n]) {
			n++
		}
		if n == i || n-i > 64 {
			return ctxSpan{}, false
		}
		if i == ks && n == ke {
			place = names
		}
		names++
		i = skipSpaces(v, n, false)
		if i >= len(v) || v[i] != ',' || names == 16 {
			break
		}
		i = skipSpaces(v, i+1, false)
	}
	if place < 0 || names < 2 {
		return ctxSpan{}, false
	}
	// Go's type after the names, then the operator (not a comparison).
	if n := i; n < len(v) && identifierByte(v[n]) {
		for n < len(v) && identifierByte(v[n]) {
			n++
		}
		i = skipSpaces(v, n, false)
	}
	switch {
	case strings.HasPrefix(v[i:], ":="):
		i += 2
	case strings.HasPrefix(v[i:], "=") && !strings.HasPrefix(v[i:], "=="):
		i++
	default:
		return ctxSpan{}, false
	}
	// The values, one per name; the key's is judged as valueAfter judges
	// a value, the others passed.
	for n := 0; n <= place; n++ {
		i = skipSpaces(v, i, false)
		if n == place {
			sp, _ := valueAt(v, ks, ke, i, strong, false, nil)
			return sp, true
		}
		s, e, quoted := readValue(v, i)
		if e <= s || !quoted {
			return ctxSpan{}, true // a call or a variable: no list of values
		}
		if i = skipSpaces(v, e+1, false); i >= len(v) || v[i] != ',' {
			// Fewer values than names: no multiple assignment, but a
			// call's arguments on a line of their own (`user,
			// password="VALUE")`), which valueAfter reads.
			return ctxSpan{}, false
		}
		i++
	}
	return ctxSpan{}, true
}

// maxListItems bounds the items listValues reads of one list: a list
// longer than any of passwords is read no further.
const maxListItems = 32

// listValues appends to out the items of the list a key naming passwords
// (its end at v[ke]) holds, each a password, where its reading ended, and
// whether the value is a list: a JSON (or Python, TOML, YAML flow) array,
// ["a", "b"], a JSON object's members' values, or YAML's block sequence on
// the lines below, "- a" then "- b". An item that is a placeholder, or a
// plain word unquoted, is none.
func listValues(v string, ks, ke int, out []ctxSpan) ([]ctxSpan, int, bool) {
	i := ke
	if i < len(v) && (v[i] == '"' || v[i] == '\'') {
		i++ // "passwords": [...]: the key's closing quote
	}
	i = skipSpaces(v, i, false)
	if i >= len(v) || v[i] != ':' && v[i] != '=' {
		return out, 0, false
	}
	i = skipSpaces(v, i+1, false)
	if strings.HasPrefix(v[i:], RedactedToken) {
		return out, 0, true // redacted before: nothing left to read
	}
	if i < len(v) && v[i] == '[' {
		i++
		for n := 0; n < maxListItems; n++ {
			i = skipSpaces(v, i, true)
			if i >= len(v) || v[i] == ']' {
				break
			}
			s, e, quoted := readValue(v, i)
			if e <= s {
				break
			}
			e2 := e
			for e2 > s && (v[e2-1] == ',' || v[e2-1] == ']') {
				e2-- // an unquoted item's run takes the comma or bracket after it
			}
			if e2 > s && !placeholder(v[s:e2]) && (quoted || !commonWord(v[s:e2])) {
				out = append(out, ctxSpan{s, e2})
			}
			if i = skipSpaces(v, e, true); i < len(v) && (v[i] == '"' || v[i] == '\'') {
				i++ // a quoted item's closing quote
			}
			if i = skipSpaces(v, i, true); i >= len(v) || v[i] != ',' {
				break
			}
			i++
		}
		return out, i, true
	}
	if i < len(v) && v[i] == '{' {
		// A mapping of whose to which ({"admin": "…", "ci": "…"}): each
		// member's string value is one.
		i++
		for n := 0; n < maxListItems; n++ {
			ms, me, quoted := readValue(v, skipSpaces(v, i, true)) // the member's name
			if !quoted || me <= ms {
				break
			}
			if i = skipSpaces(v, me+1, true); i >= len(v) || v[i] != ':' {
				break
			}
			s, e, quoted := readValue(v, skipSpaces(v, i+1, true))
			if !quoted {
				break
			}
			if e > s && !placeholder(v[s:e]) {
				out = append(out, ctxSpan{s, e})
			}
			if i = skipSpaces(v, e+1, true); i >= len(v) || v[i] != ',' {
				break
			}
			i++
		}
		return out, i, true
	}
	if strings.HasPrefix(v[i:], `\n`) {
		// The lines below as a JSON string escapes them: the decoded
		// reading reads the items (the escape is no value).
		return out, 0, true
	}
	if i >= len(v) || v[i] != '\n' && v[i] != '\r' {
		return out, 0, false
	}
	end := 0
	for n := 0; n < maxListItems; n++ {
		j := skipSpaces(v, i, true)
		if !strings.HasPrefix(v[j:], "- ") {
			break
		}
		// Each item judged as the value after the key is ("- must
		// contain a digit", a list of rules, is none).
		if sp, ok := valueAt(v, ks, ke, skipSpaces(v, j+2, false), true, false, nil); ok {
			out = append(out, sp)
		}
		le := strings.IndexByte(v[j:], '\n')
		if le < 0 {
			end = len(v)
			break
		}
		end, i = j+le, j+le
	}
	return out, end, end > 0
}

// valueBelow is the value a line that names a password and ends with a
// colon shows on the next line that is not empty, alone on it: Jenkins'
// first start ("Please use the following password to proceed to
// installation:", a blank line, then the password; Nosey Parker's
// examples), not a config key alone on its line ("password:", .pypirc's
// empty one). The line is read from the key's end (ke) within lineReach;
// the value is one word of 8 bytes or more that no key, path or sentence
// is, nor a plain lower-case word ("must contain:" then "uppercase") or a
// section's header ("[noncompliant]").
func valueBelow(v string, ks, ke int) (ctxSpan, bool) {
	le := strings.IndexByte(v[ke:min(len(v), ke+lineReach)], '\n')
	if le < 0 {
		return ctxSpan{}, false
	}
	le += ke
	if !strings.HasSuffix(strings.TrimRight(v[ke:le], " \t\r"), ":") {
		return ctxSpan{}, false
	}
	ls := strings.LastIndexByte(v[:ks], '\n') + 1
	alone := strings.TrimSpace(v[ls:ks]) == "" && strings.TrimRight(v[ke:le], " \t\r") == ":"
	i := le + 1
	for n := 0; n < 2 && i < len(v); n++ { // one empty line at most
		j := skipSpaces(v, i, false)
		if j < len(v) && v[j] != '\n' && v[j] != '\r' {
			i = j
			break
		}
		if j < len(v) && v[j] == '\r' {
			j++
		}
		i = j + 1
	}
	if i >= len(v) {
		return ctxSpan{}, false // the text ends in blanks: no value below
	}
	if alone && i-(strings.LastIndexByte(v[:i], '\n')+1) <= ks-ls {
		// "password:" alone on its line is a config key: only a line
		// indented past it goes on its value (YAML's plain scalar); at its
		// indent, the next line is the next entry (.pypirc's
		// "[noncompliant]").
		return ctxSpan{}, false
	}
	e := i
	for e < len(v) && v[e] > ' ' {
		e++
	}
	if e-i < 8 || e-i > maxValueLen || skipSpaces(v, e, false) < len(v) && v[skipSpaces(v, e, false)] != '\n' && v[skipSpaces(v, e, false)] != '\r' {
		return ctxSpan{}, false // not a word alone on its line
	}
	val := v[i:e]
	if placeholder(val) || pathValue(val) || strings.ContainsAny(val, ":=") || sentenceWord(val) || commonWord(val) || val[0] == '[' && val[len(val)-1] == ']' {
		return ctxSpan{}, false
	}
	return ctxSpan{i, e}, true
}

// after yields the index just past each occurrence of marker in v.
func after(v, marker string) iter.Seq[int] {
	return func(yield func(int) bool) {
		k := 0
		if byteRank[marker[0]] <= byteRank['z'] {
			k = anchorByte(marker, false) // a space or a letter: look for a rarer byte
		}
		for off := 0; off < len(v); {
			i := indexAt(v[off:], marker, k)
			if i < 0 {
				return
			}
			off += i + len(marker)
			if !yield(off) {
				return
			}
		}
	}
}

// indexAt is strings.Index(s, marker), searching for marker[k] first: a
// marker that starts with a space or a common letter ("echo ", " LOGIN ")
// would stop strings.Index's first-byte search at every word.
func indexAt(s, marker string, k int) int {
	if k == 0 {
		return strings.Index(s, marker)
	}
	c := marker[k]
	for i := k; i < len(s); {
		j := strings.IndexByte(s[i:], c)
		if j < 0 {
			return -1
		}
		at := i + j - k
		if at+len(marker) > len(s) {
			return -1
		}
		if s[at:at+len(marker)] == marker {
			return at
		}
		i += j + 1
	}
	return -1
}

// byteRank orders bytes from the most common in error text (0) to the
// rarest: space, lower-case letters by English frequency, common
// punctuation, digits, capitals, then the rest.
var byteRank = func() (t [256]int) {
	for c := range t {
		t[c] = 256
	}
	for r, c := range []byte(" etaoinshrdlcumwfgypbvkjxqz.,:/\"-_0123456789ETAOINSHRDLCUMWFGYPBVKJXQZ") {
		t[c] = r
	}
	return t
}()

// anchorByte is the index of marker's rarest byte (byteRank), read in
// lower case when fold is set (a search in any case).
func anchorByte(marker string, fold bool) int {
	rank := func(c byte) int {
		if fold {
			c = lower(c)
		}
		return byteRank[c]
	}
	best := 0
	for i := 1; i < len(marker); i++ {
		if rank(marker[i]) > rank(marker[best]) {
			best = i
		}
	}
	return best
}

// runsOf yields the start and end of every maximal run of bytes of v that
// in accepts.
func runsOf(v string, in func(byte) bool) iter.Seq2[int, int] {
	return func(yield func(int, int) bool) {
		for i := 0; i < len(v); {
			if !in(v[i]) {
				i++
				continue
			}
			j := i
			for j < len(v) && in(v[j]) {
				j++
			}
			if !yield(i, j) {
				return
			}
			i = j
		}
	}
}

// credentialKey reports whether key ends with a credential word (ASCII
// case and the separators '-', '_' and '.' aside; no allocation: it runs
// on every key of every text).
func credentialKey(key string) (credentialWord, bool) {
	if !mayEndInCredentialWord(key) {
		return credentialWord{}, false
	}
	return readCredentialKey(key)
}

// readCredentialKey is credentialKey past its first reject.
func readCredentialKey(key string) (credentialWord, bool) {
	e := len(key)
	for e > 0 && (key[e-1] == '-' || key[e-1] == '_' || key[e-1] == '.') {
		e--
	}
	k := key[:e]
	if n := len(k); n >= 4 && k[n-1] == '2' && (hasFoldSuffix(k[:n-1], "cvv") || hasFoldSuffix(k[:n-1], "cvc")) {
		k = k[:n-1] // Visa's CVV2, Mastercard's CVC2 (PayPal's cvv2 field): a card code
	} else if d := trailingDigits(k); d > 0 && d <= 3 && len(k)-d >= 2 {
		// A numbered password (static_password02, db_pass_2, pwd1): the
		// number counts passwords; a weaker word numbered (key1, token2)
		// is a name as often as not, and a code's (cvv22, pin2) stays
		// none too.
		if w, ok := credentialKey(k[:len(k)-d]); ok && (strings.Contains(w.word, "pass") || w.word == "pwd" || w.word == "pw") {
			return w, true
		}
		return credentialWord{}, false
	}
	if len(k) < 2 {
		return credentialWord{}, false
	}
	for _, sp := range credentialSpellings {
		if _, ok := matchTail(k, sp.tail); ok {
			return sp.as, true
		}
	}
	// The last two letters, separators between them aside (matchTail's
	// reading).
	b := lower(k[len(k)-1])
	p := len(k) - 2
	for p >= 0 && keySeparator(k[p]) {
		p--
	}
	if p < 0 || b < 'a' || b > 'z' {
		return credentialWord{}, false
	}
	a := lower(k[p])
	if a < 'a' || a > 'z' {
		return credentialWord{}, false
	}
	// And the letter before them.
	for p--; p >= 0 && keySeparator(k[p]); p-- {
	}
	if p < 0 {
		if !twoLetterWords[a-'a'][b-'a'] {
			return credentialWord{}, false
		}
	} else if z := lower(k[p]); z < 'a' || z > 'z' || !credentialTails3[z-'a'][a-'a'][b-'a'] {
		return credentialWord{}, false
	} else if a == 'd' && b == 'e' && z == 'o' && codeKey(k) {
		// A code's key: no word of notCredentialKeys ends in a code
		// qualifier and "code".
		return credentialWord{"code", true}, true
	}
	found := false
	for _, n := range credentialTails[a-'a'][b-'a'] {
		if _, ok := matchTail(k, credentialWords[n].word); ok {
			found = true
			break
		}
	}
	if !found {
		return credentialWord{}, false
	}
	for _, n := range notCredentialTails[a-'a'][b-'a'] {
		if rest, ok := matchTail(k, n); ok && (n != "team" || onlySeparators(k[:rest])) {
			return credentialWord{}, false
		}
	}
	if g, ok := gluedCredentialKey(k); ok {
		return credentialWord{g, true}, true
	}
	for _, n := range credentialTails[a-'a'][b-'a'] { // in credentialWords' order
		w := credentialWords[n]
		rest, ok := matchTail(k, w.word)
		if !ok {
			continue
		}
		// A short word must be the whole key or end a compound one
		// (X-Insert-Key, db_pass, connect.sid, dbPass), not the tail of a
		// word (monkey, compass): before it, a separator or a case change.
		if len(w.word) <= 4 && rest > 0 {
			before := k[rest-1]
			if !(before == '-' || before == '_' || before == '.' || isUpper(k[rest]) && !isUpper(before)) {
				continue
			}
		}
		if w.word == "team" && !matchesFold(k, "x-honeycomb-team") && !matchesFold(k, "honeycomb-team") {
			continue
		}
		return w, true
	}
	return credentialWord{}, false
}

// mayEndInCredentialWord is credentialKey's first reject, which runs on
// every key run of every text: the last three letters of key (separators,
// and a number's digits at its end, aside; two when a key has only two)
// end no credential word and no credentialSpellings entry. credentialKey
// reads the same letters after its loops (the numbered key, the
// spellings); asked first, they spare most keys those loops (of the 64 KiB
// mix's 7,819 key runs, 643 pass). It stays on the sanitiser's goal, not
// on a caller's: Text 1 MiB 7.8% faster, the secret-free prose 13.3%, the
// mcp and provider translations 4.0% and 2.1% (medians of 6 interleaved
// runs, 2026-12-07); a service-level figure cannot show 2% of a 3 µs core.
func mayEndInCredentialWord(key string) bool {
	if n := len(key); n >= 3 {
		// Most keys end in three letters: one table read each.
		a, b, c := letterCode[key[n-3]], letterCode[key[n-2]], letterCode[key[n-1]]
		if a < 26 && b < 26 && c < 26 {
			return keyTails3[a][b][c]
		}
	}
	e := len(key)
	for e > 0 && (keySeparator(key[e-1]) || '0' <= key[e-1] && key[e-1] <= '9') {
		e--
	}
	var l [3]byte // the letters, last first
	n := 0
	for p := e - 1; p >= 0 && n < 3; p-- {
		if keySeparator(key[p]) {
			continue
		}
		c := lower(key[p])
		if c < 'a' || c > 'z' {
			break
		}
		l[n] = c - 'a'
		n++
	}
	switch n {
	case 0, 1:
		return false
	case 2:
		return twoLetterWords[l[1]][l[0]]
	}
	return keyTails3[l[2]][l[1]][l[0]]
}

// keyTails3 is credentialTails3 with credentialSpellings' tails.
var keyTails3 = func() (t [26][26][26]bool) {
	t = credentialTails3
	for _, sp := range credentialSpellings {
		w := sp.tail
		t[w[len(w)-3]-'a'][w[len(w)-2]-'a'][w[len(w)-1]-'a'] = true
	}
	return t
}()

// credentialSpellings are keys read as a credential word they are not
// spelt as: a list of passwords (whispers' 02_hardcoded_passwords: then
// "- …" items, a JSON array, XML children so named; listValues reads each
// item) and "secrete", the misspelling detect-secrets' keyword detector
// looks for (secrete = "…"). The quick reject finds them by the word they
// begin with; as words of their own, their tails ("rds", "ete") in
// credentialTails3 would send every "records" and "delete" on to the
// tails' loops.
var credentialSpellings = [...]struct {
	tail string
	as   credentialWord
}{
	{"passwords", credentialWord{"password", true}},
	{"secrete", credentialWord{"secret", false}},
}

// gluedCredentialKeys end in a short credential word glued to the word
// before it (which credentialKey does not read as one) and name a
// password, a password word's key: Redis' directives for its
// password and its primary's (requirepass VALUE, masterauth VALUE), and
// the LDAP bind password of nslcd.conf, sssd and OpenLDAP's tools' configs
// (bindpw VALUE). As
// credential words of their own they would make the quick reject stop at
// every "request" and "master" (BenchmarkContextPass 1712 against 1937 ns);
// the reject finds their "pass" and "auth" already.
var gluedCredentialKeys = []string{"requirepass", "masterauth", "bindpw",
	// A password's short word glued to whose it is (userpass=, dbpass:,
	// whispers' fixtures; Apache's ProxyPass is a directive, not one).
	"userpass", "dbpass", "rootpass", "adminpass", "userpwd", "dbpwd", "rootpwd", "adminpwd"}

// gluedCredentialKey is the one of gluedCredentialKeys k ends in.
func gluedCredentialKey(k string) (string, bool) {
	for _, g := range gluedCredentialKeys {
		if _, ok := matchTail(k, g); ok {
			return g, true
		}
	}
	return "", false
}

func matchesFold(s, t string) bool { return strings.EqualFold(s, t) }

func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }

// valueAfter reads the value a key at v[ks:ke] is given, in any of the
// syntaxes the layer knows, and whether it is one to redact. stops, when
// not nil, is the text's stopMemo, kept from one key to the next.
func valueAfter(v string, ks, ke int, strong bool, stops *stopMemo) (ctxSpan, bool) {
	i := ke
	// user[password]=v, card[cvc]=v, "user[password]": v: the last
	// member of a bracketed key (Rails' and PHP's forms, Stripe's API).
	if i < len(v) && v[i] == ']' && ks > 0 && v[ks-1] == '[' {
		i++
	}
	// "k": "v" and 'k': 'v': the key's closing quote.
	if i < len(v) && (v[i] == '"' || v[i] == '\'') {
		i++
		// params["password"] = v, $_POST['password']: a quoted member.
		if i < len(v) && v[i] == ']' && ks > 1 && v[ks-1] == v[i-1] && v[ks-2] == '[' {
			i++
		} else if ks > 1 && v[ks-2] == '[' && v[ks-1] == '"' {
			i = phpVisibility(v, i) // var_dump's ["password":"Config":private]=>
		}
	}
	sp := i
	for i < len(v) && (v[i] == ' ' || v[i] == '\t') {
		i++
	}
	// <add key="SmtpPassword" value="..."/>: the key names the value
	// attribute after it.
	if i > sp && ks > 0 && (v[ks-1] == '"' || v[ks-1] == '\'') && hasFoldPrefix(v[i:], "value=") {
		i += len("value")
	}
	prose := false
	if i > sp && strings.HasPrefix(v[i:], "string ") {
		i = skipSpaces(v, i+len("string "), false) // Go's var token string = "v"
	}
	switch {
	case i+1 < len(v) && (v[i] == '.' || v[i] == '?' || v[i] == '+') && v[i+1] == '=':
		i += 2 // PHP's .=, Make's ?=, +=
	case i < len(v) && (v[i] == '=' || v[i] == ':'):
		i++
		for n := 0; n < 2 && i+1 < len(v) && v[i-1] == ':' && v[i] == ':'; n++ {
			i++ // Make's ::= and :::=
		}
		if i < len(v) && (v[i] == '=' || v[i] == '>') { // ==, Ruby's =>
			i++
			if i < len(v) && v[i] == '=' && v[i-1] == '=' { // JavaScript's ===
				i++
			}
		}
	case i+1 < len(v) && v[i] == '!' && v[i+1] == '=': // password != "VALUE", !==
		i += 2
		if i < len(v) && v[i] == '=' {
			i++
		}
	case i < len(v) && v[i] == '>' && ks > 0 && (v[ks-1] == '<' || v[ks-1] == ':'): // <k>v</k>, <wsse:Password>
		i++
		// The element's text may start on the next line, indented
		// (<krakenToken>\n    VALUE\n</krakenToken>, gitleaks' own case).
		if j := skipSpaces(v, i, true); j > i && j < len(v) && v[j] != '<' {
			i = j
		}
	case ks > 0 && (v[ks-1] == '<' || v[ks-1] == ':') && xmlOpenTagEnd(v, sp) > 0: // <wsse:Password Type="...">v
		i = xmlOpenTagEnd(v, sp)
	case ks > 1 && (v[ks-1] == '"' || v[ks-1] == '\'') && sp > ke && v[sp-1] == v[ks-1] && namingAttribute(v[:ks-1]) && elementText(v, sp) > 0:
		// <entry key="password">v</entry> (Java's properties as XML),
		// <param name="password">v</param>, .NET's settings file's
		// <setting name="DbPassword" serializeAs="String"><value>v</value>:
		// the attribute names the element's text.
		i = elementText(v, sp)
	case i+1 < len(v) && v[i] == '-' && v[i+1] == '>': // k -> v
		i += 2
	case i > sp && i+1 < len(v) && v[i] == '.' && v[i+1] == ' ' && (ks > 0 && v[ks-1] == '(' || ks > 1 && sp > ke && v[ks-2] == '('):
		// A Lisp dotted pair, (password . "VALUE"), ("password" . "VALUE"):
		// Emacs' alists (auth-source, url-http's).
		i++
	case i > sp && labelNote(v, i) > 0:
		// A form's label with a note, "Password (again): VALUE" (Django's
		// forms), "password (optional): …": the note is no value.
		i = labelNote(v, i)
	case i > sp && i+1 < len(v) && v[i] == '|' && v[i+1] == ' ':
		// A table's row, "| password | VALUE |": a shell's pipe reads the
		// same ("echo $password | sudo -S"), so only a value no sentence
		// or command holds counts.
		i++
		prose = true
	case i < len(v) && v[i] == ',' && ks >= 2 && (v[ks-1] == '\'' || v[ks-1] == '"') && v[ks-2] == '(': // define('KEY', 'v')
		i++
	case i > sp && ks >= 2 && v[ks-1] == '-' && v[ks-2] == '-': // --password VALUE
	case i > sp && ks >= 1 && v[ks-1] == '-': // -password VALUE
	case i > sp && ks > 0 && v[ks-1] == '=':
		// "-method=userpass username=bob": the word is an option's value,
		// not a key, and the next word none of its.
		return ctxSpan{}, false
	case i > sp: // k v, in prose, unless a command sets a weaker word's key
		// (a password word's value is read in prose as well)
		prose = strong || !setKey(v, ks, ke)
	default:
		return ctxSpan{}, false
	}
	span, ok := valueAt(v, ks, ke, i, strong, prose, stops)
	if ok {
		_, span.end = joinedStrings(v, span.end)
		return span, true
	}
	// A value the first layer redacted: the strings joined to it are the
	// rest of it.
	j := skipSpaces(v, i, false)
	if e := j + 1 + len(RedactedToken); e < len(v) && (v[j] == '"' || v[j] == '\'') && v[e] == v[j] && v[j+1:e] == RedactedToken {
		if first, end := joinedStrings(v, e); end > e {
			return ctxSpan{first, end}, true
		}
	}
	return span, false
}

// joinedStrings reads the strings joined to a quoted value that ends at
// v[e] (password = "Zx9v" + "Q2mL", PHP's 'a' . 'b'): code that splits a
// secret keeps every piece of it. It returns where the first joined
// string's text starts and where the last one's ends (e and e when none
// is joined); at most eight pieces, each within maxValueLen.
func joinedStrings(v string, e int) (first, end int) {
	first = e
	if e >= len(v) || v[e] != '"' && v[e] != '\'' {
		return first, e
	}
	q := v[e]
	for n := 0; n < 8; n++ {
		j := skipSpaces(v, e+1, false)
		if j >= len(v) || v[j] != '+' && v[j] != '.' {
			break
		}
		k := skipSpaces(v, j+1, false)
		if k >= len(v) || v[k] != q {
			break
		}
		c := strings.IndexByte(v[k+1:min(len(v), k+1+maxValueLen)], q)
		if c < 0 {
			break
		}
		if n == 0 {
			first = k + 1
		}
		e = k + 1 + c
	}
	return first, e
}

// setKey: the key at v[ks:ke] is an identifier (a '_', '.' or '-' in it,
// or camelCase) that a command sets to the word after it: its word (as
// npm's "//registry.npmjs.org/:_authToken") follows "set" or "config",
// options between aside ("aws configure set aws_secret_access_key VALUE",
// "yarn config set npmAuthToken VALUE", "git config --global
// user.password VALUE"). A sentence's "set password" names no
// identifier.
func setKey(v string, ks, ke int) bool {
	key := v[ks:ke]
	if strings.IndexAny(key, "_.-") < 0 && casedAsWords(key) && !hasInnerUpper(key) {
		return false
	}
	ws := strings.LastIndexByte(v[:ks], ' ') + 1
	if strings.IndexByte(v[ws:ks], '\n') >= 0 {
		return false // the key starts a line: no command before it
	}
	for words := 0; words < 3 && ws > 0; words++ {
		prev := v[:ws-1]
		w := prev[strings.LastIndexByte(prev, ' ')+1:]
		switch {
		case strings.EqualFold(w, "set") || strings.EqualFold(w, "config"):
			return true
		case strings.HasPrefix(w, "--") && len(w) > 2:
			ws -= len(w) + 1 // git config --global user.password
		default:
			return false
		}
	}
	return false
}

// hasInnerUpper: an upper-case letter after the first byte (camelCase).
func hasInnerUpper(s string) bool {
	for i := 1; i < len(s); i++ {
		if isUpper(s[i]) && !isUpper(s[i-1]) {
			return true
		}
	}
	return false
}

// labelNote is where a label's note at v[i] ends, after its colon: a
// word or two of letters in brackets, then ':' ("(again):", "(optional):");
// 0 when v[i] starts none.
func labelNote(v string, i int) int {
	if i >= len(v) || v[i] != '(' {
		return 0
	}
	for j := i + 1; j < len(v) && j <= i+24; j++ {
		switch c := v[j] | 0x20; {
		case 'a' <= c && c <= 'z', v[j] == ' ', v[j] == '-':
		case v[j] == ')' && j > i+1 && j+1 < len(v) && v[j+1] == ':':
			return j + 2
		default:
			return 0
		}
	}
	return 0
}

// valueAt is valueAfter's reading of the value at v[i] (blanks before it
// aside), once the syntax after the key at v[ks:ke] has led there; prose
// says that syntax was a sentence's.
func valueAt(v string, ks, ke, i int, strong, prose bool, stops *stopMemo) (ctxSpan, bool) {
	for i < len(v) && (v[i] == ' ' || v[i] == '\t') {
		i++
	}
	if i < len(v) && v[i-1] == ' ' && strings.HasSuffix(strings.TrimRight(v[ke:i], " \t"), ":") {
		i = yamlValueStart(v, i, ks) // password: !!str VALUE, password: |
	} else if i < len(v) && (v[i] == '\n' || v[i] == '\r') && strings.HasSuffix(v[ke:i], ":") {
		if c := yamlChildValue(v, i, ks); c > 0 {
			i = c // password:\n  secure: VALUE
		}
	} else if i < len(v) && v[i] == '\n' && strings.HasSuffix(v[ke:i], "=>") {
		i = varDumpString(v, i) // PHP's var_dump: ["password"]=>\n  string(12) "VALUE"
	}
	if strings.HasPrefix(v[i:], "{{") || strings.HasPrefix(v[i:], "${") || strings.HasPrefix(v[i:], "%(") {
		return ctxSpan{}, false // a template's placeholder
	}
	if !strong && strings.HasSuffix(strings.TrimRight(v[ke:i], " \t"), ":") && (matchesFold(v[ks:ke], "cookie") || matchesFold(v[ks:ke], "set-cookie")) {
		// A cookie header: its list, whole, unless every cookie is a plain
		// preference (theme=dark; Path=/).
		le := strings.IndexByte(v[i:], '\n')
		if le < 0 {
			le = len(v) - i
		}
		// A list longer than maxValueLen is redacted unread: read, each
		// key inside it read the rest of its line again (32 KiB of
		// "Cookie:" took 400 ms), and no browser sends such a header.
		if le == 0 || le < maxValueLen && plainCookies(v[i:i+le]) {
			return ctxSpan{}, false
		}
		return ctxSpan{i, i + le}, true
	}
	if !prose && hasFoldSuffix(v[ks:ke], "authorization") && strings.HasSuffix(strings.TrimRight(v[ke:i], " \t\"'"), ":") {
		// An Authorization header (the first layer's headerSecret, read
		// here on every decoding): the rest of its line, scheme and
		// credential, unless it is a sentence.
		from, to := i, i
		if qs, qe, quoted := readValue(v, i); quoted {
			from, to = qs, qe // "authorization": "Basic …": the string
		} else {
			le := strings.IndexByte(v[i:], '\n')
			if le < 0 {
				le = len(v) - i
			}
			to = quotedHeaderEnd(v, ks, i, i+len(strings.TrimRight(v[i:i+le], " \t\r")))
		}
		// A line's first maxValueLen bytes say whether it is a sentence:
		// read whole, a line of many such headers was read once for each.
		if val := v[from:min(to, from+maxValueLen)]; val == "" || placeholder(val) || headerProse(val) {
			return ctxSpan{}, false
		}
		return ctxSpan{from, to}, true
	}
	if closesKeyString(v, ks, i) {
		// `"Enter password: " + "VALUE"` in code: the quote closes the
		// prompt's string; the value is the string it is joined to, if
		// any (not a variable: "password: " + pw; expect "Password: "
		// { send …} and getpass("Password: ") give none).
		j := skipSpaces(v, i+1, false)
		if j >= len(v) || v[j] != '+' && v[j] != '.' {
			return ctxSpan{}, false
		}
		if i = skipSpaces(v, j+1, false); !opensQuote(v, i) {
			return ctxSpan{}, false
		}
	}
	start, end, quoted := readValueMemo(v, i, stops)
	if q := escapedQuote(v, i); q > i {
		// \"VALUE\": a value quoted inside a JSON string, as the text
		// reads before it is decoded, which readValue stops in: read to
		// the same escaped quote (a decoded reading may not read it:
		// `"psk := "}VALUE"` reads as a prompt's string), when no blank
		// comes first (a word, not what follows up to the next key's
		// quote: 32 KiB of `secret = \"A;a(` cost 40 ms so, 6 without).
		if e := strings.Index(v[q:min(len(v), q+maxValueLen)], v[i:q]); e > 0 && !strings.ContainsAny(v[q:q+e], " \t\n") {
			start, end, quoted = q, q+e, true
		}
	}
	if end <= start {
		return ctxSpan{}, false
	}
	val := v[start:end]
	if prose && strings.EqualFold(val, "with") {
		// "Property 'password' with value 'VALUE' is invalid": a
		// validator's sentence names the key, then gives its value.
		if j := skipSpaces(v, end, false); hasFoldPrefix(v[j:], "value ") {
			if start, end, quoted = readValue(v, skipSpaces(v, j+len("value "), false)); end <= start {
				return ctxSpan{}, false
			}
			val = v[start:end]
		}
	}
	if prose && hasFoldPrefix(val, "(value") {
		return ctxSpan{}, false // "password (value 'V')": valueNoted's
	}
	if prose && strong {
		if j, ok := enteredValue(v, start); ok {
			// "The password you entered (VALUE) is incorrect": a login
			// form's sentence, then the value.
			if start, end, quoted = readValue(v, j); end <= start {
				return ctxSpan{}, false
			}
			if v[j] == '(' {
				// In parentheses: judged as a bare word, so "(empty)"
				// stays.
				if e := strings.IndexByte(v[j:min(len(v), j+maxValueLen)], ')'); e > 1 {
					start, end, quoted = j+1, j+e, false
				}
			}
			val = v[start:end]
		}
	}
	var copula string // the copula the value follows in prose, if any
	forWhom := false  // the word read after the copula says whose password it is
	became := false   // the value follows changedTo's words
	if j, ok := changedTo(v, start, prose && strong); ok {
		became = true
		// "Password set to VALUE", "your password has been changed to
		// VALUE", "the admin password is now VALUE": judged as prose.
		if start, end, quoted = readValue(v, j); end <= start {
			return ctxSpan{}, false
		}
		val = v[start:end]
	} else if prose && isCopula(val) {
		// "the password is hunter2x": the value is the word after "is".
		copula = val
		j := end
		for j < len(v) && v[j] == ' ' {
			j++
		}
		if start, end, quoted = readValue(v, j); end <= start {
			return ctxSpan{}, false
		}
		val = v[start:end]
		if strong && (copula == "for" || copula == "of") {
			if k := laterCopula(v, start); k > 0 {
				// "The password for the admin account is VALUE": the
				// sentence names whose password it is first. The value
				// stays prose's: a word no sentence holds.
				if start, end, quoted = readValue(v, k); end <= start {
					return ctxSpan{}, false
				}
				val = v[start:end]
			}
		}
		if strong && (copula == "is" || copula == "was") && (val == "generated" || val == "set" || val == "changed" || val == "reset") {
			// "A temporary password is generated for root@localhost:
			// VALUE" (MySQL's first start: for whom, then a prompt's
			// colon), "the password is set to VALUE" (judged as prose).
			ps, pe, _ := readValue(v, skipSpaces(v, end, false))
			switch v[ps:pe] {
			case "to":
				if start, end, quoted = readValue(v, skipSpaces(v, pe, false)); end <= start {
					return ctxSpan{}, false
				}
				val = v[start:end]
			case "for":
				if ss, se, sq := readValue(v, skipSpaces(v, pe, false)); se > ss && promptAnswer(v, se, v[ss:se], sq) > 0 {
					start, end, quoted, val = ss, se, sq, v[ss:se]
					forWhom = true
				}
			}
		}
		if strong && !quoted && val == "key" {
			// ssh-keygen's and ssh-add's prompt names its key file:
			// "Enter passphrase for key '/root/.ssh/id_rsa': VALUE".
			if ks, ke, kq := readValue(v, skipSpaces(v, end, false)); kq {
				start, end, quoted, val = ks, ke, kq, v[ks:ke]
			}
		}
		if j := promptAnswer(v, end, val, quoted); strong && j > 0 && (forWhom || copula != "is" && copula != "was") {
			// A prompt, "[sudo] password for ops: VALUE", git's
			// "Password for 'https://ana@github.com': VALUE"; after "is"
			// the word is the value, its colon the sentence's ("the
			// password is VALUE: use it once" kept it).
			if start, end, quoted = readValue(v, skipSpaces(v, j, false)); end <= start {
				return ctxSpan{}, false
			}
			val, prose = v[start:end], false
		}
	}
	if w := strings.TrimSuffix(val, ":"); prose && strong && !quoted && (strings.EqualFold(w, "phrase") || strings.EqualFold(w, "word")) {
		// OpenSSL's prompt, "Enter PEM pass phrase: VALUE", a form's
		// "Pass Word: VALUE": the key is two words.
		if j := promptAnswer(v, end, val, false); j > 0 {
			if start, end, quoted = readValue(v, skipSpaces(v, j, false)); end <= start {
				return ctxSpan{}, false
			}
			val, prose = v[start:end], false
		}
	}
	if w := strings.TrimRight(val, ":,"); prose && !quoted && w != "" && len(w) < len(val) {
		// A sentence's colon or comma after the word, not the value's
		// ("Password changed: 3" kept "changed:" for a password, its
		// colon a symbol).
		end -= len(val) - len(w)
		val = w
	}
	switch {
	case hiddenTail(v, start, end) > 0:
		// The first layer began inside the value ("0nKSg2FtJwYk*[REDACTED]":
		// a JWT's eyJ inside a psk): what it left before is the secret's head.
		return ctxSpan{start, end}, true
	case placeholder(val) || pathValue(val) || yamlIndicator(val) || !quoted && codeReference(v, start):
		return ctxSpan{}, false
	case strings.EqualFold(val, secureStringCmdlet):
		// $pw = ConvertTo-SecureString 'VALUE' -AsPlainText: the
		// cmdlet's argument is the secret (secureStrings), not its name.
		return ctxSpan{}, false
	case !quoted && commonWord(val) && end+1 < len(v) && v[end] == ' ' && 'a' <= v[end+1] && v[end+1] <= 'z':
		// "password: must contain a digit": a sentence about the value.
		return ctxSpan{}, false
	case prose && !quoted && optionWord(val):
		// A command's option after a password word, "openssl passwd
		// -stdin", "passwd --expire": no value.
		return ctxSpan{}, false
	case prose && strong && len(val) >= 6 && classesOf(val).count() >= 2 && (classesOf(val).sym || !casedAsWords(val) || camelNoise(val) || mixedCaseWord(val)):
		return ctxSpan{start, end}, true // "with PASSWORD eJNMTIO_bS": no word is cased so
	case prose && strong && oneTimeCode(val) && codeKey(v[ks:ke]):
		// "Your verification code is 492817", "Use code 492817": a code's
		// name in prose, then its digits.
		return ctxSpan{start, end}, true
	case strings.IndexByte(v[ks:ke], ' ') >= 0 && !codeValue(val):
		// A code's name of two words (spacedCodeKey) is prose's: after
		// it only what a code looks like is one ("SMS code: 6 digits").
		return ctxSpan{}, false
	case prose && quoted && strong && (copula == "" || copula == "is" || copula == "was") && !passwordStates[strings.ToLower(val)]:
		// A word a sentence quotes after a password word, which says no
		// state of one: its value ("The default Password is
		// 'blooberry'", Nosey Parker's examples; "password is
		// 'required'" is a state).
		return ctxSpan{start, end}, true
	case prose && strong && !quoted && oneTimeCode(val) && (became || copula == "is" || copula == "was") && !measured(v, end):
		// "Your PIN has been changed to 4821", "the password is 4821.":
		// what the sentence says it is or became, in digits; "is 1234
		// characters" is a measure.
		return ctxSpan{start, end}, true
	case prose && !secretLooking(val):
		// In prose a password word is followed by words ("the password
		// was rejected"): only a value no sentence holds is one.
		return ctxSpan{}, false
	case prose && commonWord(val):
		return ctxSpan{}, false
	case !strong && benignSpan(v, start, end):
		// A digest, an ARN, a payload, an id: see benignSpan.
		return ctxSpan{}, false
	case prose && !strong:
		// "using secret 9f3c…": after a weaker word in prose, only a value
		// no identifier has (a random token, or key material in hex).
		if len(val) >= 16 && (entropyTokenOf(val, weakWordBits(len(val))) || keyHex(val)) && !benignToken(v, start, val) {
			return ctxSpan{start, end}, true
		}
		return ctxSpan{}, false
	case strong:
		return ctxSpan{start, end}, true
	case quoted || !plainTerm(val):
		if secretLooking(val) || len(val) >= 8 && !plainTerm(val) {
			return ctxSpan{start, end}, true
		}
	}
	return ctxSpan{}, false
}

// measured: the number ending at v[end] is followed by a word of letters
// ("4821 characters", "1234 digits long"), so a sentence counts with it.
func measured(v string, end int) bool {
	i := skipSpaces(v, end, false)
	return i > end && i < len(v) && 'a' <= v[i]|0x20 && v[i]|0x20 <= 'z'
}

// laterCopula is where the word after "is" or "was" starts when one of
// the next few words of v[i:]'s clause is one ("the admin account is
// VALUE"); 0 when none is before a clause ends.
func laterCopula(v string, i int) int {
	for words := 0; words < 5 && i < len(v); words++ {
		e := i
		for e < len(v) && ctxKeyByte(v[e]) {
			e++
		}
		if e == i || e >= len(v) || v[e] != ' ' {
			return 0 // not a plain word, or the clause ends
		}
		if w := v[i:e]; w == "is" || w == "was" {
			return skipSpaces(v, e, false)
		}
		i = skipSpaces(v, e, false)
	}
	return 0
}

// promptAnswer is where a prompt's answer starts when the subject read at
// v[:end] ends one: an unquoted word with its colon ("for ops: "), or a
// quoted one with a colon after its closing quote ("for 'ana': "); 0 when
// it does not ("the password for 'ana' was rejected").
func promptAnswer(v string, end int, subject string, quoted bool) int {
	switch {
	case quoted && end+2 < len(v) && v[end+1] == ':' && v[end+2] == ' ':
		return end + 2
	case quoted:
		return 0
	case strings.HasSuffix(subject, ":"):
		return end
	case end+1 < len(v) && v[end] == ':' && v[end+1] == ' ':
		return end + 1
	}
	return 0
}

// closesKeyString reports whether the quote at v[i] closes a string the
// key at v[ks:] stands in (a prompt in code, "Enter password: "): the same
// quote opens it a few words before the key, and none is between.
func closesKeyString(v string, ks, i int) bool {
	if i >= len(v) || v[i] != '"' && v[i] != '\'' || strings.IndexByte(v[ks:i], v[i]) >= 0 {
		return false // "password": "VALUE": the key's own quote closed before
	}
	for j := ks - 1; j >= 0 && j >= ks-64; j-- {
		switch c := v[j]; {
		case c == v[i]:
			return j == 0 || !alnum(v[j-1]) // an opening quote, not an apostrophe
		case c != ' ' && (c|0x20 < 'a' || c|0x20 > 'z'):
			return false
		}
	}
	return false
}

// namingAttribute reports whether s ends in an attribute that names its
// element's value (key= or name=, as the quote after it opens it).
func namingAttribute(s string) bool {
	return hasFoldSuffix(s, " key=") || hasFoldSuffix(s, " name=")
}

// elementText is where the text of an element starts when its open tag
// goes on at v[i] (the rest of its attributes, or its '>'), and the text
// is the value's: inside a <value> element that comes first (.NET's
// settings); 0 when the tag closes itself or does not end on the line.
func elementText(v string, i int) int {
	j := 0
	if i < len(v) && v[i] == '>' {
		j = i + 1
	} else if j = xmlOpenTagEnd(v, i); j == 0 {
		return 0
	}
	if strings.HasPrefix(v[j:], "<value>") {
		j += len("<value>")
	}
	return j
}

// xmlOpenTagEnd is the index after the '>' that closes an element's open
// tag whose attributes start at v[i:] (0 when there is none on the line).
func xmlOpenTagEnd(v string, i int) int {
	if i >= len(v) || v[i] != ' ' {
		return 0
	}
	gt := strings.IndexByte(v[i:], '>')
	if gt <= 0 || gt > 200 || strings.ContainsAny(v[i:i+gt], "<\n") || v[i+gt-1] == '/' {
		return 0
	}
	return i + gt + 1
}

// pathValue is a file path (PWD=/home/runner/app is the shell's working
// directory, not a password): a root, home, working-directory or drive
// prefix, then pieces at least half of which are names. Base64 key
// material and passwords start with '/' now and then, and their pieces are
// noise ("/CpHDQgzBn8LV1t/bFoJYp9pN/diXIDAGO0ivOUXU4d7", seed 20850; a
// password "/Xy9Zq8Lm" in prose or after --password, which a length bound
// let through as a path), or nearly so: one piece of a single class among
// five of noise ("/FUQ/tWxp+OPQ/JS50qBY9ZUWLNvcCl/…", seed 3507).
func pathValue(s string) bool {
	if strings.HasSuffix(s, "=") {
		return false // base64's padding: "/hoAP…5w==" is no path
	}
	var rest string
	switch {
	case strings.HasPrefix(s, "/"):
		rest = s[1:]
	case strings.HasPrefix(s, "~/"), strings.HasPrefix(s, "./"):
		rest = s[2:]
	case len(s) > 2 && s[1] == ':' && (s[2] == '\\' || s[2] == '/'):
		rest = s[3:]
	default:
		return false
	}
	named, pieces := 0, 0
	for seg := range strings.FieldsFuncSeq(rest, func(r rune) bool { return r == '/' || r == '\\' }) {
		if len(seg) >= 20 && highEntropyToken(seg) {
			return false
		}
		pieces++
		if readableIdentifier(seg) || classesOf(seg).count() < 2 {
			named++
		}
	}
	return named > 0 && 2*named >= pieces
}

// changedTo is where the value starts when the words at v[i], after a
// password word in prose (when), say what it became: a verb of change and
// "to" ("set to", "has been changed to", "was reset to"), or "is now"; 0
// and false otherwise. It reads at most five short words of letters.
func changedTo(v string, i int, when bool) (int, bool) {
	if !when {
		return 0, false
	}
	word := func(i int) (int, int) {
		e := i
		for e < len(v) && e-i <= len("successfully") && ('a' <= v[e]|0x20 && v[e]|0x20 <= 'z') {
			e++
		}
		if e < len(v) && v[e] > ' ' || e-i > len("successfully") {
			return i, i // glued to more than letters, or longer: no such word
		}
		return i, e
	}
	copula, now := false, false
	for n := 0; n < 4; n++ {
		s, e := word(i)
		if e <= s {
			return i, copula && now // "is now VALUE": any value
		}
		switch w := strings.ToLower(v[s:e]); w {
		case "is", "was", "has", "have", "had", "been", "just", "successfully", "already", "now":
			copula = copula || w == "is" || w == "was"
			now = now || w == "now"
			i = skipSpaces(v, e, false)
			continue
		case "set", "reset", "changed", "updated", "rotated":
			ts, te := word(skipSpaces(v, e, false))
			if v[ts:te] != "to" {
				return 0, false
			}
			return skipSpaces(v, te, false), true
		}
		return s, copula && now
	}
	return 0, false
}

// isCopula: the words between a password word and its value in prose.
func isCopula(w string) bool {
	for _, c := range []string{"is", "was", "of", "for", "as", "to"} {
		if strings.EqualFold(w, c) {
			return true
		}
	}
	return false
}

// maxValueLen bounds what a reader takes for one value: a quoted value's
// closing quote is looked for this far, an unquoted value (with the runs
// glued to it, valueRunEnd) is read this far. A text of many keys and no
// stop ("login(=login(=…", a redaction's tail running into the next) was
// otherwise read to its end once per key: 32 KiB of "ghp_=a(" took 0.8 s.
// No password is this long; a longer run is redacted for its first
// maxValueLen bytes.
const maxValueLen = 4096

// readValue reads a value at v[i:]: quoted ("v", 'v'), braced ({v}, an
// ODBC value), or a run up to a space or a delimiter.
func readValue(v string, i int) (start, end int, quoted bool) { return readValueMemo(v, i, nil) }

// stopMemo is a stretch v[from:to] of one text that holds no byte of
// valueStops, as a run's reading found it: the next key's value, read from
// inside the stretch, skips it. A text of many keys whose values run into
// each other ("key=%key=%…") read each run to maxValueLen again: 32 KiB
// of "key=%" cost 30 ms so, more than half of it in this loop. (Not a
// placeMemo: a read stops at maxValueLen, so what it learns is a stretch
// without a stop, not where the next one stands.)
type stopMemo struct{ from, to int }

// readValueMemo is readValue with the stretch stops (nil: none) read
// from and updated.
func readValueMemo(v string, i int, stops *stopMemo) (start, end int, quoted bool) {
	if i >= len(v) {
		return i, i, false
	}
	if s, e, ok := quotedValue(v, i); ok {
		return s, e, true
	}
	switch v[i] {
	case '"', '\'', '`':
		i++ // an unclosed quote: the run after it
	case '<':
		// A value in angle brackets, brackets and all: a placeholder's
		// ("<your-password>", "<nil>") or a password's ("<Xy9Zq8Lm>"); a
		// tag (<b>, </x>, <a href=…>) or a comparison is none.
		if e := strings.IndexByte(v[i+1:], '>'); e > 0 && e < 200 && !strings.ContainsAny(v[i+1:i+1+e], " \t\n</=") {
			return i, i + 2 + e, false
		}
	}
	j, limit := i, min(len(v), i+maxValueLen)
	known := i // v[i:known] holds no stop
	if stops != nil && stops.from <= i && i < stops.to {
		known = stops.to
		j = min(known, limit)
	}
	for j < limit && !valueStops[v[j]] {
		j++
	}
	if stops != nil {
		stops.from, stops.to = i, max(j, known)
	}
	j = valueRunEnd(v, i, j, valueStop) // password is ;Xy9Zq8Lm2Pw, Xy9Zq;8Lm2Pw
	// A trailing full stop ends a sentence, not the value.
	if j > i+1 && v[j-1] == '.' {
		j--
	}
	return i, j, false
}

// quotedValue reads the value quoted ("v", 'v', `v`) or braced ({v}, an
// ODBC value) at v[i:], closed within maxValueLen bytes.
func quotedValue(v string, i int) (start, end int, ok bool) {
	if i >= len(v) {
		return i, i, false
	}
	switch q := v[i]; q {
	case '"', '\'', '`':
		if e := strings.IndexByte(v[i+1:min(len(v), i+1+maxValueLen)], q); e >= 0 {
			return i + 1, i + 1 + e, true
		}
	case '{':
		// ODBC writes a '}' in a braced value twice ("Pwd={}}Xy9…}").
		limit := min(len(v), i+1+maxValueLen)
		for e := i + 1; e < limit; {
			k := strings.IndexByte(v[e:limit], '}')
			if k < 0 {
				break
			}
			if e += k; e+1 < len(v) && v[e+1] == '}' {
				e += 2
				continue
			}
			return i + 1, e, true
		}
	}
	return i, i, false
}

// valueStop ends readValue's unquoted value.
func valueStop(c byte) bool { return valueStops[c] }

// valueStops is valueStop's table: blanks and control bytes, and
// ; , & " ' < ) ] } |. One read a byte, where the eleven comparisons
// cost readValue about 10 ns a byte (32 KiB of "key=%", each key's value
// read on to maxValueLen: 78 ms, 43% of it in the comparisons).
var valueStops = func() (t [256]bool) {
	for c := 0; c <= ' '; c++ {
		t[c] = true
	}
	for _, c := range []byte(";,&\"'<)]}|") {
		t[c] = true
	}
	return t
}()

// placeholder is a value that names or hides a secret without being one:
// ${VAR}, $VAR, %VAR%, {{var}}, <redacted>, ****, xxxx, [REDACTED], ...
func placeholder(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" || strings.Contains(s, RedactedToken) || strings.Contains(s, "[REDACTED") {
		return true
	}
	switch {
	case strings.HasPrefix(s, "${") || strings.HasPrefix(s, "$${") || strings.HasPrefix(s, "{{") || strings.HasPrefix(s, "$(") || strings.HasPrefix(s, "%("):
		return true
	case s[0] == '$' && len(s) > 1 && (isUpper(s[1]) || s[1] == '_'):
		return varName(s[1:]) // $DB_PASSWORD, not a password that starts with '$'
	case len(s) > 2 && s[0] == '%' && s[len(s)-1] == '%':
		return true
	case s[0] == '%' && formatVerb(s):
		return true
	case len(s) > 2 && s[0] == '<' && s[len(s)-1] == '>':
		return !noiseName(s[1 : len(s)-1]) // <your-password>, not <Xy9Zq8Lm>
	case len(s) >= 2 && s[0] == '{' && s[len(s)-1] == '}':
		// A format string's field, "{password}", "{ password }", "{0}",
		// "{}" (Python's str.format, C#'s and Rust's), not a braced
		// password.
		f := strings.TrimSpace(s[1 : len(s)-1])
		return f == "" || shortNumber(f) || !noiseName(f)
	}
	same := true
	for i := 1; i < len(s); i++ {
		same = same && s[i] == s[0]
	}
	if same && (s[0] == '*' || s[0] == 'x' || s[0] == 'X' || s[0] == '.' || s[0] == '#' || s[0] == '-') {
		return true
	}
	if strings.Count(s, "*") >= 3 || strings.Contains(s, "•••") || strings.Contains(s, "…") {
		return true // a mask, whole or partial
	}
	for _, w := range placeholderWords {
		if strings.EqualFold(s, w) {
			return true
		}
	}
	return false
}

// noiseName is a name no one gives a variable or a placeholder: letters
// not cased as words are ("RCtbK"), a capital alone inside a word of both
// cases ("McbTLbhi"; HomeDir and UserId start a word at each), digits
// inside a part no one reads ("Xy9Zq8Lm", "SQLKDBRS8"; DB2_PASSWORD and
// S3_KEY are read), or letters cased as random ones are (camelNoise). A
// password may start with '$' or stand in angle brackets.
func noiseName(s string) bool {
	return !casedAsWords(s) || loneCapital(s) || classesOf(s).digit && !readableIdentifier(s) || camelNoise(s)
}

// loneCapital: a run of letters of both cases holds a capital followed by
// another or ending it.
func loneCapital(s string) bool {
	for part := range strings.FieldsFuncSeq(s, func(r rune) bool { return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z') }) {
		k := classesOf(part)
		if !k.upper || !k.lower {
			continue
		}
		for i := 1; i < len(part); i++ {
			if isUpper(part[i]) && (i+1 == len(part) || isUpper(part[i+1])) {
				return true
			}
		}
	}
	return false
}

// varName is a variable's name as Bash, Perl, PHP and PowerShell write
// it: letters, digits and '_', and no noise.
func varName(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return !noiseName(s)
}

// placeholderWords stand where a value is not given.
var placeholderWords = []string{"redacted", "hidden", "masked", "null", "none", "nil", "undefined", "true", "false", "empty",
	"changeme", "secret", "password", "yes", "no", "required", "missing", "invalid", "expired", "set", "unset", "n/a", "na"}

// formatVerb: a printf verb where a value will go ("%s", "%-10s", "%v"),
// with a string's escapes after it (fmt.Printf("password: %s\n", pw)).
func formatVerb(s string) bool {
	for len(s) > 2 && s[len(s)-2] == '\\' && strings.IndexByte("nrt", s[len(s)-1]) >= 0 {
		s = s[:len(s)-2]
	}
	i := 1
	for i < len(s)-1 && strings.IndexByte("+-# 0123456789.", s[i]) >= 0 {
		i++
	}
	return len(s) >= 2 && i == len(s)-1 && 'a' <= s[i]|0x20 && s[i]|0x20 <= 'z'
}

// plainTerm is a value plainly not a credential: a word, an enum-like term,
// a short number, a readable identifier.
func plainTerm(s string) bool {
	return enumLike(s) && casedAsWords(s) || shortNumber(s) || readableIdentifier(s) || commonWord(s)
}

// casedAsWords reports whether every run of letters of s is cased as a word
// (wordCase): RATE_LIMITED and pauseRequired are, EfZRZFmBugxVXX is not.
func casedAsWords(s string) bool {
	for part := range strings.FieldsFuncSeq(s, func(r rune) bool { return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z') }) {
		if !wordCase(part) {
			return false
		}
	}
	return true
}

// passwordStates are the words a message quotes after a password word to
// say what state it is in, not what it is.
var passwordStates = map[string]bool{
	"incorrect": true, "correct": true, "invalid": true, "valid": true, "wrong": true, "required": true,
	"missing": true, "empty": true, "blank": true, "null": true, "nil": true, "none": true, "undefined": true,
	"expired": true, "weak": true, "strong": true, "set": true, "unset": true, "changed": true, "reset": true,
	"hidden": true, "masked": true, "redacted": true, "optional": true, "mandatory": true, "disabled": true,
	"enabled": true, "locked": true, "unknown": true, "true": true, "false": true, "yes": true, "no": true,
}

// commonWord is a lower-case word of letters (a sentence goes on).
func commonWord(s string) bool {
	if len(s) == 0 || len(s) > 20 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !('a' <= s[i] && s[i] <= 'z') {
			return false
		}
	}
	return true
}

// secretLooking is a value a person would not write in a sentence: it
// mixes letters and digits or cases, or holds a symbol, and is at least 6
// bytes.
func secretLooking(s string) bool {
	if len(s) < 6 || len(s) > 4096 {
		return false
	}
	k := classesOf(s)
	return k.count() >= 2 && !readableIdentifier(s) && !(k.sym && !k.digit && !k.upper && strings.Count(s, " ") > 0)
}

// byteClasses says which classes of bytes a text holds.
type byteClasses struct{ lower, upper, digit, sym bool }

func classesOf(s string) (k byteClasses) {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case 'a' <= c && c <= 'z':
			k.lower = true
		case 'A' <= c && c <= 'Z':
			k.upper = true
		case '0' <= c && c <= '9':
			k.digit = true
		default:
			k.sym = true
		}
	}
	return k
}

// count is how many of the four classes the text holds.
func (k byteClasses) count() int {
	n := 0
	for _, b := range [...]bool{k.lower, k.upper, k.digit, k.sym} {
		if b {
			n++
		}
	}
	return n
}

// namedPairs are the fields that name a setting and the field after them
// that gives its value: Kubernetes' and ECS's env entries (name and value,
// in YAML or JSON), the AWS CLI's (Name and Value: SSM's parameters, ECS),
// CloudFormation's parameters (ParameterKey and ParameterValue), Spring
// Boot's bind failures (Property and Value).
var namedPairs = [][2]string{{"name", "value"}, {"Name", "Value"}, {"ParameterKey", "ParameterValue"},
	// A list of settings as key and value ({"key": "db.password", "value":
	// …}, "- key: …" then "value: …", <key>…</key><value>…</value>:
	// whispers' fixtures).
	{"key", "value"}, {"Key", "Value"}, {"<key>", "<value>"}, {"<name>", "<value>"},
	// Spring Boot's failure to bind a property ("Property:
	// spring.datasource.password" then "Value: \"v\"" and its Origin).
	{"Property", "Value"}}

// pairReach bounds how far after its name a pair's value is read.
const pairReach = 512

// nameValuePairs finds a credential named in one field and given in the
// next ("name: DB_PASSWORD" and, on one of the next two lines, "value: v";
// {"Name": "/prod/db/password", "Type": "SecureString", "Value": "v"}): a
// credential key run (keys, from scanView) that is a name field's value
// (a path's last part too), then the value field within pairReach bytes
// and three lines of it, before its object closes.
func nameValuePairs(v string, keys []keyedRun) []ctxSpan {
	var out []ctxSpan
	for _, k := range keys {
		pair := namingField(v, k.start)
		if pair < 0 {
			continue
		}
		value := namedPairs[pair][1]
		rest := v[k.end:min(len(v), k.end+pairReach)]
		if nl := nthIndex(rest, '\n', 3); nl >= 0 {
			rest = rest[:nl]
		}
		if c := strings.IndexByte(rest, '}'); c >= 0 {
			rest = rest[:c]
		}
		for off := 0; ; {
			j := strings.Index(rest[off:], value)
			if j < 0 {
				break
			}
			j += k.end + off
			off = j - k.end + len(value)
			vs, ok := j+len(value), true // an element's text
			if value[0] != '<' {
				vs, ok = fieldValueAt(v, j+len(value)) // not valueFrom
			}
			if !ok {
				continue
			}
			s, e, _ := readValue(v, vs)
			if e > s && (k.strong || secretLooking(v[s:e]) || !plainTerm(v[s:e])) {
				out = append(out, ctxSpan{s, e})
			}
			break
		}
	}
	return out
}

// namingField is the namedPairs entry whose name field the value starting
// at v[ks] is (past the path before it, an opening quote, ':' or '=', a
// closing quote and blanks), or -1.
func namingField(v string, ks int) int {
	i := ks
	for i > 0 && ks-i < pairReach && (ctxKeyByte(v[i-1]) || v[i-1] == '/') {
		i-- // /prod/db/password: the path's earlier parts
	}
	if i > 0 && v[i-1] == '>' {
		for n, p := range namedPairs {
			if p[0][0] == '<' && strings.HasSuffix(v[:i], p[0]) {
				return n // <key>db.password</key>
			}
		}
		return -1
	}
	if i > 0 && (v[i-1] == '"' || v[i-1] == '\'') {
		i--
	}
	for i > 0 && (v[i-1] == ' ' || v[i-1] == '\t') {
		i--
	}
	if i == 0 || v[i-1] != ':' && v[i-1] != '=' {
		return -1
	}
	i--
	for i > 0 && (v[i-1] == ' ' || v[i-1] == '\t') {
		i--
	}
	if i > 0 && (v[i-1] == '"' || v[i-1] == '\'') {
		i--
	}
	for n, p := range namedPairs {
		// The field's whole name: "apikey: x" names no setting.
		if p[0][0] != '<' && strings.HasSuffix(v[:i], p[0]) && (i == len(p[0]) || !ctxKeyByte(v[i-len(p[0])-1])) {
			return n
		}
	}
	return -1
}

// fieldValueAt is where the value of a field whose name ends at v[i]
// starts: past a closing quote, blanks, ':' or '=' and blanks (a value's
// opening quote stays: readValue reads a quoted value from it).
func fieldValueAt(v string, i int) (int, bool) {
	if i < len(v) && (v[i] == '"' || v[i] == '\'') {
		i++
	}
	i = skipSpaces(v, i, false)
	if i >= len(v) || v[i] != ':' && v[i] != '=' {
		return 0, false
	}
	return skipSpaces(v, i+1, false), true
}

// windowsSwitch is a Windows command's switch where a tool's password
// would stand: a '/' and letters, up to a ':' (net user ana /active:yes,
// /add). A password that starts with '/' has a byte but a letter in it.
func windowsSwitch(val string) bool {
	if val[0] != '/' {
		return false
	}
	name, _, _ := strings.Cut(val[1:], ":")
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i] | 0x20; c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

func nthIndex(s string, b byte, n int) int {
	k := 0
	for i := 0; i < len(s); i++ {
		if s[i] == b {
			k++
			if k == n {
				return i
			}
		}
	}
	return -1
}

// transcriptCommands are the tools that take a password as a flag, and
// the protocol verbs a password follows in a terminal transcript.
var transcriptCommands = []struct {
	tool   string // a tool's name, any case, at a word start ("" for a protocol verb)
	flag   string // the flag (or verb, upper case) before the secret, on the same line ("" right after the tool)
	skip   int    // words to pass over after it before the secret
	attach bool   // the value may follow the flag without a space (mysql -pX)
	split  byte   // when set, the value is user<split>secret: the secret is what follows it
}{
	{"", "PASS ", 0, false, 0},       // FTP, POP3 (upper case: "pass the test" is prose)
	{"", "AUTH PLAIN ", 0, false, 0}, // SMTP
	{"docker login", "-p", 0, false, 0},
	{"mongo", "-p", 0, false, 0}, // mongo and mongosh
	{"keytool", "-storepass", 0, false, 0},
	{"keytool", "-keypass", 0, false, 0},
	{"keytool", "-srcstorepass", 0, false, 0},
	{"keytool", "-deststorepass", 0, false, 0},
	{"jarsigner", "-storepass", 0, false, 0},
	{"zip", "-P", 0, false, 0},
	{"7z", "-p", 0, true, 0},
	{"unrar", "-p", 0, true, 0},
	{"az login", "-p", 0, false, 0},
	{"rabbitmqctl", "add_user", 1, false, 0},
	{"rabbitmqctl", "change_password", 1, false, 0},
	{"wpa_passphrase", "", 1, false, 0}, // wpa_passphrase ssid secret
	{"net use", `\\`, 1, false, 0},      // net use [Z:] \\server\share [/user:name] secret
	{"net user", "", 1, false, 0},       // net user name secret /add
	{"expect", "send", 0, false, 0},     // expect's send "secret\r"
	{"smbclient", "-U", 0, false, '%'},  // smbclient -U user%secret
	{"lftp", "-u", 0, false, ','},       // lftp -u user,secret
	{"sshpass", "-p", 0, true, 0},       // sshpass -p secret
	{"redis-cli", "-a", 0, true, 0},     // redis-cli -h host -a secret
	{"ldapsearch", "-w", 0, true, 0},    // OpenLDAP's clients: ldapsearch -D dn -w secret
	{"ldapadd", "-w", 0, true, 0},
	{"ldapmodify", "-w", 0, true, 0},
	{"ldapdelete", "-w", 0, true, 0},
	{"ldappasswd", "-w", 0, true, 0},
	{"ldapwhoami", "-w", 0, true, 0},
	{"ldapmodrdn", "-w", 0, true, 0},
	{"ldapcompare", "-w", 0, true, 0},
	{"mysql", "-p", 0, true, 0}, // mysql -u root -psecret
	{"mysqldump", "-p", 0, true, 0},
	{"mysqladmin", "-p", 0, true, 0},
	{"htpasswd", "-b", 2, false, 0},   // htpasswd -b file user secret
	{"sqlcmd", "-P", 0, true, 0},      // sqlcmd -U sa -P secret
	{"openssl", "pass:", 0, true, 0},  // openssl ... -passin pass:secret
	{"openssl", "-k ", 0, false, 0},   // openssl enc -k secret (the key's password; not -keyout)
	{"sqlplus", "", 0, false, '/'},    // sqlplus scott/secret@orcl
	{"mosquitto_", "-P", 0, false, 0}, // mosquitto_pub, mosquitto_sub -u user -P secret
	{"cqlsh", "-p", 0, false, 0},      // cqlsh -u cassandra -p secret
	{"unzip", "-P", 0, false, 0},      // unzip -P secret archive.zip
	{"rar a", "-p", 0, true, 0},       // rar a -psecret archive.rar
	{"rar x", "-p", 0, true, 0},
	{"ssh-keygen", "-N", 0, false, 0},   // the new passphrase
	{"ssh-keygen", "-P", 0, false, 0},   // the old one
	{"psexec", "-p", 0, false, 0},       // psexec \\host -u user -p secret
	{"bcp", "-P", 0, true, 0},           // SQL Server's bcp … -U sa -P secret
	{"xfreerdp", "/p:", 0, true, 0},     // xfreerdp /v:host /u:user /p:secret
	{"rdesktop", "-p", 0, false, 0},     // rdesktop -u user -p secret host
	{"hydra", "-p", 0, false, 0},        // hydra -l user -p secret ssh://host
	{"schtasks", "/rp", 0, false, 0},    // schtasks /create … /ru user /rp secret
	{"schtasks", "/RP", 0, false, 0},    // Windows switches in either case
	{"rclone obscure", "", 0, false, 0}, // rclone obscure secret (the config's reversible form)
	{"mc alias set", "", 3, false, 0},   // MinIO's client: mc alias set name url access-key secret-key
	{"mc config host add", "", 3, false, 0},
	// Secret stores' and registries' command lines: the value a secret is
	// set to (a file reference, file://…, is none: cliFileReference).
	{"gh secret set", "--body", 0, false, 0}, // gh secret set NAME --body secret
	{"gh secret set", "-b", 0, true, 0},
	{"aws secretsmanager", "--secret-string", 0, false, 0}, // create-secret, put-secret-value
	{"aws ssm put-parameter", "--value", 0, false, 0},
	{"az keyvault secret set", "--value", 0, false, 0},
	{"doctl auth init", "-t", 0, false, 0},       // DigitalOcean's token
	{"vault login", "", 0, false, 0},             // vault login TOKEN (Vault's token as the argument)
	{"twine upload", "-p", 0, false, 0},          // twine upload -u __token__ -p secret
	{"poetry config", "pypi-token.", 1, true, 0}, // poetry config pypi-token.REPO secret
	{"poetry config", "http-basic.", 2, true, 0}, // poetry config http-basic.REPO user secret
	// curl's user:password, read here rather than by a regular expression
	// at every "curl": a 32 KiB text of "curl -u a:'" cost the expression
	// 0.3-0.45 s (each try ran on to the window's end).
	{"curl", "-u", 0, true, ':'},
	{"curl", "-U", 0, true, ':'}, // the proxy's
	{"curl", "--user", 0, false, ':'},
	{"curl", "--proxy-user", 0, false, ':'},
	{"etcdctl", "--user", 0, false, ':'}, // etcdctl --user root:secret get /k
	{"http -a", "", 0, false, ':'},       // HTTPie: http -a user:secret example.org (colonTools)
	{"https -a", "", 0, false, ':'},
	{"influx", "-p", 0, false, 0},    // InfluxDB's CLI: influx setup -u admin -p secret
	{"ncftp", "-p", 0, false, 0},     // ncftp, ncftpget, ncftpput -u user -p secret
	{"acl setuser", ">", 0, true, 0}, // Redis: ACL SETUSER alice on >secret ~cached:* +get
	{"acl setuser", "<", 0, true, 0}, // a password removed names it as plainly
}

// transcriptValues finds the values of transcriptCommands and IMAP LOGIN's
// password (its third word).
func transcriptValues(v string, sc viewScan) []ctxSpan {
	var out []ctxSpan
	if !sc.transcriptWord && !strings.Contains(v, "PASS ") && !strings.Contains(v, "AUTH ") && !strings.Contains(v, "334 ") {
		return nil
	}
	var flags flagMemos
	for n, i := range transcriptHits(v, sc.tools) {
		c := transcriptCommands[n]
		if strings.IndexByte(c.tool, ' ') >= 0 && i+len(c.tool) < len(v) && alnum(v[i+len(c.tool)]) {
			continue // a command of two words ends with its second: net use is not net user
		}
		if c.flag == "" && c.tool != "" && i+len(c.tool) < len(v) && v[i+len(c.tool)] > ' ' {
			// The value after the tool is its next word: glued to the
			// tool's name ("sqlplus%41'…"), the name is no command's. Read,
			// a run of such names was read from each to maxValueLen: 32
			// KiB of "sqlplus%41'" took 150 ms.
			continue
		}
		{
			j := i + len(c.flag)
			if c.tool != "" {
				// The flag, as a word of the rest of the command's line.
				// Within lineReach: a 32 KiB line of "openssl passwd -a "
				// was searched to its end for "pass:" at every openssl
				// (46 ms).
				ls := i + len(c.tool)
				line := commandLine(v[ls:min(len(v), ls+lineReach)])
				k := 0
				if c.flag != "" {
					if k = flags.index(v, ls, c.flag) - ls; k+len(c.flag) > len(line) {
						continue
					}
				}
				j = i + len(c.tool) + k + len(c.flag)
				if c.skip > 0 && strings.HasPrefix(c.flag, "-") {
					// Short options together (htpasswd -bc file user
					// secret): the words to pass start after them.
					for j < len(v) && ('a' <= v[j]|0x20 && v[j]|0x20 <= 'z') {
						j++
					}
				}
			}
			if !(c.attach && j < len(v) && v[j] != ' ') {
				for j < len(v) && v[j] == ' ' {
					j++
				}
			}
			for k := 0; k < c.skip; k++ {
				for j < len(v) && v[j] != ' ' && v[j] != '\n' {
					j++
				}
				for j < len(v) && v[j] == ' ' {
					j++
				}
			}
			s, e, _ := readValue(v, j)
			if c.split != 0 {
				// user<split>secret, read as one word.
				we := s
				for we < len(v) && v[we] > ' ' && v[we] != '"' && v[we] != '\'' {
					we++
				}
				p := strings.IndexByte(v[s:we], c.split)
				if p <= 0 {
					continue // no user before it: sqlplus /nolog
				}
				s, e = s+p+1, we
			}
			for n := 0; n < 4 && e > s && windowsSwitch(v[s:e]); n++ {
				// A Windows command's switches stand before its password
				// as well as after it: net use \\srv\s /user:ana VALUE.
				s, e, _ = readValue(v, skipSpaces(v, e, false))
			}
			if e > s && !placeholder(v[s:e]) && v[s] != '-' && !windowsSwitch(v[s:e]) && !cliFileReference(v[s:e]) &&
				!(c.flag == "" && c.tool != "" && commonWord(v[s:e])) { // "Run vault login to authenticate": prose
				out = append(out, ctxSpan{s, e})
			}
		}
	}
	out = append(out, protocolAuth(v)...)
	out = append(out, smtpLoginPasswords(v)...)
	out = append(out, echoedIntoLogin(v)...)
	out = append(out, sqlPasswords(v)...)
	// IMAP: "a001 LOGIN user password".
	for i := range after(v, " LOGIN ") {
		j := i
		for j < len(v) && v[j] != ' ' && v[j] != '\n' {
			j++
		}
		for j < len(v) && v[j] == ' ' {
			j++
		}
		s, e, _ := readValue(v, j)
		if e > s && j > i {
			out = append(out, ctxSpan{s, e})
		}
	}
	return out
}

// commandLine is s up to the end of its command: the first line break
// that no backslash continues (curl -k \<newline> --proxy-user …).
func commandLine(s string) string {
	for off := 0; ; {
		nl := strings.IndexByte(s[off:], '\n')
		if nl < 0 {
			return s
		}
		nl += off
		if e := strings.TrimSuffix(s[:nl], "\r"); !strings.HasSuffix(e, "\\") {
			return s[:nl]
		}
		off = nl + 1
	}
}

// cliFileReference: a command line's value read from a file, the AWS
// CLI's file:// and fileb://, the Azure CLI's @file.
func cliFileReference(val string) bool {
	return strings.HasPrefix(val, "file://") || strings.HasPrefix(val, "fileb://") || val[0] == '@'
}

// transcriptHits yields each place a transcriptCommands entry starts in v:
// a tool's name at a word start, a protocol verb anywhere, as (entry, i).
func transcriptHits(v string, tools [][2]int) iter.Seq2[int, int] {
	return func(yield func(int, int) bool) {
		for _, t := range tools {
			if !yield(t[0], t[1]) {
				return
			}
		}
		for n, c := range transcriptCommands {
			if c.tool != "" {
				continue
			}
			for off := 0; off < len(v); {
				i := strings.Index(v[off:], c.flag)
				if i < 0 {
					break
				}
				i += off
				off = i + 1
				if i > 0 && ctxKeyByte(v[i-1]) {
					continue
				}
				if !yield(n, i) {
					return
				}
			}
		}
	}
}

// flagIndex is where flag starts as a word of line (after a space), -1
// when it is not there.
func flagIndex(line, flag string) int {
	for off := 0; off < len(line); {
		k := strings.Index(line[off:], flag)
		if k < 0 {
			return -1
		}
		k += off
		if k > 0 && (line[k-1] == ' ' || line[k-1] == '\t') || flag == "pass:" {
			return k
		}
		off = k + 1
	}
	return -1
}

// flagMemos answers flagIndex for the flags of the commands whose tools
// stand in a text, at their hits, which come in order: each flag's place
// is kept (placeMemo), so dense hits share one search. Each hit of "curl"
// had searched the KiB after it for each of curl's four flags: 32 KiB of
// "curl -H a:{" spent 12 ms there. TestFlagMemosAreFlagIndex holds it to
// flagIndex.
type flagMemos struct {
	n     int
	flags [8]string
	place [8]placeMemo // from the line start (after its first byte, but for pass:)
}

// index is where flag stands as a word of v[ls:] (flagIndex's line, read
// to v's end), or len(v).
func (f *flagMemos) index(v string, ls int, flag string) int {
	lo := ls + 1 // flagIndex's k > 0
	if flag == "pass:" {
		lo = ls
	}
	k := 0
	for k < f.n && f.flags[k] != flag {
		k++
	}
	switch {
	case k == len(f.flags):
		k = 0 // more flags than slots: the first slot is searched again
		f.flags[0], f.place[0] = flag, placeMemo{}
	case k == f.n:
		f.flags[k] = flag
		f.n++
	}
	return f.place[k].next(lo, func(int) int {
		if i := flagIndex(v[ls:], flag); i >= 0 {
			return ls + i
		}
		return len(v)
	})
}

func indexFold(s, sub string) int {
	n := len(sub)
	if n == 0 {
		return 0
	}
	// Look for the pattern's rarest byte (byteRank, any case) in either
	// case, then compare the whole: a common first letter would stop the
	// search at every other word.
	k := anchorByte(sub, true)
	c := lower(sub[k])
	u := c
	if 'a' <= c && c <= 'z' {
		u = c - 32
	}
	// The next place of each case, found again only once passed (a case
	// the text lacks is not searched for at every step).
	nextC, nextU := -1, -1
	if u == c {
		nextU = len(s)
	}
	for i := k; i < len(s); {
		if nextC < i {
			if nextC = strings.IndexByte(s[i:], c); nextC < 0 {
				nextC = len(s)
			} else {
				nextC += i
			}
		}
		if nextU < i {
			if nextU = strings.IndexByte(s[i:], u); nextU < 0 {
				nextU = len(s)
			} else {
				nextU += i
			}
		}
		p := min(nextC, nextU)
		if p >= len(s) {
			return -1
		}
		at := p - k
		if at+n > len(s) {
			return -1
		}
		if strings.EqualFold(s[at:at+n], sub) {
			return at
		}
		i = p + 1
	}
	return -1
}

// rarestByte is the index of sub's byte that English text holds least
// often (any byte not a letter counts as rarer than every letter but
// after a space).
func rarestByte(sub string) int {
	const byFrequency = "etaoinshrdlcumwfgypbvkjxqz" // most frequent first
	best, rank := 0, -2
	for i := 0; i < len(sub); i++ {
		c := lower(sub[i])
		r := strings.IndexByte(byFrequency, c)
		switch {
		case c == ' ':
			r = -1
		case r < 0:
			r = len(byFrequency)
		}
		if r > rank {
			best, rank = i, r
		}
	}
	return best
}

// shapeSecrets finds what is a secret by its shape alone: a .pgpass line,
// a keypair as a JSON array of bytes, a BIP-39 mnemonic, a SAML
// assertion's signature and key material.
func shapeSecrets(v string, sc viewScan) []ctxSpan {
	var out []ctxSpan
	out = append(out, pgpassLines(v)...)
	out = append(out, byteArrays(v)...)
	if sc.mnemonicWords >= 12 {
		out = append(out, mnemonics(v)...)
	}
	out = append(out, xmlSecrets(v)...)
	return out
}

// pgpassLines: host:port:database:user:password, port a number, as a
// word anywhere in the text.
func pgpassLines(v string) []ctxSpan {
	if strings.Count(v, ":") < 4 {
		return nil
	}
	var out []ctxSpan
	// Only a word holding a ':' can be one: from each ':', its word (a
	// maximal run of bytes but whitespace, quotes, commas and '<').
	for off := 0; off < len(v); {
		k := strings.IndexByte(v[off:], ':')
		if k < 0 {
			break
		}
		k += off
		i, j := k, k+1
		for i > off && !pgpassStop(v[i-1]) {
			i--
		}
		for j < len(v) && !pgpassStop(v[j]) {
			j++
		}
		off = j
		// A '/' before the password is a URL's or a path's; in the
		// password it is one of its bytes ("alice:RIg/cyRQ5").
		if word := v[i:j]; strings.Count(word, ":") == 4 && !strings.Contains(word[:strings.LastIndexByte(word, ':')], "/") {
			parts := strings.SplitN(word, ":", 5)
			// A password may start with or hold a byte that ends the word
			// ("alice:<Fn7tMxBA5W", "alice:Xy9Zq,8Lm2Pw").
			pw := ctxSpan{j - len(parts[4]), valueRunEnd(v, j-len(parts[4]), j, pgpassStop)}
			off = pw.end
			if (shortNumber(parts[1]) || parts[1] == "*") && parts[0] != "" && pw.end > pw.start && !placeholder(v[pw.start:pw.end]) {
				out = append(out, pw)
			}
		}
	}
	return out
}

// pgpassStop ends a word pgpassLines reads.
func pgpassStop(c byte) bool {
	return c == ' ' || c == '\n' || c == '\t' || c == '"' || c == '\'' || c == ',' || c == '<'
}

// byteArrays: [n, n, ...] of 32 or more integers 0 to 255 (a Solana or
// Ed25519 keypair file).
func byteArrays(v string) []ctxSpan {
	var out []ctxSpan
	for off := 0; off < len(v); {
		i := strings.IndexByte(v[off:], '[')
		if i < 0 {
			break
		}
		i += off
		off = i + 1
		n, j := 0, i+1
		ok := true
		for j < len(v) && v[j] != ']' {
			k := j
			for k < len(v) && (v[k] == ' ' || v[k] == '\n') {
				k++
			}
			d := k
			for d < len(v) && '0' <= v[d] && v[d] <= '9' {
				d++
			}
			if d == k || d-k > 3 {
				ok = false
				break
			}
			n++
			j = d
			for j < len(v) && (v[j] == ' ' || v[j] == '\n') {
				j++
			}
			if j < len(v) && v[j] == ',' {
				j++
			}
		}
		if ok && n >= 32 && j < len(v) {
			out = append(out, ctxSpan{i + 1, j})
			off = j
		}
	}
	return out
}

var bip39Words = func() map[string]bool {
	m := make(map[string]bool, len(wordlists.English))
	for _, w := range wordlists.English {
		m[w] = true
	}
	return m
}()

// mnemonics: 12 or more consecutive BIP-39 words.
func mnemonics(v string) []ctxSpan {
	var out []ctxSpan
	for from, to := range mnemonicStretches(v) {
		out = mnemonicsIn(v, from, to, out)
	}
	return out
}

// mnemonicStretches yields each stretch of v of 12 or more words that
// could each be a BIP-39 word (3 to 8 lower-case letters, ending where
// mnemonicsIn lets a word end), with only spaces and line breaks between
// them: the words mnemonicsIn looks up. Outside them a run is cut before
// it reaches 12.
func mnemonicStretches(v string) iter.Seq2[int, int] {
	return func(yield func(int, int) bool) {
		n, start, end := 0, 0, 0
		for i := 0; i < len(v); {
			c := v[i]
			if c == ' ' || c == '\n' {
				i++
				continue
			}
			j := i
			for j < len(v) && 'a' <= v[j] && v[j] <= 'z' {
				j++
			}
			if j-i >= 3 && j-i <= 8 && (j == len(v) || !ctxKeyByte(v[j]) || v[j] == '.') {
				if n == 0 {
					start = i
				}
				n++
				end = j
				i = j
				continue
			}
			if n >= 12 && !yield(start, end) {
				return
			}
			n = 0
			i = max(j, i+1)
		}
		if n >= 12 {
			yield(start, end)
		}
	}
}

// mnemonicsIn appends the runs of 12 or more BIP-39 words in v[from:to].
func mnemonicsIn(v string, from, to int, out []ctxSpan) []ctxSpan {
	run, runStart, lastEnd := 0, 0, 0
	flush := func() {
		if run >= 12 {
			out = append(out, ctxSpan{runStart, lastEnd})
		}
		run = 0
	}
	for i := from; i < to; {
		if !('a' <= v[i] && v[i] <= 'z') {
			if v[i] != ' ' && v[i] != '\n' {
				flush()
			}
			i++
			continue
		}
		j := i
		for j < len(v) && 'a' <= v[j] && v[j] <= 'z' {
			j++
		}
		if bip39Words[v[i:j]] && (j == len(v) || !ctxKeyByte(v[j]) || v[j] == '.') {
			if run == 0 {
				runStart = i
			}
			run++
			lastEnd = j
		} else {
			flush()
		}
		i = j
	}
	flush()
	return out
}

// xmlSecrets: the content of a SAML assertion's SignatureValue,
// X509Certificate-less key material, and of any element whose name ends in
// Password or Secret (WS-Security's <wsse:Password>) — the keyed-value
// reading covers <k>v</k>; this covers the SAML ones that are not keys.
func xmlSecrets(v string) []ctxSpan {
	if !strings.Contains(v, "Value>") && !strings.Contains(v, "NameID>") {
		return nil // every tag below ends so
	}
	var out []ctxSpan
	for _, tag := range []string{"SignatureValue>", "CipherValue>", "saml:AttributeValue>", "saml2:AttributeValue>", "NameID>"} {
		for i := range after(v, tag) {
			if i-len(tag)-1 < 0 || v[i-len(tag)-1] == '/' {
				continue
			}
			e := strings.IndexByte(v[i:], '<')
			if e <= 0 {
				continue
			}
			if val := strings.TrimSpace(v[i : i+e]); len(val) >= 8 && (tag != "NameID>" || strings.Contains(v, "Assertion")) {
				out = append(out, ctxSpan{i, i + e})
			}
		}
	}
	return out
}

// bareTokens finds a long high-entropy token with no context in prose,
// unless its shape or the word before it says it is something else. A text
// that is the token alone (a field's whole value: a page token, an id) is
// the field's to name, not prose; a text that is key=token alone is not
// (before, foo_bar=<token> leaked where foo_bar=<token> x did not), unless
// the value holds a '+': form-encoded words (msg=login+failed+with+…),
// which the decoded reading reads as the prose they are.
func bareTokens(v string, runs []ctxSpan) []ctxSpan {
	var out []ctxSpan
	if len(runs) == 0 {
		return nil
	}
	alone := !strings.ContainsAny(strings.TrimSpace(v), " \n")
	for _, r := range runs { // glue runs of 20 bytes or more (scanView)
		i, j := r.start, r.end
		if eq := strings.LastIndexByte(v[i:j], '='); eq > 0 && eq < j-i-3 {
			i += eq + 1 // key=token: the token is what follows the last '='
			if alone && strings.IndexByte(v[i:j], '+') >= 0 {
				continue
			}
		} else if alone {
			continue
		}
		tok := strings.Trim(v[i:j], ".-_/")
		if len(tok) >= 20 && highEntropyToken(tok) && !readableIdentifier(tok) && !benignToken(v, i, tok) && !benignSpan(v, i, j) {
			s := i + strings.Index(v[i:j], tok)
			out = append(out, ctxSpan{s, s + len(tok)})
		}
	}
	return out
}

// highEntropyToken: at least three of lower, upper, digit (and symbol) and
// a Shannon entropy of at least 3.6 bits a byte (a random base62 token of
// 24 bytes has about 4.3; English words joined by dashes about 3.3).
func highEntropyToken(t string) bool { return entropyTokenOf(t, 3.6) }

// weakWordBits is the entropy a value after a weaker word in prose needs:
// the word already says a secret may follow, so only the identifiers a
// sentence names are to be told apart, and those score high anyway. A
// random base62 token of 24 bytes falls below 3.6 bits about once in
// 10,000 (a fresh corpus seed found "KaaH6urK7qWTuAAxWA671KuW", 3.54),
// below 3.3 in none of 300,000 drawn; a shorter value keeps 3.6.
func weakWordBits(n int) float64 {
	if n >= 24 {
		return 3.3
	}
	return 3.6
}

// entropyTokenOf is highEntropyToken with minBits bits a byte.
func entropyTokenOf(t string, minBits float64) bool {
	k := classesOf(t)
	k.sym = false // a token's symbols (-_.+/=) say nothing of its randomness
	// Three classes, or both cases mixed as no word is (a letters-only key).
	if k.count() < 3 && !(k.lower && k.upper && !casedAsWords(t)) {
		return false
	}
	var counts [256]int
	for i := 0; i < len(t); i++ {
		counts[t[i]]++
	}
	h := 0.0
	for _, n := range counts {
		if n > 0 {
			p := float64(n) / float64(len(t))
			h -= p * math.Log2(p)
		}
	}
	return h >= minBits
}

// benignPrefixes start tokens that are identifiers, not secrets: request
// and object ids of providers and clouds, in the case their producers
// write them. Read in that case only: a random base64url token starts
// with cH_ or In_ now and then (seed 10146 of the fresh corpus, a Fernet
// key), and no provider writes its ids so.
var benignPrefixes = []string{"req_", "request_", "msg_", "chatcmpl-", "resp_", "run_", "thread_", "asst_", "file-", "file_",
	"call_", "toolu_", "batch_", "ft-", "ftjob-", "cmpl-", "arn:", "projects/", "models/",
	"trace-", "span-", "evt_", "ch_", "cus_", "pi_", "in_", "sub_", "prod_", "price_", "txn_", "cs_test_", "org-", "proj_", "user-"}

// benignDigestPrefixes name a digest in either case (OpenSSH writes
// SHA256:, npm sha512-).
var benignDigestPrefixes = []string{"sha256:", "sha512:", "sha1:", "md5:", "sha512-", "sha384-", "sha256-", "sha1-", "h1:"}

// benignToken reports whether a token's shape or the word before it says
// what it is: an id of a known format, a digest or fingerprint, a base64
// payload that decodes to JSON, a path or URL.
func benignToken(v string, at int, tok string) bool {
	lt := strings.ToLower(tok)
	for _, p := range benignPrefixes {
		if strings.HasPrefix(tok, p) {
			return true
		}
	}
	for _, p := range benignDigestPrefixes {
		if strings.HasPrefix(lt, p) {
			return true
		}
	}
	if strings.Count(tok, "/") >= 2 || strings.HasPrefix(lt, "http://") || strings.HasPrefix(lt, "https://") || strings.HasPrefix(v[at:], "//") || at > 0 && v[at-1] == ':' {
		return true // a path or URL: its secrets are the first layer's (query keys, userinfo)
	}
	// The word before it says what it is: an id, a trace, a hash or a
	// fingerprint (request id 7f3a…, sha256 9c1e…, commit 4b2d…).
	if benignWordBefore[lastWord(v[max(0, at-40):at])] {
		return true
	}
	if decodesToJSON(tok) || uuidShape(tok) || qualifiedName(tok) {
		return true
	}
	return false
}

// qualifiedName is a dotted name code gives an exception, a class or a
// module ("psycopg2.errors.UniqueViolation", "urllib3.connection.HTTPSConnection",
// "TCPConnectWrap.afterConnect"): two parts or more, each of words as code
// joins them (camelWords). A random token's parts mix case and digits as
// no word does.
func qualifiedName(tok string) bool {
	parts := 0
	for part := range strings.SplitSeq(tok, ".") {
		if !camelWords(part) {
			return false
		}
		parts++
	}
	return parts >= 2
}

// camelWords: s (at most 48 bytes) is words joined as code joins them:
// lower-case or Capitalised words, an acronym before a word or at the end
// (HTTPSConnection, parseURL), '_' between them, and at most three digits,
// none first (psycopg2, S3Upload, sha256). A word of one lower-case letter
// is one only first (iPhone) or last (ConnectionId): in "Zx9vQ2mL" every
// other word is.
func camelWords(s string) bool {
	if len(s) < 2 || len(s) > 48 || '0' <= s[0] && s[0] <= '9' {
		return false
	}
	digits, letters := 0, 0
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case '0' <= c && c <= '9':
			digits++
			i++
		case c == '_':
			i++
		case 'a' <= c && c <= 'z' || isUpper(c):
			j := i
			for j < len(s) && isUpper(s[j]) {
				j++
			}
			k := j
			for k < len(s) && 'a' <= s[k] && s[k] <= 'z' {
				k++
			}
			if k-j == 1 && i > 0 && k < len(s) {
				return false // one lower-case letter inside: Zx9, vQ
			}
			letters += k - i
			i = k
		default:
			return false
		}
	}
	return digits <= 3 && letters >= 2
}

// decodesToJSON reports whether a base64 token is a JSON object or array
// (a payload, not a key): a JWT is caught by the first layer.
func decodesToJSON(tok string) bool {
	b, ok := decodeBase64(tok)
	if !ok || len(b) < 2 {
		return false
	}
	return (b[0] == '{' || b[0] == '[') && utf8.Valid(b)
}

// benignWordBefore are the words that name the token after them as an
// identifier, a digest or a fingerprint.
var benignWordBefore = map[string]bool{"id": true, "ids": true, "requestid": true, "request": true, "trace": true, "traceid": true,
	"span": true, "spanid": true, "commit": true, "sha": true, "sha1": true, "sha256": true, "sha512": true, "md5": true,
	"digest": true, "fingerprint": true, "checksum": true, "hash": true, "etag": true, "correlationid": true, "uuid": true,
	"cfray": true, "xrequestid": true, "xamznrequestid": true, "xcorrelationid": true, "integrity": true}

// lastWord is the last word of s, lower case, its separators and
// punctuation aside ("Request-ID: " gives "requestid").
func lastWord(s string) string {
	s = strings.TrimRight(s, " :=#\t\"'([")
	i := len(s)
	for i > 0 && ctxKeyByte(s[i-1]) {
		i--
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r == '-' || r == '_' || r == '.':
			return -1
		case 'A' <= r && r <= 'Z':
			return r + 32
		}
		return r
	}, s[i:])
}

// userinfoSpans appends to out the password of every URL userinfo in v
// (the first layer's urlUserinfo, read here on the text as it is: a
// password percent-encoded in a DSN keeps its '@' and '/' as %40 and %2F,
// so its end is found before anything is decoded), and the DSN forms that
// carry no scheme: Go's user:pass@tcp(host) and Oracle's user/pass@//host.
func userinfoSpans(v string, out []ctxSpan) []ctxSpan {
	for i := range after(v, "://") {
		if from, to, ok := urlUserinfo(v, i-3); ok {
			if c := strings.IndexByte(v[from:to], ':'); c >= 0 {
				from += c + 1
			}
			if to > from && !maskOnly(v[from:to]) {
				out = append(out, ctxSpan{from, to})
			}
			continue
		}
		// A password holding '#', '?' or '/' unescaped ("neo4j:99#Fd@host",
		// Redis' empty user ":1#Ff@cache"): user:pass up to the first '@'
		// on the word, unless what follows the ':' is a port and a path
		// ("host:8080/x?mail=a@b").
		end := i
		for end < len(v) && end-i < 256 && v[end] > ' ' && v[end] != '"' && v[end] != '\'' && v[end] != '@' {
			end++
		}
		c := strings.IndexByte(v[i:end], ':')
		if end >= len(v) || v[end] != '@' || c < 0 || end+1 >= len(v) || !ctxKeyByte(v[end+1]) {
			continue
		}
		pass := v[i+c+1 : end]
		d := 0
		for d < len(pass) && '0' <= pass[d] && pass[d] <= '9' {
			d++
		}
		if pass == "" || d > 0 && (d == len(pass) || pass[d] == '/' || pass[d] == '?') || strings.ContainsRune(v[i:i+c], '/') || maskOnly(pass) {
			continue
		}
		out = append(out, ctxSpan{i + c + 1, end})
	}
	for _, tail := range []string{"@tcp(", "@unix(", "@//"} {
		for i := range after(v, tail) {
			at := i - len(tail)
			sep := byte(':')
			if tail == "@//" {
				sep = '/'
			}
			j := at
			for j > 0 && v[j-1] != sep && v[j-1] > ' ' && v[j-1] != '"' && v[j-1] != '\'' {
				j--
			}
			if j > 0 && v[j-1] == sep && j < at && j >= 2 && ctxKeyByte(v[j-2]) && !placeholder(v[j:at]) {
				out = append(out, ctxSpan{j, at})
			}
		}
	}
	return out
}

// encodedRuns finds hex and base64 runs that decode to text holding a
// secret (a line logged as hex bytes, a config dumped as base64): the whole
// run is redacted. The decoded text is read by both layers, once (what it
// decodes to in turn is not decoded again), so the work stays linear.
func encodedRuns(s string, glue []ctxSpan) []ctxSpan {
	var out []ctxSpan
	// A base64 byte is a glue byte: a run of 24 lies in a glue run of 24
	// or more (glue: scanView's runs of 20 or more).
	for _, g := range glue {
		if g.end-g.start >= 24 {
			out = encodedRunsIn(s, g.start, g.end, out)
		}
	}
	return out
}

// encodedRunsIn appends encodedRuns' finds among the base64 runs of
// s[from:to].
func encodedRunsIn(s string, from, to int, out []ctxSpan) []ctxSpan {
	for i, j := range runsOf(s[from:to], base64Byte) {
		i, j = i+from, j+from
		run := s[i:j]
		if len(run) < 24 {
			continue
		}
		var b []byte
		if len(run)%2 == 0 && allHex(run) {
			b = make([]byte, len(run)/2)
			for k := range b {
				b[k] = hexVal(run[2*k])<<4 | hexVal(run[2*k+1])
			}
		} else if d, ok := decodeBase64(run); ok {
			b = d
		}
		if len(b) < 12 || !printableText(b) {
			continue
		}
		text := string(b)
		var rep Report
		c := cleanFirst(text, &rep)
		if !rep.Redacted {
			if _, changed := contextPassPlain(c); !changed {
				continue
			}
		}
		out = append(out, ctxSpan{i, j})
	}
	return out
}

// findIn appends what the layer finds in v (sc: scanView(v.text)), as
// spans of the original.
func (v view) findIn(spans []ctxSpan, sc viewScan) []ctxSpan {
	spans = v.original(userinfoSpans(v.text, nil), spans)
	return v.original(findContextSecrets(v.text, sc), spans)
}

// maskOnly is a placeholder that is not a redaction with the rest of its
// value still after it ("[REDACTED]%40%2Fx7": the first layer stopped at a
// byte it does not read as part of a password).
func maskOnly(val string) bool {
	if !placeholder(val) {
		return false
	}
	i := strings.Index(val, RedactedToken)
	return i < 0 || len(val)-i-len(RedactedToken) < 3
}

// hiddenTail is where a redaction begins inside v[start:end], a value
// the first layer redacted from inside: one run of a secret's bytes glued
// to the front of the redaction ("0nKSg2FtJwYk*" before a JWT's eyJ,
// "BoyXKF," before a token), the
// value read up to the redaction's end or into it. 0 for any other value.
func hiddenTail(v string, start, end int) int {
	i := strings.Index(v[start:end], RedactedToken[:len(RedactedToken)-1])
	if i <= 0 {
		return 0
	}
	k := start + i
	head := v[start:k]
	for len(head) > 0 && head[0] == '%' {
		// An escape the reading began with ("%20", "%22", a "%25" decoded
		// to "%") is no piece of the secret.
		head = head[1:]
		for n := 0; n < 2 && len(head) > 0 && isHex(head[0]); n++ {
			head = head[1:]
		}
	}
	// A symbol a password may hold may stand between the two
	// ("BoyXKF,[REDACTED]": the first layer took the rest for a token).
	if len(head) > 1 && strings.IndexByte(innerLeads, head[len(head)-1]) >= 0 {
		head = head[:len(head)-1]
	}
	if head != "" && strings.IndexFunc(head, func(r rune) bool { return r <= ' ' || strings.ContainsRune(valueEnds, r) }) < 0 &&
		!sentenceWord(head) && !placeholder(head) && strings.HasPrefix(v[k:], RedactedToken) {
		return k
	}
	return 0
}

// valueEnds are the bytes that end a value or begin a structure around
// it: a head holding one is not a piece of a single secret.
const valueEnds = "\"',:;=&|{}[]()<>\\/"

// contextPassPlain is contextPass without encodedRuns: for text that is
// itself the decoding of a run. Like contextPass it reads every decoding,
// the text as it is first: a .pgpass line whose password holds "%3A" has
// a colon too many once that is decoded.
func contextPassPlain(s string) (string, bool) {
	if !mayHoldContextSecret(s) {
		return s, false
	}
	v := decodedView(s)
	readings := v.rounds // the original first
	if readings == nil {
		readings = []view{v} // the text is its only reading
	}
	var spans []ctxSpan
	for _, r := range readings {
		spans = r.findIn(spans, scanView(r.text))
	}
	if len(spans) == 0 {
		return s, false
	}
	return view{text: s}.redact(s, mergeCtxSpans(spans)), true
}

func base64Byte(c byte) bool { return base64Table[c] }

var base64Table = func() (t [256]bool) {
	for c := 0; c < 256; c++ {
		t[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '+' || c == '/' || c == '=' || c == '-' || c == '_'
	}
	return t
}()

func allHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isHex(s[i]) {
			return false
		}
	}
	return true
}

// printableText: valid UTF-8 with no control byte but tab and line breaks.
func printableText(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	for _, c := range b {
		if c < 0x20 && c != '\n' && c != '\t' && c != '\r' || c == 0x7f {
			return false
		}
	}
	return true
}

// keyHex is key material written in hex: at least 32 hex digits, letters
// and digits both.
func keyHex(s string) bool {
	if len(s) < 32 || !allHex(s) {
		return false
	}
	k := classesOf(s)
	return k.digit && (k.lower || k.upper)
}

// redactedTails: token bytes glued to the end of a redaction (a value the
// first layer cut short at a byte it does not read as part of it, a
// wrapped token's second line once the wrap is joined) belong to the secret
// it hid.
func redactedTails(v string) []ctxSpan {
	var out []ctxSpan
	var field formField
	for i := range after(v, RedactedToken) {
		if i < len(v) && v[i] == '\n' {
			// A soft wrap right after the redaction (softWrap): the next
			// line's first word, when no sentence would hold it, is the rest
			// of what was redacted, read here on the text as it is, before a
			// decoding of it ("%04" read as a control byte) could cut the
			// tail off.
			ls := strings.LastIndexByte(v[:i], '\n') + 1
			if softWrap(v, ls, i) && utf8.RuneCountInString(v[ls:i]) >= wrapWidth { // a wrap's width is in characters
				if s, e, _ := readValue(v, i+1); e > s && s == i+1 && secretLooking(v[s:e]) && !placeholder(v[s:e]) {
					out = append(out, ctxSpan{i - len(RedactedToken), e})
				}
			}
			continue
		}
		if i >= len(v) || v[i] <= ' ' || strings.IndexByte(";,&\"'<>)]}|.:/=`\\", v[i]) >= 0 &&
			!(v[i] == '.' && i+1 < len(v) && glueByte(v[i+1]) && v[i+1] != '.') && !closerInValue(v, i) {
			continue // a full stop ends a sentence; ".Ds50F" goes on a token
		}
		if v[i] >= 0x80 {
			continue // a script without spaces goes on ("密码：[REDACTED]，请妥善保管"): a token's bytes are ASCII
		}
		if before := v[:i-len(RedactedToken)]; v[i] == '@' && (strings.HasSuffix(before, ":") || strings.HasSuffix(before, "//")) {
			if k := lastAtOfUserinfo(v, i); k > i {
				// "//[REDACTED]@BOeJ…@ch:9000": a host holds no '@', so up to
				// the last one the bytes are the password's (an unescaped '/'
				// in it ended the authority the first reading took).
				out = append(out, ctxSpan{i - len(RedactedToken), k})
			}
			continue // user:[REDACTED]@host: the host follows a userinfo
		}
		// The tail is read up to the next redaction, which reads its own:
		// the two spans meet and merge. Read through it, each redaction of
		// a text of many glued together read the rest of the text.
		w := v
		if next := strings.Index(v[i:], RedactedToken); next >= 0 {
			w = v[:i+next]
		}
		if closerInValue(v, i) {
			// The rest of the value, up to a blank, a quote or a comma:
			// its brackets are the password's.
			e := i
			for e < len(w) && e-i < maxValueLen && w[e] > ' ' && w[e] != '"' && w[e] != '\'' && w[e] != '`' && w[e] != ',' {
				e++
			}
			out = append(out, ctxSpan{i - len(RedactedToken), e})
			continue
		}
		if s, e, _ := readValue(w, i); e > s {
			if e = encodedTailEnd(w, &field, i-len(RedactedToken), s, e); e > s {
				out = append(out, ctxSpan{i - len(RedactedToken), e})
			}
		}
	}
	return out
}

// closerInValue: a closing bracket at v[i], right after a redaction, with a
// letter or digit glued after it, is inside the value the first layer cut
// there ("password = m{{h}o)p${e]…": the first layer's value ends at a
// '}'), not the end of a call or a block, which a blank, a quote or
// punctuation follows.
func closerInValue(v string, i int) bool {
	return (v[i] == '}' || v[i] == ')' || v[i] == ']') && i+1 < len(v) && alnum(v[i+1])
}

// lastAtOfUserinfo is the last '@' after v[i] (an '@') in the run up to a
// blank, a '/' or a quote, or 0 when the run holds none.
func lastAtOfUserinfo(v string, i int) int {
	at := 0
	for j := i + 1; j < len(v) && j-i < 256; j++ {
		c := v[j]
		if c <= ' ' || c == '/' || c == '"' || c == '\'' || c == '<' || c == '>' {
			break
		}
		if c == '@' {
			at = j
		}
	}
	return at
}

// encodedTailEnd is where the tail v[s:e], glued to the redaction at
// v[r:], ends: at the first form '+' or escaped blank or '&' in it when
// the field before the redaction is written in that encoding
// ("password+[REDACTED]+for+bob", "sshpass%20-p%20[REDACTED]%20ssh%20host",
// "password%3D[REDACTED]%26user%3Dbob"): there the value was read up to an
// encoded break, and a secret's own space, '+' or '&' would be escaped
// once more. In a field holding no such byte before the redaction
// ("password=[REDACTED]+def": the first layer stopped at a '+' of the
// password) the whole tail is the secret's. field has read v up to
// an earlier redaction, or not at all.
func encodedTailEnd(v string, field *formField, r, s, e int) int {
	form, esc := field.upTo(v, r)
	for p := s; p < e && (form || esc); p++ {
		if form && v[p] == '+' {
			return p
		}
		if esc && v[p] == '%' && p+2 < len(v) && isHex(v[p+1]) && isHex(v[p+2]) {
			if c := hexVal(v[p+1])<<4 | hexVal(v[p+2]); formBlank(c) || c == '&' {
				return p
			}
		}
	}
	return e
}

// formField reads a text's form fields (the runs between ' ', '\t', '\r',
// '\n' and '&') left to right: whether the field up to a position holds a
// '+' or a %XX escape. A text's redactions are read in order, so each
// byte is read once; read back from each redaction, a text of many
// redactions and no blank was read once per redaction (1 MiB of
// "password=a(" took 40 s).
type formField struct {
	at        int // v is read up to here
	form, esc bool
}

// upTo reads v up to r (at or after where it was read up to before) and
// reports the field's '+' and escape before r. An escape reaching r is
// none: r starts a redaction, whose '[' is no hex digit.
func (f *formField) upTo(v string, r int) (form, esc bool) {
	for ; f.at < r; f.at++ {
		switch c := v[f.at]; {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '&':
			f.form, f.esc = false, false
		case c == '+':
			f.form = true
		case c == '%' && f.at+2 < r && isHex(v[f.at+1]) && isHex(v[f.at+2]):
			f.esc = true
		}
	}
	return f.form, f.esc
}

// jwkMembers: in a JSON Web Key (a text with "kty"), the private members
// d, p, q, dp, dq, qi and a symmetric key's k.
func jwkMembers(v string) []ctxSpan {
	if !strings.Contains(v, `"kty"`) {
		return nil
	}
	var out []ctxSpan
	for _, m := range []string{`"d"`, `"k"`, `"p"`, `"q"`, `"dp"`, `"dq"`, `"qi"`} {
		for i := range after(v, m) {
			j := i
			for j < len(v) && (v[j] == ' ' || v[j] == ':') {
				j++
			}
			if s, e, quoted := readValue(v, j); quoted && e > s {
				out = append(out, ctxSpan{s, e})
			}
		}
	}
	return out
}

// protocolAuth: a protocol's AUTH verb in a transcript (Redis' AUTH
// [user] secret, SMTP's AUTH PLAIN/LOGIN data): the last word on its line,
// unless that is a mechanism's name (EHLO's "250-AUTH PLAIN LOGIN") or a
// plain word ("AUTH failed"). Typed at a prompt ("127.0.0.1:6379> AUTH",
// in either case: redis-cli reads "auth" too) or quoted as Redis' MONITOR
// logs a command ("AUTH" "default" "secret"), the last word of at most two
// is the secret whatever it looks like; MONITOR's quotes are kept.
func protocolAuth(v string) []ctxSpan {
	var out []ctxSpan
	read := func(i, at int, prompted bool) {
		if at > 0 && ctxKeyByte(v[at-1]) {
			return
		}
		var words [3][2]int
		n, ok := lineWords(v, i, words[:])
		if n == 0 || !ok {
			return
		}
		w := words[n-1]
		if prompted {
			w = words[min(n, 2)-1] // Redis: AUTH [username] password
		}
		if e := w[1] - 1; e > w[0] && v[w[0]] == '"' && v[e] == '"' {
			w = [2]int{w[0] + 1, e}
		}
		last := v[w[0]:w[1]]
		if placeholder(last) || !prompted && (saslMechanism(last) || sentenceWord(last)) {
			return
		}
		out = append(out, ctxSpan{w[0], w[1]})
	}
	for i := range after(v, "AUTH ") {
		at := i - len("AUTH ")
		read(i, at, at >= 2 && v[at-2:at] == "> ")
	}
	for i := range after(v, "> auth ") {
		read(i, i-len("auth "), true)
	}
	for i := range after(v, `"AUTH" `) {
		read(i, i-len(`"AUTH" `), true)
	}
	return out
}

// lineWords puts the bounds of the words (as strings.Fields splits them)
// of v[i:]'s line into words and returns how many; ok is false when the
// line holds more, and it reads no further than the word past them (a
// line of many AUTH was read to its end once for each: 32 KiB of
// `AUTH \"` took 0.5 s).
func lineWords(v string, i int, words [][2]int) (n int, ok bool) {
	for j := i; ; {
		s, e := fieldAt(v, j)
		if s == len(v) || strings.IndexByte(v[j:s], '\n') >= 0 {
			return n, true // the line ends before another word
		}
		if n == len(words) {
			return n, false
		}
		words[n] = [2]int{s, e}
		n++
		j = e
	}
}

// smtpLoginPasswords: SMTP's AUTH LOGIN, where the server's challenge
// "334 UGFzc3dvcmQ6" is "Password:" in base64 and the client's next line is
// the password in base64, whole. Read by its challenge, not by the look
// of the answer: base64 of a short password has too little entropy to
// read as a token ("YWxpY2U6U2NNNUxEYUNRRUI=").
func smtpLoginPasswords(v string) []ctxSpan {
	var out []ctxSpan
	for i := range after(v, "334 ") {
		le := lineEnd(v, i)
		d, ok := decodeBase64(strings.TrimSpace(v[i:le]))
		if !ok || le >= len(v) || !strings.EqualFold(strings.TrimSpace(string(d)), "password:") {
			continue
		}
		line := v[le+1 : lineEnd(v, le+1)]
		w := strings.TrimSpace(line)
		if w != "" && w != "*" && !strings.ContainsAny(w, " \t") && !placeholder(w) {
			s := le + 1 + strings.Index(line, w)
			out = append(out, ctxSpan{s, s + len(w)})
		}
	}
	return out
}

// saslMechanism reports whether s has a SASL mechanism name's shape (RFC
// 4422, section 3.1: 1 to 20 upper-case letters, digits, '-' and '_') as
// registered names use it: each part letters then digits (PLAIN, CRAM-MD5,
// SCRAM-SHA-256, GS2-KRB5), a single part ending in one digit at most
// (XOAUTH2). An upper-case token with digits inside ("HUNTER22X",
// "A1B2C3D4") is no mechanism's name.
func saslMechanism(s string) bool {
	if s == "" || len(s) > 20 {
		return false
	}
	single := !strings.Contains(s, "-")
	for part := range strings.SplitSeq(s, "-") {
		d := len(strings.TrimRight(part, "0123456789"))
		if part == "" || d == 0 && single || single && len(part)-d > 1 {
			return false
		}
		for i := 0; i < d; i++ {
			if !isUpper(part[i]) && part[i] != '_' {
				return false
			}
		}
	}
	return true
}

// sentenceWord reports whether s is one word of letters as a sentence has
// it, lower case or capitalised, up to 20 letters ("failed", "Required"):
// not a camel-cased run ("AhurpkiNul"), which a password can be.
func sentenceWord(s string) bool {
	return commonWord(s) || s != "" && isUpper(s[0]) && commonWord(s[1:])
}

// wifiPasswords reads the P: field of each Wi-Fi QR payload (starts, from
// scanView), the format phones read: "WIFI:T:WPA;S:name;P:password;;",
// fields in any order, ';' and '\\' escaped with '\\'. A payload is read
// for at most its first five fields of 130 bytes each (an SSID is at most
// 32 bytes, a WPA passphrase 63), so a text of "WIFI:" repeated costs a
// few bytes at each.
func wifiPasswords(v string, starts []int) []ctxSpan {
	var out []ctxSpan
	for _, i := range starts {
		for field := 0; field < 5 && i < len(v); field++ {
			e := i
			for e < len(v) && e-i < 130 && v[e] != ';' && v[e] != '\n' {
				if v[e] == '\\' {
					e++ // an escaped byte
				}
				e++
			}
			if e >= len(v) || v[e] != ';' {
				break // not a field: no payload, or the payload ends
			}
			if e-i > 2 && v[i] == 'P' && v[i+1] == ':' {
				out = append(out, ctxSpan{i + 2, e})
				break
			}
			i = e + 1
		}
	}
	return out
}

// echoReaders read a password from their standard input: an echo piped
// into one gives it the password ("passwd" stands for passwd --stdin,
// chpasswd, smbpasswd -s and vncpasswd -f as well).
var echoReaders = []string{"sudo -S", "-stdin", "passwd", "--with-token", "kinit",
	// Secret stores that read the secret's value on standard input.
	"docker secret create", "gcloud secrets", "kubectl create secret", "gh secret set", "wrangler secret put", "vercel env add"}

// echoedIntoLogin: echo SECRET (or printf) | a command that reads a
// password on its standard input (sudo -S, docker login --password-stdin,
// passwd --stdin, chpasswd, kinit).
func echoedIntoLogin(v string) []ctxSpan {
	if strings.IndexByte(v, '|') < 0 {
		return nil // no pipe: no line below reads one
	}
	out := pipedInto(v, "echo ", nil)
	return pipedInto(v, "printf ", out)
}

// pipedInto appends the values that command (echo or printf) pipes into
// one of echoReaders on its line. Its options are passed over, and so is
// printf's format when it has a verb (printf '%s\n' SECRET); a format
// without one is the value itself.
func pipedInto(v, command string, out []ctxSpan) []ctxSpan {
	// Each line's end, its last reader's name (-1 when none) and the next
	// pipe, found once: read again for each echo, a line of many was read
	// to its end once for each (32 KiB of "echo |a(" took 58 ms).
	le, lastReader, pipe := -1, -1, -1
	for i := range after(v, command) {
		if i > le {
			le = lineEnd(v, i)
			lastReader = -1
			for _, r := range echoReaders {
				if k := strings.LastIndex(v[i:le], r); k >= 0 {
					lastReader = max(lastReader, i+k)
				}
			}
		}
		if pipe < i {
			pipe = le
			if k := strings.IndexByte(v[i:le], '|'); k >= 0 {
				pipe = i + k
			}
		}
		if pipe == le || lastReader < pipe {
			continue // no pipe, or no reader after it
		}
		s, e, _ := readValue(v, i)
		for n := 0; n < 2 && e > s && e < pipe && echoOption(v[s:e]); n++ {
			s, e, _ = readValue(v, skipSpaces(v, e, false)) // echo -n, echo -e
		}
		if command == "printf " && e > s && e < pipe && strings.IndexByte(v[s:e], '%') >= 0 {
			s, e, _ = readValue(v, skipSpaces(v, e+1, false)) // past the format's closing quote
		}
		if e > s && e <= pipe && !placeholder(v[s:e]) {
			out = append(out, ctxSpan{s, e})
		}
	}
	return out
}

// optionWord: a command's option, one or two dashes and a lower-case
// word ("-stdin", "--expire", "--password-stdin").
func optionWord(s string) bool {
	w := strings.TrimPrefix(strings.TrimPrefix(s, "-"), "-")
	if len(w) == len(s) || w == "" {
		return false
	}
	for i := 0; i < len(w); i++ {
		if c := w[i]; !('a' <= c && c <= 'z' || c == '-' && i > 0) {
			return false
		}
	}
	return true
}

// echoOption: one of echo's options (-n, -e, -E, or several together).
func echoOption(s string) bool {
	if len(s) < 2 || s[0] != '-' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if s[i] != 'n' && s[i] != 'e' && s[i] != 'E' {
			return false
		}
	}
	return true
}

// insertedValue is the value SQL's INSERT gives the column named at
// v[ks:ke] ("INSERT INTO users (name, password) VALUES ('ana', 'VALUE')"):
// the column's place in the list, the value at the same place in the one
// after VALUES. A query parameter (?, $2, %s, :password, @pw) is no value,
// unless the error quotes the parameters after the statement, as
// SQLAlchemy's do ("VALUES (?, ?)] [parameters: ('ana', 'VALUE')]"). The
// same places in PostgreSQL's DETAIL of a key ("Key (email, password)=(ana@x.io,
// VALUE) already exists."). Each list is read within sqlReach bytes, and
// a text's first maxInsertReads such keys only (budget counts them down):
// a text of "(password," repeated would otherwise be read back and forth
// at every one.
func insertedValue(v string, ks, ke int, budget *int) (ctxSpan, bool) {
	i := skipSpaces(v, ke, false)
	if i >= len(v) || v[i] != ',' && v[i] != ')' || *budget <= 0 {
		return ctxSpan{}, false
	}
	*budget--
	open := strings.LastIndexByte(v[max(0, ks-sqlReach):ks], '(')
	if open < 0 {
		return ctxSpan{}, false
	}
	open += max(0, ks-sqlReach)
	if strings.ContainsAny(v[open:ks], ")\n") {
		return ctxSpan{}, false
	}
	column := strings.Count(v[open:ks], ",")
	end := strings.IndexByte(v[ks:min(len(v), ks+sqlReach)], ')')
	if end < 0 {
		return ctxSpan{}, false
	}
	j := ks + end + 1
	if strings.HasPrefix(v[j:], "=(") {
		// PostgreSQL's DETAIL: its values unquoted, as the key holds them.
		s, e, ok := sqlItemAt(v, j+1, column)
		if !ok || e <= s || placeholder(v[s:e]) {
			return ctxSpan{}, false
		}
		return ctxSpan{s, e}, true
	}
	if j = skipSpaces(v, j, false); !hasFoldPrefix(v[j:], "values") {
		return ctxSpan{}, false
	}
	if j = skipSpaces(v, j+len("values"), false); j >= len(v) || v[j] != '(' {
		return ctxSpan{}, false
	}
	s, e, ok := sqlItemAt(v, j, column)
	if !ok {
		return ctxSpan{}, false
	}
	item := v[s:e]
	if e > s && strings.IndexByte("?$%:@", v[s]) >= 0 {
		// A parameter: the value is the one the error quotes at its place.
		k := strings.Index(v[e:min(len(v), e+sqlReach)], "[parameters: ")
		if k < 0 {
			return ctxSpan{}, false
		}
		p := e + k + len("[parameters: ")
		if p >= len(v) || v[p] != '(' && v[p] != '[' {
			return ctxSpan{}, false
		}
		if s, e, ok = sqlItemAt(v, p, column); !ok {
			return ctxSpan{}, false
		}
		item = v[s:e]
	} else if q := strings.IndexAny(item, "'\""); q > 0 {
		// A function of the value, crypt('VALUE', gen_salt('bf')):
		// its first string.
		s += q
	}
	if qs, qe, quoted := readValue(v, s); quoted && qe <= e {
		s, e = qs, qe
	} else if e <= s || strings.IndexByte("?$%:@", v[s]) >= 0 || strings.EqualFold(item, "null") || strings.EqualFold(item, "None") {
		return ctxSpan{}, false
	}
	if placeholder(v[s:e]) {
		return ctxSpan{}, false
	}
	return ctxSpan{s, e}, true
}

// sqlItemAt is the column-th item (from 0) of the list that opens at v[j]
// ('(' or '['), read within sqlReach bytes.
func sqlItemAt(v string, j, column int) (start, end int, ok bool) {
	limit := min(len(v), j+sqlReach)
	for j++; ; column-- {
		s, e, next := sqlListItem(v[:limit], j)
		if column == 0 {
			return s, e, true
		}
		if next < 0 || v[next] != ',' {
			return 0, 0, false
		}
		j = next + 1
	}
}

// comparedReach bounds the string comparedWith reads back.
const comparedReach = 256

// comparedWith is the string code compares a credential's name (at
// v[ks:ke]) with, where the string comes first or the comparison is a
// test's: `if ("VALUE" == password)` (==, !=, ===, !==), JUnit's
// assertEquals("VALUE", password) (the expected value first), Jest's
// expect(password).toBe("VALUE") and toEqual, the lines a failing test's
// report quotes. After a weaker word, only a string that could be a secret.
func comparedWith(v string, ks, ke int, strong bool) (ctxSpan, bool) {
	var s, e int
	if rest := v[ke:]; strings.HasPrefix(rest, ").toBe(") || strings.HasPrefix(rest, ").toEqual(") {
		qs, qe, quoted := readValue(v, strings.IndexByte(rest[1:], '(')+ke+2)
		if !quoted {
			return ctxSpan{}, false
		}
		s, e = qs, qe
	} else {
		j := ks
		for j > 0 && v[j-1] == ' ' {
			j--
		}
		op := j
		for op > 0 && j-op < 3 && (v[op-1] == '=' || v[op-1] == '!') {
			op--
		}
		asserted := false
		switch v[op:j] {
		case "==", "!=", "===", "!==":
		default:
			if j == 0 || v[j-1] != ',' {
				return ctxSpan{}, false
			}
			op, asserted = j-1, true
		}
		for op > 0 && v[op-1] == ' ' {
			op--
		}
		if op == 0 || v[op-1] != '"' && v[op-1] != '\'' {
			return ctxSpan{}, false
		}
		e = op - 1
		from := max(0, e-comparedReach)
		k := strings.LastIndexByte(v[from:e], v[e])
		if k < 0 {
			return ctxSpan{}, false
		}
		s = from + k + 1
		if strings.IndexByte(v[s:e], '\n') >= 0 {
			return ctxSpan{}, false
		}
		if asserted && (s < 2 || v[s-2] != '(' || !strings.Contains(strings.ToLower(v[max(0, s-24):s-2]), "assert")) {
			return ctxSpan{}, false // the first argument of an assertion only
		}
	}
	if val := v[s:e]; e <= s || placeholder(val) || !strong && !secretLooking(val) {
		return ctxSpan{}, false
	}
	return ctxSpan{s, e}, true
}

// calledWith is the secret a credential's name is called with, its key
// ending at v[ke] ("ssh.Password(\"VALUE\")", "BasicAuth(\"ana\",
// \"VALUE\")", "new NetworkCredential(\"ana\", \"VALUE\")", Python's
// "auth=('ana', 'VALUE')"): the last string among the arguments; after a
// weaker word, only one that follows another (the user's name) and could
// be a secret. A list is read within sqlReach bytes, and a text's first
// budget such names only (insertedValue's budget, shared).
func calledWith(v string, ke int, strong bool, budget *int) (ctxSpan, bool) {
	j := ke
	if k := skipSpaces(v, j, false); k < len(v) && v[k] == '=' {
		j = skipSpaces(v, k+1, false) // a tuple: auth=("ana", "VALUE")
	}
	if j >= len(v) || v[j] != '(' || *budget <= 0 {
		return ctxSpan{}, false
	}
	*budget--
	limit := min(len(v), j+sqlReach)
	var last ctxSpan
	strs := 0
	for k := j + 1; ; {
		s, e, next := sqlListItem(v[:limit], k)
		if next < 0 {
			return ctxSpan{}, false
		}
		if qs, qe, quoted := readValue(v, s); quoted && qe+1 == e {
			last, strs = ctxSpan{qs, qe}, strs+1
		}
		if v[next] == ')' {
			break
		}
		k = next + 1
	}
	if strs == 0 || !strong && strs < 2 {
		return ctxSpan{}, false
	}
	val := v[last.start:last.end]
	if t := strings.TrimSpace(val); t == "" || placeholder(val) || strings.HasSuffix(t, ":") || strings.Count(t, " ") >= 2 ||
		!strong && !secretLooking(val) && (len(val) < 8 || plainTerm(val)) {
		// A prompt (getpass("Password: ")) or a message of three words
		// or more (a call's argument is seldom a passphrase) is no secret.
		return ctxSpan{}, false
	}
	return last, true
}

// sqlReach bounds the bytes insertedValue reads of each list, and
// maxInsertReads the lists it reads in a text.
const (
	sqlReach       = 1024
	maxInsertReads = 64
)

// sqlListItem reads the item of a parenthesized SQL list that starts at
// v[j:]: its bytes, blanks trimmed, and the index of the ',' or ')' that
// ends it (-1 when the line ends first). Strings and parentheses inside it
// are its own.
func sqlListItem(v string, j int) (start, end, next int) {
	start = skipSpaces(v, j, false)
	depth := 0
	for i := start; i < len(v) && v[i] != '\n'; i++ {
		switch c := v[i]; c {
		case '\'', '"':
			k := strings.IndexByte(v[i+1:], c)
			if k < 0 {
				return start, start, -1
			}
			i += k + 1
		case '(':
			depth++
		case ')', ',':
			if depth > 0 {
				if c == ')' {
					depth--
				}
				continue
			}
			return start, start + len(strings.TrimRight(v[start:i], " ")), i
		}
	}
	return start, start, -1
}

// sqlPasswords: SQL's IDENTIFIED BY 'secret' and SET PASSWORD ... = 'secret'.
func sqlPasswords(v string) []ctxSpan {
	var out []ctxSpan
	for _, phrase := range []string{"identified by ", "set password "} {
		for off := 0; off < len(v); {
			k := indexFold(v[off:], phrase)
			if k < 0 {
				break
			}
			j := off + k + len(phrase)
			off = j
			if phrase == "set password " {
				le := strings.IndexByte(v[j:], '\n')
				if le < 0 {
					le = len(v) - j
				}
				eq := strings.Index(v[j:j+le], "= ")
				if eq < 0 {
					continue
				}
				j += eq + 2
			}
			if s, e, _ := readValue(v, j); e > s && !placeholder(v[s:e]) {
				out = append(out, ctxSpan{s, e})
			}
		}
	}
	return out
}

// foreignPasswordWords are the password in the languages whose word for it
// is not ASCII (Russian, Chinese, Japanese, Korean, Spanish, Polish,
// Turkish, Swedish, Hungarian, Vietnamese), as a label writes it, in lower
// case, capitalised and in capitals: which the key readers, ASCII's,
// cannot take for a key.
var foreignPasswordWords = func() []string {
	var out []string
	for _, w := range []string{"пароль", "密码", "密碼", "口令", "パスワード", "비밀번호", "contraseña", "hasło", "şifre",
		"lösenord", "jelszó", "mật khẩu"} {
		r, n := utf8.DecodeRuneInString(w)
		for _, v := range []string{w, string(unicode.ToUpper(r)) + w[n:], strings.ToUpper(w)} {
			if !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
	}
	return out
}()

// foreignLabels are foreignPasswordWords by the first two bytes of their
// first rune that is not ASCII (foreignRune), with where that rune stands in
// the word: scanView meets every byte such a rune starts with, as a byte
// but glue, and tries only the words the rune can be part of (an ASCII
// text pays nothing; French's é, a C3 as ñ and ö are, none).
var foreignLabels, foreignLeads = func() (t [2048][]foreignLabel, leads [256]bool) {
	for _, w := range foreignPasswordWords {
		at := strings.IndexFunc(w, func(r rune) bool { return r >= utf8.RuneSelf })
		t[foreignRune(w[at], w[at+1])] = append(t[foreignRune(w[at], w[at+1])], foreignLabel{w, at})
		leads[w[at]] = true
	}
	return t, leads
}()

// foreignRune keys a rune by its lead byte's low five bits and its next
// byte's low six: the two bytes every rune of foreignPasswordWords differs
// by.
func foreignRune(lead, next byte) int { return int(lead&0x1f)<<6 | int(next&0x3f) }

type foreignLabel struct {
	word string
	at   int // the index of its first rune that is not ASCII
}

// foreignLabel records the end of each foreignPasswordWords label whose
// first rune that is not ASCII starts at v[i].
func (out *viewScan) foreignLabel(v string, i int) {
	if i+1 >= len(v) {
		return
	}
	for _, l := range foreignLabels[foreignRune(v[i], v[i+1])] {
		if s := i - l.at; s >= 0 && strings.HasPrefix(v[s:], l.word) {
			out.foreign = append(out.foreign, s+len(l.word))
		}
	}
}

// foreignPasswords: the value after each foreignPasswordWords label that
// ends at one of ends ("пароль: VALUE", "密码：VALUE", "contraseña=VALUE").
// A value in the label's own script is a sentence about the password
// ("密码: 错误"), not one.
func foreignPasswords(v string, ends []int) []ctxSpan {
	var out []ctxSpan
	for _, end := range ends {
		j := skipSpaces(v, end, false)
		switch {
		case strings.HasPrefix(v[j:], "："): // a full-width colon
			j += len("：")
		case j < len(v) && (v[j] == ':' || v[j] == '='):
			j++
		default:
			continue
		}
		j = skipSpaces(v, j, false)
		w := v
		if !opensQuote(v, j) {
			// The label's script ends an unquoted value: it is read no
			// further (a text of such labels was read 4 KiB past each).
			for k := j; k < len(v); k++ {
				if v[k] >= 0x80 {
					w = v[:k]
					break
				}
			}
		}
		s, e, quoted := readValue(w, j)
		if !quoted {
			// The label's script ends the value, and its punctuation
			// ("VALUE，请妥善保管", read as "VALUE,请…" once decoded).
			for k := s; k < e; k++ {
				if v[k] >= 0x80 {
					e = k
					break
				}
			}
			e = s + len(strings.TrimRight(v[s:e], ",.;"))
		}
		if e <= s || v[s] >= 0x80 || placeholder(v[s:e]) || !quoted && commonWord(v[s:e]) {
			continue
		}
		out = append(out, ctxSpan{s, e})
	}
	return out
}

// secureStringCmdlet is PowerShell's ConvertTo-SecureString, in the lower
// case indexFold and hasFoldPrefix compare with.
const secureStringCmdlet = "convertto-securestring"

// secureStrings: the plain text PowerShell's ConvertTo-SecureString turns
// into a SecureString when its -AsPlainText switch says the text is the
// secret itself ("ConvertTo-SecureString 'VALUE' -AsPlainText -Force",
// the -String parameter named or not). A variable ($plain) or a
// subexpression is no secret of its own. The cmdlet's name, between a
// space, a parenthesis or a module's backslash and the space before its
// argument, is one of scanView's glue runs, whole.
func secureStrings(v string, glue []ctxSpan) []ctxSpan {
	var out []ctxSpan
	for _, g := range glue {
		if g.end-g.start != len(secureStringCmdlet) || !hasFoldPrefix(v[g.start:], secureStringCmdlet) {
			continue
		}
		i := g.end
		line := v[i:]
		if nl := strings.IndexByte(line, '\n'); nl >= 0 {
			line = line[:nl]
		}
		if indexFold(line, "-asplaintext") < 0 {
			continue
		}
		j := skipSpaces(v, i, false)
		if hasFoldPrefix(v[j:], "-string ") {
			j = skipSpaces(v, j+len("-string "), false)
		}
		if s, e, _ := readValue(v, j); e > s && !strings.ContainsRune("$(-", rune(v[s])) && !placeholder(v[s:e]) {
			out = append(out, ctxSpan{s, e})
		}
	}
	return out
}

// passwordCalls are calls that take a password at a place among their
// arguments and name it with no key. A call is known by how its name ends,
// its receiver aside (a key run goes on through '.').
var passwordCalls = []struct {
	name string // how the call's name ends; '(' follows it
	arg  int    // the password's argument, counted from 0
}{
	{"ftp_login", 2},              // PHP: ftp_login($ftp, $user, $password), as its stack trace quotes it
	{"login", 1},                  // Python's smtplib, ftplib and imaplib: server.login(user, password), the line a traceback quotes
	{".auth", 1},                  // MongoDB's shell: db.auth(user, password) (calledWith reads "auth" only after a quoted user)
	{"getConnection", 2},          // JDBC: DriverManager.getConnection(url, user, password)
	{"Credentials.basic", 1},      // OkHttp: Credentials.basic(user, password)
	{"PasswordAuthentication", 1}, // java.net: new PasswordAuthentication(user, password.toCharArray())
	// MySQL's and PDO's connections, as code makes them and as PHP's stack
	// trace quotes them ("#0 db.php(3): mysqli->__construct('localhost',
	// 'root', 'VALUE', 'shop')"); Python's MySQLdb and PyMySQL by place.
	{"mysqli_connect", 2},
	{"mysql_connect", 2},
	{"mysqli_real_connect", 3},
	{"mysqli->__construct", 2},
	{"new mysqli", 2},
	{"PDO->__construct", 2},
	{"new PDO", 2},
	{"MySQLdb.connect", 2},
	{"pymysql.connect", 2},
}

// passwordCallArgs reads the passwords of passwordCalls (calls, from
// scanView): the argument at its place when it is a string (with Java's
// .toCharArray() after it); a variable, a placeholder or an empty string
// is none. Each list is read within sqlReach bytes, and a text's first
// maxInsertReads calls only.
func passwordCallArgs(v string, calls [][2]int) []ctxSpan {
	var out []ctxSpan
	for _, call := range calls[:min(len(calls), maxInsertReads)] {
		arg, limit := passwordCalls[call[0]].arg, min(len(v), call[1]+sqlReach)
		for n, k := 0, call[1]; ; n++ {
			s, e, next := sqlListItem(v[:limit], k)
			if next < 0 {
				break
			}
			if n == arg {
				qs, qe, quoted := readValue(v, s)
				if quoted && qe > qs && (qe+1 == e || v[qe+1:e] == ".toCharArray()") && !placeholder(v[qs:qe]) {
					out = append(out, ctxSpan{qs, qe})
				}
				break
			}
			if v[next] == ')' {
				break
			}
			k = next + 1
		}
	}
	return out
}

// opensQuote reports whether v[i] opens what readValue reads as quoted.
func opensQuote(v string, i int) bool {
	return i < len(v) && strings.IndexByte("\"'`{", v[i]) >= 0
}

// mixedCaseWord: a single run of 8 or more letters with a capital inside
// it, after a password word in prose ("with password ZFmmhMycvs for
// app"): a sentence names a password with a word, not an identifier.
func mixedCaseWord(s string) bool {
	if len(s) < 8 {
		return false
	}
	k := classesOf(s)
	if k.digit || k.sym || !k.lower {
		return false
	}
	for i := 1; i < len(s); i++ {
		if isUpper(s[i]) {
			return true
		}
	}
	return false
}

// camelNoise: letters of both cases in which some capital starts a part of
// at most two letters ("imvCuZdVizbg", "bbunaewZhbYr"), as random letters
// do and an identifier's words ("getUserName") do not. Read only where a
// password is expected.
func camelNoise(s string) bool {
	if len(s) < 8 {
		return false
	}
	k := classesOf(s)
	if k.digit || k.sym || !k.upper || !k.lower {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isUpper(s[i]) {
			continue
		}
		j := i + 1
		for j < len(s) && !isUpper(s[j]) {
			j++
		}
		if j-i <= 2 {
			return true
		}
	}
	return false
}
