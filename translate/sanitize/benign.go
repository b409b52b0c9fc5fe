package sanitize

import "strings"

// benignSpan reports whether a value the first layer would redact is one
// no reader would call a secret: gitleaks' generic rule reads any keyword
// before any operator, so "Offending key SHA256:<fingerprint>", a Secrets
// Manager ARN's ":secret:name", a base64 JSON payload after "cursor" or a
// cookie list of preferences all match it. The value is kept when it is
//
//   - a placeholder or a mask (${VAR}, {{ .Values.x }}, $VAR, %(x)s, %s,
//     YOUR_API_KEY, ***REDACTED***, ••••), as the second layer keeps them;
//   - a digest or fingerprint after its hash name (SHA256:…, sha512-…);
//   - an ARN's resource (after arn:…:secret:);
//   - a data: URI's payload, or base64 that decodes to JSON holding no
//     secret of its own;
//   - a UUID named as an id (keyId=…);
//   - a cookie list whose values are all plain (theme=dark; Path=/);
//   - code that reads a value (codeReference).
//
// maxPlaceholder is the longest word benignSpan reads as a placeholder.
const maxPlaceholder = 256

func benignSpan(s string, from, to int) bool {
	val := s[from:to]
	before := s[max(0, from-96):from]
	// The word the span starts: a placeholder is short, and a longer word
	// (the rest of one long token) is read no further than maxPlaceholder
	// bytes, once per span.
	word := s[from:wordEnd(s[:min(len(s), from+maxPlaceholder+1)], from)]
	if len(word) > maxPlaceholder {
		word = ""
	}
	switch {
	case len(val) >= 3 && placeholder(val) || placeholderName(val) || len(word) >= 3 && placeholder(word) || placeholderName(word):
		return true
	case val != "" && val[0] == '%' && formatVerb(val): // password: %s, a format's verb
		return true
	case hasFoldSuffix(before, "sha256:") || hasFoldSuffix(before, "sha512-") || hasFoldSuffix(before, "sha384-") ||
		hasFoldSuffix(before, "sha256-") || hasFoldSuffix(before, "md5:") || hasFoldSuffix(before, "sha1:"):
		return digestShape(val)
	case strings.HasSuffix(before, ":secret:") && strings.Contains(before, "arn:"):
		return true
	case strings.HasSuffix(before, ";base64,") && strings.Contains(before, "data:"):
		return true
	case uuidShape(val) && (hasFoldSuffix(before, "id=") || hasFoldSuffix(before, "id: ") || hasFoldSuffix(before, "id:")):
		return true
	case codeReference(s, from):
		return true
	}
	// Base64 of '{' or '[' starts with 'e' or 'W' in every alphabet: only
	// such a value is decoded.
	if len(val) >= 3 && (val[0] == 'e' || val[0] == 'W') {
		if benignPayload(val) {
			return true
		}
	}
	if strings.Contains(val, "=") && strings.Contains(val, ";") || hasFoldSuffix(strings.TrimRight(before, " "), "cookie:") {
		return plainCookies(val)
	}
	return false
}

// benignPayload: base64 that decodes to JSON holding no secret of its own:
// nothing either layer finds, and no string a random token is (Grafana's
// API key is base64 of {"k":"<random>","n":…,"id":…}; its JSON, no blank
// in it, reads to the bare-token reader as one token alone, which it
// leaves to its field: Nosey Parker's examples).
func benignPayload(val string) bool {
	if b, ok := decodeBase64(val); ok && len(b) >= 2 && (b[0] == '{' || b[0] == '[') && printableText(b) && !holdsRandomString(b) {
		var rep Report
		if cleanFirst(string(b), &rep); !rep.Redacted {
			if _, changed := contextPassPlain(string(b)); !changed {
				return true
			}
		}
	}
	return false
}

// holdsRandomString reports whether JSON text b holds a string of 20
// bytes or more that is a random token (highEntropyToken, not a readable
// identifier).
func holdsRandomString(b []byte) bool {
	for i := 0; i < len(b); i++ {
		if b[i] != '"' {
			continue
		}
		j := i + 1
		for j < len(b) && b[j] != '"' && b[j] != '\\' {
			j++
		}
		if s := string(b[i+1 : min(j, len(b))]); len(s) >= 20 && highEntropyToken(s) && !readableIdentifier(s) {
			return true
		}
		i = j
	}
	return false
}

