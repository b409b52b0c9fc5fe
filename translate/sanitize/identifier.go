package sanitize

import "math"

// Identifier sanitises a name a caller chose: a vocabulary term (a kind, a
// code, an origin) or an object key. Text's rules find secrets by their
// format or by the key they follow; a name has no context, so a bare
// secret used as a name (a 40-character AWS secret, a hex API key) would
// pass them. Real names are words: snake_case, camelCase, dotted or
// dashed, each segment short or readable. A segment of at least
// opaqueMinLen characters that mixes letters and digits with the entropy
// of random text is an opaque token, and the whole name becomes
// RedactedToken. Everything else goes through Text with cap.
func Identifier(s string, cap int) string {
	if IsOpaqueToken(s) {
		return RedactedToken
	}
	return Text(s, cap)
}

// opaqueMinLen is the shortest segment read as a random token: shorter
// random-looking segments (UUID parts, short ids) are common in names.
const opaqueMinLen = 12

// IsOpaqueToken reports whether s holds a segment that reads as a random
// token rather than a word (see Identifier).
func IsOpaqueToken(s string) bool {
	start := 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && !separator(s[i]) {
			continue
		}
		if seg := s[start:i]; len(seg) >= opaqueMinLen && randomLooking(seg) || len(seg) > 20 && mixedCaseRun(seg) {
			return true
		}
		start = i + 1
	}
	return false
}

func separator(c byte) bool {
	switch c {
	case '_', '-', '.', ' ', ':', '@':
		return true
	}
	return false
}

// randomLooking: letters and digits both present, and either at least 3.3
// bits of entropy per character over 16 characters or more, or the
// character class (lower, upper, digit, other) changing at a third of the
// positions or more: words and camelCase names change class a few times
// ("retryAfterMs": 2), random tokens constantly ("HeTIiSYfr63slv": 7).
func randomLooking(seg string) bool {
	if switches(seg)*3 >= len(seg) && hasLetterAndDigit(seg) {
		return true
	}
	if len(seg) < 16 {
		return false
	}
	var counts [256]int
	letters, digits := 0, 0
	for i := 0; i < len(seg); i++ {
		c := seg[i]
		counts[c]++
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
			letters++
		}
	}
	if letters == 0 || digits == 0 {
		return false
	}
	h := 0.0
	n := float64(len(seg))
	for _, k := range counts {
		if k > 0 {
			p := float64(k) / n
			h -= p * math.Log2(p)
		}
	}
	return h >= 3.3
}

func class(c byte) int {
	switch {
	case c >= 'a' && c <= 'z':
		return 0
	case c >= 'A' && c <= 'Z':
		return 1
	case c >= '0' && c <= '9':
		return 2
	}
	return 3
}

func switches(seg string) int {
	n := 0
	for i := 1; i < len(seg); i++ {
		if class(seg[i]) != class(seg[i-1]) {
			n++
		}
	}
	return n
}

func hasLetterAndDigit(seg string) bool {
	l, d := false, false
	for i := 0; i < len(seg); i++ {
		switch class(seg[i]) {
		case 0, 1:
			l = true
		case 2:
			d = true
		}
	}
	return l && d
}

// mixedCaseRun: a long segment of letters whose case changes far more often
// than a camelCase name's ("ProvisionedThroughputExceededException" has 4
// capitals; a random base64-like run without digits has dozens).
func mixedCaseRun(seg string) bool {
	upper, changes := 0, 0
	for i := 0; i < len(seg); i++ {
		if c := seg[i]; 'A' <= c && c <= 'Z' {
			upper++
			if i > 0 && 'a' <= seg[i-1] && seg[i-1] <= 'z' {
				changes++
			}
		}
	}
	return upper > 5 || changes > 4
}
