package sanitize

import "strings"

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
						if next, ok := r.tokenRule(k); ok {
							e = next
							break
						}
					}
				}
			}
			i = e
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