// wordEnd is the end of the word at s[i:] (the next space or line break).
func wordEnd(s string, i int) int {
	for i < len(s) && s[i] != ' ' && s[i] != '\n' && s[i] != '\t' {
		i++
	}
	return i
}

// placeholderName is a value that names what should stand there:
// YOUR_CLIENT_SECRET, YOUR-API-KEY, <your key>.
func placeholderName(val string) bool {
	return hasFoldPrefix(val, "your_") || hasFoldPrefix(val, "your-") || hasFoldPrefix(val, "insert_") ||
		hasFoldPrefix(val, "replace_") || strings.HasPrefix(val, "%(") || strings.HasPrefix(val, "{{")
}

func hasFoldSuffix(s, suffix string) bool {
	return len(s) >= len(suffix) && strings.EqualFold(s[len(s)-len(suffix):], suffix)
}

// digestShape is hex or base64 of a digest's length, or colon-separated
// hex pairs.
func digestShape(v string) bool {
	v = strings.TrimRight(v, "=")
	if allHex(v) || strings.Count(v, ":") >= 7 {
		return true
	}
	switch len(v) {
	case 22, 27, 43, 64, 86: // MD5, SHA-1, SHA-256, SHA-384, SHA-512 in base64
		return true
	}
	return false
}

func uuidShape(v string) bool {
	if len(v) != 36 {
		return false
	}
	for i := 0; i < 36; i++ {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if v[i] != '-' {
				return false
			}
		} else if !isHex(v[i]) {
			return false
		}
	}
	return true
}

// plainCookies: every value of a cookie list ("a=1; b=2") is a plain term
// or too short to be a session, and no cookie is named as a credential.
func plainCookies(val string) bool {
	for part := range strings.SplitSeq(val, ";") {
		name, value, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			value = name // a bare value: "Cookie: <token>"
		} else if _, ok := credentialKey(name); ok {
			return false
		}
		if len(value) >= 12 && (secretLooking(value) || highEntropyToken(value)) {
			return false
		}
	}
	return true
}

// codeReference reports whether s[i:] is code that reads a value rather
// than the value: a readable name (readableIdentifier), dotted or not,
// called or subscripted on its line (os.getenv("DB_PASSWORD"), getpass(),
// os.environ["DB_PASSWORD"], config.get("db", key=name)), or Node's
// process.env.NAME. Python's tracebacks quote their program's lines
// ("password = os.environ['DB_PASSWORD']" above a KeyError), and the names
// such a line reads are what its reader needs. The arguments must be
// names or strings (codeArguments): a password shaped as a word with a
// number in brackets (Summer(2024)) is still one.
func codeReference(s string, i int) bool {
	j := i
	for j < len(s) && j-i <= 64 && (identifierByte(s[j]) || s[j] == '.') {
		j++
	}
	name := s[i:j]
	switch {
	case name == "" || name[0] == '.' || name[len(name)-1] == '.' || '0' <= name[0] && name[0] <= '9' || !readableIdentifier(name):
		return false
	case len(name) > len("process.env.") && strings.HasPrefix(name, "process.env."):
		return true
	case j < len(s) && s[j] == '(':
		return codeArguments(s, j+1, ')')
	case j < len(s) && s[j] == '[':
		return codeArguments(s, j+1, ']')
	}
	return false
}

// codeArguments reports whether s[i:] is a list of arguments closed by
// end on its line, within 256 bytes: none, or strings, names and
// name=argument pairs between commas.
func codeArguments(s string, i int, end byte) bool {
	limit := min(len(s), i+256)
	for {
		i = skipSpaces(s[:limit], i, false)
		if i >= limit {
			return false
		}
		switch c := s[i]; {
		case c == end:
			return true
		case c == '"' || c == '\'':
			e := strings.IndexByte(s[i+1:limit], c)
			if e < 0 || strings.IndexByte(s[i+1:i+1+e], '\n') >= 0 {
				return false
			}
			i += e + 2
		case identifierByte(c) && !('0' <= c && c <= '9'):
			for i < limit && (identifierByte(s[i]) || s[i] == '.') {
				i++
			}
			if i < limit && s[i] == '=' {
				i++
				continue // a keyword argument: its value next
			}
		default:
			return false
		}
		i = skipSpaces(s[:limit], i, false)
		if i < limit && s[i] == ',' {
			i++
		} else if i >= limit || s[i] != end {
			return false
		}
	}
}

// identifierByte is a byte of a name in code: a letter, a digit, '_' or '$'.
func identifierByte(c byte) bool {
	return alnum(c) || c == '_' || c == '$'
}
