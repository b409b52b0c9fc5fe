package sanitize

import "strings"

// stopWords answers gitleaks' Allowlist.ContainsStopWord (does the
// lower-cased secret contain one of the stop words?) from a table keyed
// by a word's first two bytes. gitleaks answers it with an Aho-Corasick
// trie of ~9 MiB for the generic rule's 1,500 words, which would be most of
// errsvc's live heap; the secrets it is asked about are short (one match),
// so probing the few words that start with each pair of bytes is as fast.
// TestStopWordsMatchGitleaks holds it to gitleaks' own method.
type stopWords struct {
	byPair map[[2]byte][]string
	single string // one-byte words, as a set of bytes
}

func newStopWords(words []string) *stopWords {
	if len(words) == 0 {
		return nil
	}
	sw := &stopWords{byPair: map[[2]byte][]string{}}
	seen := map[string]bool{}
	for _, w := range words {
		w = strings.ToLower(w)
		switch {
		case w == "" || seen[w]:
			continue
		case len(w) == 1:
			sw.single += w
		default:
			k := [2]byte{w[0], w[1]}
			sw.byPair[k] = append(sw.byPair[k], w)
		}
		seen[w] = true
	}
	return sw
}

// contains reports whether the lower-cased s holds one of the words.
func (sw *stopWords) contains(s string) bool {
	if sw == nil || s == "" {
		return false
	}
	s = strings.ToLower(s)
	if sw.single != "" && strings.ContainsAny(s, sw.single) {
		return true
	}
	for i := 0; i+1 < len(s); i++ {
		for _, w := range sw.byPair[[2]byte{s[i], s[i+1]}] {
			if strings.HasPrefix(s[i:], w) {
				return true
			}
		}
	}
	return false
}
