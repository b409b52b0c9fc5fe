package policy

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// parseErrs parses src as name and returns its errors' strings.
func parseErrs(t *testing.T, name, src string) []string {
	t.Helper()
	p, err := Parse(name, []byte(src))
	if err == nil {
		t.Fatalf("%s parsed (%d rules), want errors", name, len(p.Rules()))
	}
	var es Errors
	if !errors.As(err, &es) {
		t.Fatalf("error %T %v, want Errors", err, err)
	}
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Error()
	}
	return out
}

func TestPolicyParseValid(t *testing.T) {
	src := `version: 2026-12-04
providers:
  - name: vllm_fleet
    match:
      base_urls: ["http://vllm.internal:8000/"]
    reads_like: openai
    rules:
      - name: overloaded
        status: [503]
        class: transient
        wait_secs: 5
        limit: {kind: capacity}
`
	p, err := Parse("p.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if p.Version() != "2026-12-04" || len(p.Rules()) != 1 || p.Rules()[0] != "vllm_fleet.overloaded" || p.Hash() == "" {
		t.Errorf("version %q rules %v hash %q", p.Version(), p.Rules(), p.Hash())
	}
	// The same policy as JSON reads the same (JSON is YAML's flow style),
	// tabs and all.
	js := "{\n\t\"version\": \"2026-12-04\",\n\t\"providers\": [{\"name\": \"vllm_fleet\", \"match\": {\"base_urls\": [\"http://vllm.internal:8000/\"]}, \"reads_like\": \"openai\",\n\t\t\"rules\": [{\"name\": \"overloaded\", \"status\": [503], \"class\": \"transient\", \"wait_secs\": 5, \"limit\": {\"kind\": \"capacity\"}}]}]\n}\n"
	pj, err := Parse("p.json", []byte(js))
	if err != nil {
		t.Fatal(err)
	}
	if pj.Hash() != p.Hash() {
		t.Errorf("JSON hash %s, YAML hash %s", pj.Hash(), p.Hash())
	}
}

func TestPolicyParseErrors(t *testing.T) {
	src := `version: "1"
provders: []
providers:
  - name: f
    match: {providers: [acme]}
    rules:
      - name: r
        clas: transient
        class: transint
        status: ["429"]
`
	got := strings.Join(parseErrs(t, "bad.yaml", src), "\n")
	t.Log(got)
	for _, want := range []string{
		`bad.yaml:2:1: /provders: unknown key "provders" (did you mean "providers"?)`,
		`bad.yaml:8:9: /providers/0/rules/0/clas: unknown key "clas" (did you mean "class"?)`,
		`bad.yaml:9:16: /providers/0/rules/0/class: "transint" is not one of these (did you mean "transient"?)`,
		`bad.yaml:10:18: /providers/0/rules/0/status/0:`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("errors lack %q", want)
		}
	}
}

func TestPolicyLoadDir(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("10-a.yaml", "version: v1\noverrides:\n  - {name: a, term: rate_limited, wait_floor_secs: 2}\n")
	write("20-b.yml", "decisions:\n  - {name: b, tool: delete_repository, retry: never}\n")
	write("README.md", "not a policy")
	write(".hidden.yaml", "nonsense: [")
	p, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if files, err := Files(dir); err != nil || len(files) != 2 || filepath.Base(files[0]) != "10-a.yaml" || filepath.Base(files[1]) != "20-b.yml" {
		t.Errorf("Files: %v %v", files, err)
	}
	if strings.Join(p.Rules(), ",") != "a,b" || p.Version() != "v1" {
		t.Errorf("rules %v version %q", p.Rules(), p.Version())
	}
	// A duplicate rule name across files names both files.
	write("30-c.json", `{"decisions": [{"name": "a", "service": "billing", "class": "permanent"}]}`)
	_, err = Load(dir)
	if err == nil || !strings.Contains(err.Error(), "30-c.json:1:16: /decisions/0: rule name \"a\" is also used at ") || !strings.Contains(err.Error(), "10-a.yaml:3:5") {
		t.Errorf("duplicate across files: %v", err)
	}
	// Two versions that differ.
	write("30-c.json", `{"version": "v2"}`)
	_, err = Load(dir)
	if err == nil || !strings.Contains(err.Error(), `30-c.json:1:13: /version: version "v2" differs from "v1"`) {
		t.Errorf("two versions: %v", err)
	}
}

