package policy

import (
	"errors"
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
