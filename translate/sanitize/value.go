package sanitize

import (
	"html"
	"math"
	"slices"
	"strconv"
	"strings"

	"google.golang.org/protobuf/types/known/structpb"
)

// Limits bound a structured value. A field that is zero or negative takes
// its value from DefaultLimits, so Limits{} means DefaultLimits.
type Limits struct {
	StringCap int // runes per string (Text's cap), keys included
	MaxDepth  int // nesting depth of objects and lists; the top-level one is at depth 1
	MaxItems  int // entries kept per object (in key order) or list (in order)
	MaxBytes  int // compact JSON size of the whole result
}

// DefaultLimits are the limits errsvc uses for structured evidence.
var DefaultLimits = Limits{StringCap: 4096, MaxDepth: 8, MaxItems: 64, MaxBytes: 8192}

// TruncatedToken replaces an object or list nested deeper than MaxDepth, and
// names the single field of a Struct that had to be replaced by its text.
const TruncatedToken = "[TRUNCATED]"

func (l Limits) withDefaults() Limits {
	if l.StringCap <= 0 {
		l.StringCap = DefaultLimits.StringCap
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultLimits.MaxDepth
	}
	if l.MaxItems <= 0 {
		l.MaxItems = DefaultLimits.MaxItems
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultLimits.MaxBytes
	}
	return l
}

// Value returns a sanitised copy of v; v itself is never changed.
//
//   - Every string, and every object key, goes through Text with
//     lim.StringCap; only the placeholders "[REDACTED]" and "[TRUNCATED]"
//     are kept whole. Keys that become equal keep the first in
//     key order.
//   - An object key whose name is secret-like (ASCII case-insensitive,
//     ignoring '-', '_', '.' and ' ': authorization, api_key, token,
//     access_token, refresh_token, id_token, secret, client_secret, password,
//     passwd, cookie, set_cookie, private_key, x_api_key, session,
//     credentials, and more generally the key names Text redacts, such as
//     anything ending in token, secret, password or apikey; not paging
//     cursors such as nextPageToken) gets the string "[REDACTED]" as its
//     value when that value is a string that may be a credential. An object
//     or list under such a key is walked like any other (its own keys
//     decide); numbers, booleans, null and plainly non-secret strings (empty,
//     enum-like words such as "pause_required", numbers of up to 5 digits,
//     sentences of plain words) pass through Text. Any redaction sets
//     Report.Redacted, which callers surface as a note.
//   - An object or list nested deeper than lim.MaxDepth becomes the string
//     "[TRUNCATED]"; an object keeps its first lim.MaxItems keys in sorted
//     order and a list its first lim.MaxItems items (Truncated).
//   - When the compact JSON of the result is longer than lim.MaxBytes, the
//     value is replaced by a string holding the sanitised JSON text, cut
//     with Text so that the string's own JSON encoding fits lim.MaxBytes
//     (a top-level string is cut itself rather than JSON-quoted). Only when
//     lim.MaxBytes is below 17 does nothing fit; the string "[TRUNCATED]" is
//     used then.
//   - A Value without a kind, or a nil item, becomes null; NaN and ±Inf stay
//     numbers (the size counts them as the strings "NaN", "Infinity").
//
// Value is idempotent: Value(Value(v)) equals Value(v). A nil v gives nil.
func Value(v *structpb.Value, lim Limits) (*structpb.Value, Report) {
	if v == nil {
		return nil, Report{}
	}
	lim = lim.withDefaults()
	w := walker{lim: lim, budget: lim.MaxBytes}
	out := w.value(v, 1)
	if !w.over {
		return out, w.rep
	}
	var src string
	if sv, ok := v.GetKind().(*structpb.Value_StringValue); ok {
		src = sv.StringValue
	} else {
		src = w.partialJSON(v)
	}
	w.rep.Truncated = true
	return structpb.NewStringValue(fitString(src, lim, lim.MaxBytes)), w.rep
}

