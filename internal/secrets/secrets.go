// Package secrets loads the secrets corpus (testdata/secrets/corpus.json)
// and tells whether any piece of a secret leaked into an output. The
// sanitiser's tests, the engine's tests and the server's log tests share it.
package secrets

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/errsvc/errsvc/internal/golden"
)

// Entry is one record of the corpus: a realistic upstream text holding one
// (fake) secret.
type Entry struct {
	Name   string `json:"name"`
	Secret string `json:"secret"`
	Text   string `json:"text"`
}

// Load reads the corpus from the module's testdata.
func Load() ([]Entry, error) {
	root, err := golden.ModuleRoot()
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(filepath.Join(root, "testdata", "secrets", "corpus.json"))
	if err != nil {
		return nil, err
	}
	var es []Entry
	if err := json.Unmarshal(data, &es); err != nil {
		return nil, err
	}
	return es, nil
}

// LoadOrdinary reads the ordinary messages (testdata/secrets/ordinary.json):
// error text with ids, digests, names and "name: problem" phrasing but no
// secret, which sanitising must leave unchanged.
func LoadOrdinary() ([]string, error) {
	root, err := golden.ModuleRoot()
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(filepath.Join(root, "testdata", "secrets", "ordinary.json"))
	if err != nil {
		return nil, err
	}
	var out []string
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// publicPrefixes are the documented, non-secret heads of token formats. What
// follows them is the high-entropy part whose every 8-byte window must stay
// out of any output.
var publicPrefixes = []string{
	"sk-ant-admin01-", "sk-ant-api03-", "sk-ant-oat01-", "sk-svcacct-", "sk-proj-", "sk-or-v1-", "sk-",
	"sk_live_", "rk_live_", "sk_test_", "rk_test_", "whsec_",
	"github_pat_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "glpat-",
	"xoxb-", "xoxp-", "xoxa-", "xoxr-", "xoxs-", "xapp-",
	"tskey-auth-", "tskey-api-", "AKIA", "ASIA", "AIza", "npm_", "hf_", "SG.",
	"IQoJb3JpZ2luX2VjE", "FwoGZXIvYXdzE", "ya29.", "1//0", "GOCSPX-", "hvs.CAESI", "hvs.", "hvb.",
	"dckr_pat_", "pypi-AgEIcHlwaS5vcmc", "gldt-", "glrt-", "glptt-", "glft-", "glsa_", "glc_eyJvIjoi",
	"gsk_", "xai-", "r8_", "lsv2_pt_", "lsv2_sk_", "pcsk_", "dapi", "shpat_", "shpss_", "shpca_",
	"AGE-SECRET-KEY-1", "LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQp",
	"MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ", "MIIEvgIBADANBgkqhkiG9w0BAQEFAASC",
	"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.", "SK", "key-", "EAAA", "dop_v1_", "doo_v1_", "lin_api_",
	"ntn_", "secret_", "figd_", "PMAK-", "sbp_", "dp.pt.", "sntryu_", "sntrys_eyJpYXQiOjE3", "NRAK-",
	"pplx-", "sk-or-v1-", "sk-ant-oat01-", "fw_", "ops_eyJzaWduSW5BZGRyZXNzIjoi", "bkua_", "CCIPAT_",
	"ATBB", "ATATT3xFfGF0", "oy2", "rubygems_", "CLOJARS_", "LTAI", "AKID", "sk.eyJ1Ijoi", "sl.",
	"pscale_tkn_", "pscale_pw_", "pul-", "xkeysib-", "CFPAT-", "dt0c01.", "sgp_", "sha256~", "pnu_",
	"rdme_", "tfp_", "FLWSECK-", "EZAK", "aio_", "MT",
}

// EntropyPart is the part of a secret that must not leak: the secret
// without its public prefix.
func EntropyPart(secret string) string {
	for _, p := range publicPrefixes {
		if strings.HasPrefix(secret, p) {
			return secret[len(p):]
		}
	}
	return secret
}

// Leaks reports the first piece of the secret found in out, as it is or in
// any decoded view of it (HTML entities, percent-encoding, \u and \x
// escapes, NFKC, ANSI escapes, soft wraps, hex and base64 runs): the secret
// itself or any 8-byte window of its high-entropy part (the whole part when
// shorter than 8).
func Leaks(out, secret string) (string, bool) {
	for _, v := range views(out) {
		if w, ok := leaksIn(v, secret); ok {
			return w, true
		}
	}
	return "", false
}

func leaksIn(out, secret string) (string, bool) {
	if strings.Contains(out, secret) {
		return secret, true
	}
	part := EntropyPart(secret)
	if len(part) < 8 {
		return part, strings.Contains(out, part)
	}
	if strings.ContainsAny(part, " \t\n") {
		// A mnemonic: its words are ordinary ones; two of them together,
		// in its order and as whole words, are a piece of it ("hen
		// present" is one; the "when present" of a fixed guidance is not),
		// whatever blanks part them (one word per line is a mnemonic too).
		ws := strings.Fields(part)
		for i := 0; i+1 < len(ws); i++ {
			if containsWordPair(out, ws[i], ws[i+1]) {
				return ws[i] + " " + ws[i+1], true
			}
		}
		return "", false
	}
	for i := 0; i+8 <= len(part); i++ {
		if w := part[i : i+8]; strings.Contains(out, w) {
			return w, true
		}
	}
	return "", false
}

// containsWordPair reports whether s holds the word a, then one or more
// blanks (spaces, tabs, line breaks), then the word b, with no letter
// touching either end.
func containsWordPair(s, a, b string) bool {
	for from := 0; ; {
		i := strings.Index(s[from:], a)
		if i < 0 {
			return false
		}
		i += from
		from = i + 1
		if i > 0 && isLetter(s[i-1]) {
			continue
		}
		j := i + len(a)
		k := j
		for k < len(s) && (s[k] == ' ' || s[k] == '\t' || s[k] == '\n' || s[k] == '\r') {
			k++
		}
		end := k + len(b)
		if k > j && strings.HasPrefix(s[k:], b) && (end == len(s) || !isLetter(s[end])) {
			return true
		}
	}
}

func isLetter(b byte) bool { return b|0x20 >= 'a' && b|0x20 <= 'z' }