func TestPolicyBounds(t *testing.T) {
	// Billion laughs: nine levels of nine aliases. yaml.v3's guard refuses
	// it before anything is expanded.
	var b strings.Builder
	b.WriteString("version: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for i := 1; i <= 9; i++ {
		b.WriteString("k" + string(rune('0'+i)) + ": &a" + string(rune('0'+i)) + " [")
		for j := 0; j < 9; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString("*a" + string(rune('0'+i-1)))
		}
		b.WriteString("]\n")
	}
	got := parseErrs(t, "laughs.yaml", b.String())
	if len(got) != 1 || !strings.Contains(got[0], "excessive aliasing") {
		t.Errorf("billion laughs: %v", got)
	}
	// Over the size bound: refused unread.
	big := "version: x\n" + strings.Repeat("# padding\n", MaxBytes/10)
	if got := parseErrs(t, "big.yaml", big); !strings.Contains(got[0], "at most 4 MiB") {
		t.Errorf("big: %v", got)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "big.yaml"), []byte(big), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(filepath.Join(dir, "big.yaml")); err == nil || !strings.Contains(err.Error(), "big.yaml: a policy is at most 4 MiB") {
		t.Errorf("Load big: %v", err)
	}
	// Nesting deeper than any policy: refused, not walked.
	deep := "version: " + strings.Repeat("[", 100) + strings.Repeat("]", 100) + "\n"
	if got := parseErrs(t, "deep.yaml", deep); !strings.Contains(got[0], "levels deep") {
		t.Errorf("deep: %v", got)
	}
}