// Struct is Value for an object. When its JSON is longer than lim.MaxBytes
// the result is the object {"[TRUNCATED]": "<sanitised, cut JSON text>"},
// sized to fit lim.MaxBytes. A nil s gives nil.
func Struct(s *structpb.Struct, lim Limits) (*structpb.Struct, Report) {
	if s == nil {
		return nil, Report{}
	}
	lim = lim.withDefaults()
	w := walker{lim: lim, budget: lim.MaxBytes}
	out := w.object(s, 1, w.member)
	if !w.over {
		return out, w.rep
	}
	src := w.partialJSON(structpb.NewStructValue(s))
	w.rep.Truncated = true
	// {"[TRUNCATED]":<string>} costs 16 bytes around the string.
	overhead := 3 + jsonStringLen(TruncatedToken)
	text := fitString(src, lim, lim.MaxBytes-overhead)
	return &structpb.Struct{Fields: map[string]*structpb.Value{
		TruncatedToken: structpb.NewStringValue(text),
	}}, w.rep
}

// fitString returns Text(src, r) for the largest r it finds (at most
// lim.StringCap) whose JSON string encoding fits maxBytes. Every such
// result is a fixed point of Text(·, lim.StringCap).
func fitString(src string, lim Limits, maxBytes int) string {
	r := lim.StringCap
	if maxBytes < r {
		r = maxBytes
	}
	if r < 0 {
		r = 0
	}
	for iter := 0; iter < 64; iter++ {
		s := Text(src, r)
		size := jsonStringLen(s)
		if size <= maxBytes {
			return s
		}
		if r == 0 {
			break
		}
		r -= size - maxBytes
		if r < 0 {
			r = 0
		}
	}
	return TruncatedToken
}

// partialJSON sanitises v again with a byte budget large enough for Text to
// see everything it may keep, and renders the (possibly partial) result.
func (w *walker) partialJSON(v *structpb.Value) string {
	n := w.lim.StringCap
	if w.lim.MaxBytes < n {
		n = w.lim.MaxBytes
	}
	w2 := walker{lim: w.lim, budget: 4*n + 64}
	t := w2.value(v, 1)
	var sb strings.Builder
	writeJSON(&sb, t)
	return sb.String()
}

// walker builds the sanitised copy and counts its compact JSON size; once
// the size passes the budget it stops adding entries (over). The copy is
// made on write: a node that sanitising leaves as it was is returned
// itself, not copied, so a clean Struct costs a walk and no allocation. The
// result may therefore share nodes with the input; neither is mutated.
type walker struct {
	lim    Limits
	rep    Report
	budget int
	used   int
	over   bool
}

func (w *walker) add(n int) {
	w.used += n
	if w.used > w.budget {
		w.over = true
	}
}

func (w *walker) str(s string) *structpb.Value {
	w.add(jsonStringLen(s))
	return structpb.NewStringValue(s)
}

// keep counts v, an unchanged string node, and returns it.
func (w *walker) keep(v *structpb.Value, s string) *structpb.Value {
	w.add(jsonStringLen(s))
	return v
}

func (w *walker) value(v *structpb.Value, depth int) *structpb.Value {
	switch k := v.GetKind().(type) {
	case *structpb.Value_StringValue:
		if k.StringValue == RedactedToken || k.StringValue == TruncatedToken {
			return w.keep(v, k.StringValue) // this package's own placeholders stay whole
		}
		s, rep := TextReport(k.StringValue, w.lim.StringCap)
		w.rep.merge(rep)
		if s == k.StringValue {
			return w.keep(v, s)
		}
		return w.str(s)
	case *structpb.Value_NumberValue:
		w.add(len(formatNumber(k.NumberValue)))
		return v
	case *structpb.Value_BoolValue:
		if k.BoolValue {
			w.add(4)
		} else {
			w.add(5)
		}
		return v
	case *structpb.Value_StructValue:
		if depth > w.lim.MaxDepth {
			w.rep.Truncated = true
			return w.str(TruncatedToken)
		}
		if out := w.object(k.StructValue, depth, w.member); out != k.StructValue {
			return structpb.NewStructValue(out)
		}
		return v
	case *structpb.Value_ListValue:
		if depth > w.lim.MaxDepth {
			w.rep.Truncated = true
			return w.str(TruncatedToken)
		}
		if out := w.list(k.ListValue, depth, w.value); out != k.ListValue {
			return structpb.NewListValue(out)
		}
		return v
	case *structpb.Value_NullValue:
		w.add(4)
		return v
	default: // no kind, nil
		w.add(4)
		return structpb.NewNullValue()
	}
}

