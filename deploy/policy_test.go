package deploy

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/errsvc/errsvc/policy"
)

// TestExamplePolicies: each example policy passes `errsvc policy check` on
// its own, and the folder (which Compose and the docs mount) as one.
func TestExamplePolicies(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("policy", "*.yaml"))
	if len(files) < 3 {
		t.Fatalf("only %d example policies", len(files))
	}
	for _, f := range append(files, "policy") {
		p, err := policy.Load(f)
		if err != nil {
			t.Errorf("%s:\n%v", f, err)
			continue
		}
		if len(p.Rules()) == 0 {
			t.Errorf("%s: no rules", f)
		}
	}
}

// position is the 1-based line and column of the first occurrence of s in
// text, plus offset bytes.
func position(t *testing.T, text, s string, offset int) string {
	t.Helper()
	i := strings.Index(text, s)
	if i < 0 {
		t.Fatalf("%q not found", s)
	}
	i += offset
	line := strings.Count(text[:i], "\n") + 1
	col := i - strings.LastIndexByte(text[:i], '\n')
	return fmt.Sprintf("%d:%d", line, col)
}

// TestExamplePoliciesBroken: copies of the examples with one mistake each
// are refused with the file, line and column, and the nearest valid key or
// term.
func TestExamplePoliciesBroken(t *testing.T) {
	for _, tc := range []struct {
		name, file, old, new string
		// at is the text the error points at in the broken copy, and
		// want the rest of the error after "FILE:LINE:COL: ".
		at   string
		want string
	}{
		{
			name: "misspelt key", file: "10-self-hosted-fleet.yaml",
			old: "wait_secs: 30", new: "wait_sec: 30", at: "wait_sec: 30",
			want: `/providers/0/rules/1/wait_sec: unknown key "wait_sec" (did you mean "wait_secs"?)`,
		},
		{
			name: "misspelt top-level key", file: "20-internal-service.yaml",
			old: "\ndecisions:", new: "\ndecisons:", at: "decisons:",
			want: `/decisons: unknown key "decisons" (did you mean "decisions"?)`,
		},
		{
			name: "wrong class", file: "10-self-hosted-fleet.yaml",
			old: "class: context_overflow", new: "class: context_overflw", at: "context_overflw",
			want: `/providers/0/rules/0/class: "context_overflw" is not one of these (did you mean "context_overflow"?)`,
		},
		{
			name: "bad regex", file: "30-provider-overrides.yaml",
			old: `"itk_[A-Za-z0-9]{32}"`, new: `"itk_[A-Za-z0-9{32}"`, at: `"itk_[A-Za-z0-9{32}"`,
			want: `/secrets/redact/0/regex: not an RE2 regular expression`,
		},
		{
			name: "duplicate rule name", file: "20-internal-service.yaml",
			old: "name: repohost_write_pacing", new: "name: never_retry_delete_repository", at: "service: repohost",
			want: `/decisions/1: rule name "never_retry_delete_repository" is also used at `,
		},
		{
			name: "unknown limit kind", file: "10-self-hosted-fleet.yaml",
			old: "kind: concurrency", new: "kind: concurency", at: "concurency",
			want: `/providers/1/rules/0/limit/kind: "concurency" is not one of these (did you mean "concurrency"?)`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("policy", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			src := string(data)
			if !strings.Contains(src, tc.old) {
				t.Fatalf("%s lacks %q", tc.file, tc.old)
			}
			broken := strings.Replace(src, tc.old, tc.new, 1)
			path := filepath.Join(t.TempDir(), tc.file)
			if err := os.WriteFile(path, []byte(broken), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err = policy.Load(path)
			if err == nil {
				t.Fatal("loaded")
			}
			at := position(t, broken, tc.at, 0)
			if tc.name == "duplicate rule name" {
				// The decision's own position: its first key.
				at = position(t, broken, "name: never_retry_delete_repository\n    service", 0)
			}
			want := path + ":" + at + ": " + tc.want
			if !strings.Contains(err.Error(), want) {
				t.Errorf("got  %v\nwant %s", err, want)
			}
		})
	}
}