func TestPolicyYAMLShapes(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"syntax", "version: v1\nproviders: [\n  - x\n", "syntax.yaml:"},
		{"dupkey", "version: v1\nversion: v2\n", `dupkey.yaml:2:1: /version: key "version" is written twice (first at 1:1)`},
		{"dupkey-nested", "overrides:\n  - {name: a, term: t, name: b}\n", `dupkey-nested.yaml:2:24: /overrides/0/name: key "name" is written twice (first at 2:6)`},
		{"bad-header", "providers:\n  - name: f\n    match: {headers: {\"x y\": v, server: uvicorn}}\n", `bad-header.yaml:3:23: /providers/0/match/headers/x y: "x y" is not an HTTP header name`},
		{"json", "{\"$schema\": \"x\",\n \"version\": \"v1\",\n \"provders\": []}", `json.yaml:3:2: /provders: unknown key "provders" (did you mean "providers"?)`},
		{"two-docs", "version: v1\n---\nversion: v2\n", "two-docs.yaml:2:1: a second YAML document"},
		{"merge", "x: &x {name: a, term: t, retry: never}\noverrides:\n  - <<: *x\n", "merge.yaml:3:5: /overrides/0: YAML merge keys (<<) are not supported"},
		{"not-object", "- a\n- b\n", "not-object.yaml:1:1: got array, want object"},
		{"version-number", "version: 3\n", `version-number.yaml:1:10: /version: got number, want string: quote it ("3")`},
		{"missing", "overrides:\n  - term: rate_limited\n    retry: never\n", `missing.yaml:2:5: /overrides/0: missing required key "name"`},
		{"bad-regex", "secrets:\n  redact:\n    - {name: itk, regex: \"itk_[A-Z\"}\n", "bad-regex.yaml:3:26: /secrets/redact/0/regex: not an RE2 regular expression"},
		{"unknown-nested", "default_waits: {transient: 3}\n", `unknown-nested.yaml:1:17: /default_waits/transient: unknown key "transient" (did you mean "transient_secs"?)`},
		{"inf", "default_waits: {transient_secs: .inf}\n", "inf.yaml:1:33: /default_waits/transient_secs: .inf is not a number JSON can hold"},
		{"huge-int", "default_waits: {transient_secs: 99999999999999999999999}\n", "huge-int.yaml:1:33: /default_waits/transient_secs: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := strings.Join(parseErrs(t, tc.name+".yaml", tc.src), "\n")
			if !strings.Contains(got, tc.want) {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
	// An empty file is an empty policy.
	if p, err := Parse("empty.yaml", nil); err != nil || len(p.Rules()) != 0 {
		t.Errorf("empty: %v", err)
	}
	// An alias of a whole value is fine; its errors are where the anchor is.
	src := "x: &w {name: a, term: rate_limited, retry: nevr}\noverrides: [*w]\n"
	got := strings.Join(parseErrs(t, "alias.yaml", src), "\n")
	if !strings.Contains(got, `alias.yaml:1:44: /overrides/0/retry: "nevr" is not one of these (did you mean "never"?)`) {
		t.Errorf("alias: %s", got)
	}
}

// TestPolicyLoadConfigMapLayout: a Kubernetes ConfigMap volume holds each
// key as a symbolic link through ..data to a timestamped folder; the
// hidden entries are skipped, the links followed.
func TestPolicyLoadConfigMapLayout(t *testing.T) {
	dir := t.TempDir()
	ts := filepath.Join(dir, "..2026_12_04_08_00_00.123456789")
	if err := os.Mkdir(ts, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ts, "policy.yaml"), []byte("version: cm\ndecisions: [{name: d, tool: x, retry: never}]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Base(ts), filepath.Join(dir, "..data")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("..data", "policy.yaml"), filepath.Join(dir, "policy.yaml")); err != nil {
		t.Fatal(err)
	}
	p, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if p.Version() != "cm" || len(p.Rules()) != 1 {
		t.Errorf("version %q rules %v", p.Version(), p.Rules())
	}
	// Errors name the path errsvc was given, not the link's target.
	if err := os.WriteFile(filepath.Join(ts, "policy.yaml"), []byte("decisions: [{name: d, tool: x, retry: nevr}]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir); err == nil || !strings.HasPrefix(err.Error(), filepath.Join(dir, "policy.yaml")+":1:") {
		t.Errorf("error %v", err)
	}
	// A missing path: named once.
	missing := filepath.Join(dir, "none")
	if _, err := Load(missing); err == nil || err.Error() != missing+": no such file or directory" {
		t.Errorf("missing: %v", err)
	}
	// A folder without policy files.
	empty := t.TempDir()
	if _, err := Load(empty); err == nil || !strings.Contains(err.Error(), "no policy files") {
		t.Errorf("empty: %v", err)
	}
}

// TestPolicyJSONEscapes: valid JSON whose escapes YAML does not read (an
// escaped slash, a surrogate pair) reads as encoding/json reads it, and
// errors after them on their line keep the file's columns.
func TestPolicyJSONEscapes(t *testing.T) {
	src := `{"version": "v\/1 \ud83d\ude00 \ud800", "providers": [{"name": "f", "match": {"base_urls": ["http:\/\/llm.internal\/v1"]}, "rules": [{"name": "r", "class": "transint"}]}]}`
	got := strings.Join(parseErrs(t, "esc.json", src), "\n")
	// All ASCII: the column is the byte offset.
	want := fmt.Sprintf(`esc.json:1:%d: /providers/0/rules/0/class: "transint" is not one of these`, strings.Index(src, `"transint"`)+1)
	if !strings.Contains(got, want) {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	ok := strings.Replace(src, "transint", "transient", 1)
	p, err := Parse("esc.json", []byte(ok))
	if err != nil {
		t.Fatal(err)
	}
	if p.Version() != "v/1 \U0001F600 \uFFFD" {
		t.Errorf("version %q", p.Version())
	}
	// A YAML file's backslashes are YAML's: not rewritten.
	if got := parseErrs(t, "esc.yaml", "version: \"a\\/b\"\nx: 1\n"); !strings.Contains(got[0], "esc.yaml") {
		t.Errorf("yaml: %v", got)
	}
}

// TestPolicyErrorIsOneLine: a key written with control characters is
// escaped in the error, which stays one line a terminal prints as is.
func TestPolicyErrorIsOneLine(t *testing.T) {
	got := parseErrs(t, "ctl.json", "{\"prov\\u001b[31mders\\n\": []}")
	if len(got) != 1 || strings.ContainsAny(got[0], "\x1b\n") || !strings.Contains(got[0], `\x1b[31m`) {
		t.Errorf("%q", got)
	}
}

// TestPolicyParseConcurrent: the compiled schema is shared; loads at the
// same time (a reload beside an in-process client's) do not race.
func TestPolicyParseConcurrent(t *testing.T) {
	src := []byte("version: v1\nproviders: [{name: f, match: {providers: [x]}, rules: [{name: r, class: transint}]}]\n")
	done := make(chan string, 8)
	for range 8 {
		go func() {
			_, err := Parse("c.yaml", src)
			done <- fmt.Sprint(err)
		}()
	}
	first := <-done
	for range 7 {
		if got := <-done; got != first {
			t.Errorf("%q differs from %q", got, first)
		}
	}
}

// TestPolicyMergeLocations: in a folder, a compile error and a conflict are
// located in the file and at the index that file wrote, not the merged one.
func TestPolicyMergeLocations(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("1.yaml", "secrets:\n  redact:\n    - {name: a, regex: \"a+\"}\n    - {name: b, regex: \"b+\"}\ndefault_waits: {transient_secs: 1, by_kind: {rate_limited: 2}}\n")
	write("2.yaml", "secrets:\n  redact:\n    - {name: c, regex: \"c(\"}\n")
	_, err := Load(dir)
	if want := filepath.Join(dir, "2.yaml") + ":3:24: /secrets/redact/0/regex: not an RE2"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v\nwant %s", err, want)
	}
	write("2.yaml", "default_waits:\n  by_kind:\n    rate_limited: 3\n")
	_, err = Load(dir)
	if want := filepath.Join(dir, "2.yaml") + ":3:19: /default_waits/by_kind/rate_limited: also set in " + filepath.Join(dir, "1.yaml"); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v\nwant %s", err, want)
	}
	write("2.yaml", "default_waits:\n  transient_secs: 3\n")
	_, err = Load(dir)
	if want := filepath.Join(dir, "2.yaml") + ":2:19: /default_waits/transient_secs: also set in"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v\nwant %s", err, want)
	}
	// Schema errors of several files are all reported, each in its file.
	write("2.yaml", "decisons: []\n")
	write("3.yaml", "overides: []\n")
	_, err = Load(dir)
	if err == nil || !strings.Contains(err.Error(), "2.yaml:1:1: /decisons") || !strings.Contains(err.Error(), "3.yaml:1:1: /overides") {
		t.Errorf("got %v", err)
	}
}