// object returns st itself when nothing in it changes; each entry's value
// is what member makes of it under its (sanitised) key: w.member, or
// secretItem in a mapping of passwords.
func (w *walker) object(st *structpb.Struct, depth int, member func(key string, v *structpb.Value, depth int) *structpb.Value) *structpb.Struct {
	fields := st.GetFields()
	var small [8]string
	keys := small[:0]
	for k := range fields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	// out stays nil while the result is st itself, i.e. every entry so far
	// is kept, unchanged, under its own key; the first difference copies
	// the entries before it.
	var out map[string]*structpb.Value
	copyBefore := func(i int) {
		out = make(map[string]*structpb.Value, min(len(keys), w.lim.MaxItems))
		for _, k := range keys[:i] {
			out[k] = fields[k]
		}
	}
	w.add(2)
	n := 0
	for i, k := range keys {
		if w.over {
			if out == nil {
				copyBefore(i)
			}
			break
		}
		if n == w.lim.MaxItems {
			w.rep.Truncated = true
			if out == nil {
				copyBefore(i)
			}
			break
		}
		sk := k
		if k != RedactedToken && k != TruncatedToken {
			var rep Report
			sk, rep = TextReport(k, w.lim.StringCap)
			w.rep.merge(rep)
		}
		if sk != k && out == nil {
			copyBefore(i)
		}
		if out != nil {
			if _, dup := out[sk]; dup {
				continue // the key changed (rep says how) and collides: first wins
			}
		}
		if n > 0 {
			w.add(1)
		}
		w.add(jsonStringLen(sk) + 1)
		v := member(sk, fields[k], depth+1)
		if out == nil && v != fields[k] {
			copyBefore(i)
		}
		if out != nil {
			out[sk] = v
		}
		n++
	}
	if out == nil {
		return st
	}
	return &structpb.Struct{Fields: out}
}

// member is an object entry's value v under key: redacted when the key
// names a secret and v may be one (redactByKey); under a key that can only
// hold secrets, each string or number of a list (passwords: ["…", "…"]),
// and of a mapping of passwords, each member's ({"passwords": {"admin":
// "…"}}, whose names are whose, not what, each value is); otherwise
// walked: objects and lists by their own keys, numbers, booleans and plain
// words through Text.
func (w *walker) member(key string, v *structpb.Value, depth int) *structpb.Value {
	switch {
	case redactByKey(key, v):
		w.rep.Redacted = true
		return w.str(RedactedToken)
	case v.GetListValue() != nil && strongSecretKey(key):
		if out := w.list(v.GetListValue(), depth, w.secretItem); out != v.GetListValue() {
			return structpb.NewListValue(out)
		}
		return v
	case v.GetStructValue() != nil && listOfPasswords(key):
		if depth > w.lim.MaxDepth {
			return w.value(v, depth)
		}
		secret := func(_ string, m *structpb.Value, depth int) *structpb.Value { return w.secretItem(m, depth) }
		if out := w.object(v.GetStructValue(), depth, secret); out != v.GetStructValue() {
			return structpb.NewStructValue(out)
		}
		return v
	}
	return w.value(v, depth)
}

// list returns l itself when nothing in it changes; each item is what
// item makes of it (value, or secretItem under a key naming secrets).
func (w *walker) list(l *structpb.ListValue, depth int, item func(*structpb.Value, int) *structpb.Value) *structpb.ListValue {
	items := l.GetValues()
	var out []*structpb.Value
	w.add(2)
	n := 0
	for i, it := range items {
		if w.over {
			break
		}
		if i == w.lim.MaxItems {
			w.rep.Truncated = true
			break
		}
		if i > 0 {
			w.add(1)
		}
		v := item(it, depth+1)
		if out == nil && v != it {
			out = make([]*structpb.Value, i, min(len(items), w.lim.MaxItems))
			copy(out, items[:i])
		}
		if out != nil {
			out = append(out, v)
		}
		n++
	}
	if out == nil && n == len(items) {
		return l
	}
	if out == nil {
		out = slices.Clone(items[:n])
	}
	return &structpb.ListValue{Values: out}
}

