package policy

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzPolicyParse: whatever the bytes, Parse returns a policy or Errors,
// each located within the input, and never panics.
func FuzzPolicyParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(examplesDir, "*.yaml"))
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data)
		}
	}
	for _, s := range []string{
		"", "{}", "[]", "version: &a [*a]", "x: &x {a: 1}\ny: *x\n", "<<: {}",
		`{"providers": [{"name": "f", "match": {"headers": {"a b": "c"}}, "rules": [{"name": "r", "class": "transint"}]}]}`,
		"version: !!binary aGVsbG8=\n", "default_waits: {transient_secs: 1e400}\n", "---\n---\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse("fuzz.yaml", data)
		if err == nil {
			if p == nil {
				t.Fatal("no policy and no error")
			}
			return
		}
		var es Errors
		if !errors.As(err, &es) || len(es) == 0 {
			t.Fatalf("error %T %v, want Errors", err, err)
		}
		// YAML breaks lines at LF, CR, NEL, LS and PS: a bound, as CR LF
		// counts twice here.
		lines := 1
		for _, r := range string(data) {
			switch r {
			case '\n', '\r', '\u0085', '\u2028', '\u2029':
				lines++
			}
		}
		for _, e := range es {
			if e.File != "fuzz.yaml" || e.Line < 0 || e.Line > lines+1 || e.Column < 0 {
				t.Fatalf("error %q is not located in the input (%d lines)", e, lines)
			}
		}
	})
}
