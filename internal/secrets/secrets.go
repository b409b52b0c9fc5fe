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

// publicPrefixes are the documented, non-secret heads of token formats. What
// follows them is the high-entropy part whose every 8-byte window must stay
// out of any output.
var publicPrefixes = []string{
	"sk-ant-admin01-", "sk-ant-api03-", "sk-svcacct-", "sk-proj-", "sk-",
	"sk_live_", "rk_live_", "sk_test_", "rk_test_", "whsec_",
	"github_pat_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "glpat-",
	"xoxb-", "xoxp-", "xoxa-", "xoxr-", "xoxs-", "xapp-",
	"tskey-auth-", "tskey-api-", "AKIA", "ASIA", "AIza", "npm_", "hf_", "SG.",
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

// Leaks reports the first piece of the secret found in out: the secret
// itself or any 8-byte window of its high-entropy part (the whole part when
// shorter than 8).
func Leaks(out, secret string) (string, bool) {
	if strings.Contains(out, secret) {
		return secret, true
	}
	part := EntropyPart(secret)
	if len(part) < 8 {
		return part, strings.Contains(out, part)
	}
	for i := 0; i+8 <= len(part); i++ {
		if w := part[i : i+8]; strings.Contains(out, w) {
			return w, true
		}
	}
	return "", false
}