// secretItem is value for an item of a list under a key that can only
// hold secrets: a string or number is one, redacted as redactByKey would
// redact it under the key itself; other items are walked.
func (w *walker) secretItem(item *structpb.Value, depth int) *structpb.Value {
	switch k := item.GetKind().(type) {
	case *structpb.Value_StringValue:
		if s := k.StringValue; s == "" || s == RedactedToken || s == TruncatedToken {
			return w.value(item, depth)
		}
	case *structpb.Value_NumberValue:
	default:
		return w.value(item, depth)
	}
	w.rep.Redacted = true
	return w.str(RedactedToken)
}

// redactByKey reports whether v, the value of key, is replaced because
// the key names a secret: a string that may be a credential (not a
// placeholder, not plainly a word, number or sentence), or, under a key
// that can only hold a secret (password, api_key, private_key, …), any
// string or number.
func redactByKey(key string, v *structpb.Value) bool {
	if secretKey(key) == notSecret {
		return false
	}
	switch k := v.GetKind().(type) {
	case *structpb.Value_StringValue:
		switch s := k.StringValue; {
		case s == "" || s == RedactedToken || s == TruncatedToken:
			return false
		case strongSecretKey(key):
			return true
		default:
			return !plainValue(s)
		}
	case *structpb.Value_NumberValue:
		return strongSecretKey(key)
	}
	return false
}

// plainValue reports whether a string under a secret-named key is plainly
// not a credential: empty, an enum-like word ("pause_required",
// "RATE_LIMITED", "user:read"), a short number, or a sentence of plain
// words ("expired, sign in again").
func plainValue(s string) bool {
	return s == "" || enumLike(s) || shortNumber(s) || proseLine(s) || readableIdentifier(s)
}

// wordCase reports whether a part of letters is cased as people write
// words: all lower, all upper, or Capitalised and camelCase with an upper
// case letter for at most every fourth letter (getUserName, HTTPServer).
func wordCase(part string) bool {
	upper := 0
	for i := 1; i < len(part); i++ {
		if 'A' <= part[i] && part[i] <= 'Z' {
			upper++
		}
	}
	return upper == 0 || upper == len(part)-1 || upper*4 <= len(part)
}

// readableIdentifier is a name people read, not a credential: parts joined
// by '-', '_', '.', ':' or '/', each all letters or a short number (at most
// four digits), or a short mix of letters and digits (at most three bytes:
// v2, 4o), with at least one part of three letters or more, at most 64
// bytes ("scope-flow-7", "us-east-1", "gpt-4o-mini", "build_2024"). A
// random token mixes letters and digits in one long part and is none.
func readableIdentifier(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	word := false
	for part := range strings.FieldsFuncSeq(s, func(r rune) bool { return r == '-' || r == '_' || r == '.' || r == ':' || r == '/' }) {
		letters, digits := 0, 0
		for i := 0; i < len(part); i++ {
			switch b := part[i]; {
			case 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z':
				letters++
			case '0' <= b && b <= '9':
				digits++
			default:
				return false
			}
		}
		switch {
		case digits == 0 && !wordCase(part):
			return false // mixed case no one types: QEvMturAhfcRuYSs
		case digits == 0:
			word = word || letters >= 3
		case letters == 0 && digits <= 4:
		case len(part) <= 3:
		default:
			return false
		}
	}
	return word
}

// filePath is a value that names a file rather than holding a secret: a
// path from the root, the home or the working directory of two names or
// more, every one a name people read (readableIdentifier, so at most 64
// bytes):
// "/run/secrets/db_password", "/var/run/secrets/kubernetes.io/serviceaccount/token".
// A key ending in a credential word is often followed by the file that
// holds the credential ("failed to read token: /var/run/…"), and the file's
// name is what the reader needs. A single name ("/hunter") or a part
// no one types ("/api/v2/AbC123/Xy9Zq8", base64 key material that starts
// with '/') is not such a path.
func filePath(v string) bool {
	rest, ok := strings.CutPrefix(v, "/")
	if !ok {
		rest, ok = strings.CutPrefix(v, "~/")
	}
	if !ok {
		rest, ok = strings.CutPrefix(v, "./")
	}
	return ok && strings.Contains(strings.Trim(rest, "/:"), "/") && readableIdentifier(rest)
}

// enumLike is a term of letters joined by '_', '-', '.' or ':', at most 40
// bytes, without digits.
func enumLike(s string) bool {
	if len(s) > 40 || !(('a' <= s[0] && s[0] <= 'z') || ('A' <= s[0] && s[0] <= 'Z')) {
		return false
	}
	for i := 0; i < len(s); i++ {
		b := s[i]
		if ('a' <= b && b <= 'z') || ('A' <= b && b <= 'Z') || b == '_' || b == '-' || b == '.' || b == ':' {
			continue
		}
		return false
	}
	return true
}

// formatNumber renders a number as compact JSON; NaN and ±Inf, which JSON
// lacks, as the strings protojson would name them.
func formatNumber(f float64) string {
	switch {
	case math.IsNaN(f):
		return `"NaN"`
	case math.IsInf(f, 1):
		return `"Infinity"`
	case math.IsInf(f, -1):
		return `"-Infinity"`
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// jsonStringLen is the length of s as a JSON string, quotes included, as
// writeString writes it.
func jsonStringLen(s string) int {
	n := 2
	for i := 0; i < len(s); i++ {
		switch b := s[i]; {
		case b == '"' || b == '\\' || b == '\n' || b == '\r' || b == '\t':
			n += 2
		case b < 0x20:
			n += 6
		default:
			n++
		}
	}
	return n
}

func writeString(sb *strings.Builder, s string) {
	const hex = "0123456789abcdef"
	sb.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch b := s[i]; {
		case b == '"' || b == '\\':
			sb.WriteByte('\\')
			sb.WriteByte(b)
		case b == '\n':
			sb.WriteString(`\n`)
		case b == '\r':
			sb.WriteString(`\r`)
		case b == '\t':
			sb.WriteString(`\t`)
		case b < 0x20:
			sb.WriteString(`\u00`)
			sb.WriteByte(hex[b>>4])
			sb.WriteByte(hex[b&0xf])
		default:
			sb.WriteByte(b)
		}
	}
	sb.WriteByte('"')
}

// writeJSON writes v as compact JSON with sorted keys.
func writeJSON(sb *strings.Builder, v *structpb.Value) {
	switch k := v.GetKind().(type) {
	case *structpb.Value_StringValue:
		writeString(sb, k.StringValue)
	case *structpb.Value_NumberValue:
		sb.WriteString(formatNumber(k.NumberValue))
	case *structpb.Value_BoolValue:
		sb.WriteString(strconv.FormatBool(k.BoolValue))
	case *structpb.Value_StructValue:
		fields := k.StructValue.GetFields()
		keys := make([]string, 0, len(fields))
		for key := range fields {
			keys = append(keys, key)
		}
		slices.Sort(keys)
		sb.WriteByte('{')
		for i, key := range keys {
			if i > 0 {
				sb.WriteByte(',')
			}
			writeString(sb, key)
			sb.WriteByte(':')
			writeJSON(sb, fields[key])
		}
		sb.WriteByte('}')
	case *structpb.Value_ListValue:
		sb.WriteByte('[')
		for i, item := range k.ListValue.GetValues() {
			if i > 0 {
				sb.WriteByte(',')
			}
			writeJSON(sb, item)
		}
		sb.WriteByte(']')
	default:
		sb.WriteString("null")
	}
}

// valueRunEnd is the end of a bare value a reader read from vs to e,
// where its stop ended it: a byte that ends a value in the reader's syntax
// may be the password's own, as a generated password's symbols are. At the
// start (";Xy9Zq8Lm2Pw", ",a8f3k29dm3", ")s_rD89…", "}Qx7…") or inside
// ("Xy9Zq;8Lm2Pw", "Xy9Zq)8Lm2Pw"), the run glued to such a byte goes with
// the value while it is one (gluedRun).
func valueRunEnd(v string, vs, e int, stop func(byte) bool) int {
	if e >= vs+maxValueLen {
		return e // the reader's own reading is as long as any
	}
	v = v[:min(len(v), vs+maxValueLen)] // no glued run is read further
	if e == vs {
		return gluedRun(v, e, stop, symbolLeads, minSymbolLedRun, nameWord)
	}
	if e >= len(v) || strings.IndexByte(innerLeads, v[e]) < 0 {
		return e // a blank, a stop no password holds, the end
	}
	// Inside, after a head of plain letters ("was;retry", "abc,Then"), a
	// sentence's word ends the value; after one no sentence holds, the
	// password goes on in any letters ("8c9xZUmVvny\"iwcba").
	word := sentenceWord
	if !plainWord(v[vs:e]) || noiseName(v[vs:e]) {
		word = func(string) bool { return false }
	}
	for e < len(v) {
		n := gluedRun(v, e, stop, innerLeads, 1, word)
		if n == e {
			break
		}
		e = n
	}
	return e
}

// gluedRun is the end of the run glued to v[i], one of leads, up to the
// reader's next stop, when that run is the value's: at least minRun bytes,
// no next pair ("Password=;Database=x", "password=Xy9;Uid=sa": an '=' or
// ':' in it), no HTML entity ("&amp;", "&#39;"; "&aQgX6g8Be9;" in a JDBC
// URL is a password) and no word (word) or short number
// ("password=,export", "PASSWORD=abc;echo"; a word glued to punctuation,
// "LELUU!", is a password's). It returns i when there is no such run.
func gluedRun(v string, i int, stop func(byte) bool, leads string, minRun int, word func(string) bool) int {
	if i+1 >= len(v) || strings.IndexByte(leads, v[i]) < 0 {
		return i
	}
	e := i + 1
	for e < len(v) && v[e] > ' ' && !stop(v[e]) {
		e++
	}
	// A colon that ends the run ends a clause ("-storepass )s_rD89: Keystore
	// was tampered with"), not a pair.
	if e-1 > i+1 && v[e-1] == ':' {
		e--
	}
	run := v[i+1 : e]
	switch {
	case len(run) < minRun, strings.ContainsAny(run, "=:"),
		strings.IndexByte(run, '[') >= 0 && strings.HasPrefix(v[e:], "]="),                    // the next pair's bracketed key: "&user[email]="
		v[i] == '&' && e < len(v) && v[e] == ';' && html.UnescapeString(v[i:e+1]) != v[i:e+1], // decode.go's entity reading
		v[i] == '<' && (run[0] == '/' || strings.IndexByte(v[e:lineEnd(v, e)], '>') >= 0),     // a tag: "abc</td>", "abc<br>"
		word(run) && (shortNumber(run) || plainWord(run) && !strings.ContainsAny(run, ".,;:!?)")):
		return i
	}
	return e
}

// symbolLeads are the bytes a value may start with that end an unquoted
// value in one of the layers' readers; none opens a syntax a reader knows
// (quotes, braces, parentheses and angle brackets that close are read as
// such first). innerLeads are those that may stand inside one, and the
// quotes (a quoted value is read as such first): not '>', a shell's
// redirection as often ("abc>out.txt"), nor '\\', an escape's; a '<' that
// begins a tag ends the value (gluedRun).
const (
	symbolLeads = ";,&<)]}|"
	innerLeads  = ";,&<)]}|\"'`"
)

// nameWord is a word a value that starts with a symbol cannot be: one
// people name a thing with (",export", ",Database"); letters no one
// writes so, ")rZaYyQcN-a" or "&dscdgvrhnHM-FL" (noiseName), are a
// password's.
func nameWord(w string) bool { return !noiseName(w) }

// minSymbolLedRun is the shortest run that makes a value that starts with
// a symbol: "password=;ab" is as likely an empty value and a fragment.
const minSymbolLedRun = 4
