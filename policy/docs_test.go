package policy

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/errsvc/errsvc/translate"
)

const (
	docsFile    = "../docs/POLICY.md"
	examplesDir = "../deploy/policy"
	beginMarker = "<!-- BEGIN GENERATED from policy/schema.json: go test ./policy -run TestPolicyDocs -update -->\n"
	endMarker   = "<!-- END GENERATED -->\n"
)

// docObjects are the schema's objects in the order docs/POLICY.md
// describes them: where each sits in a file, its $defs name ("" for the
// root) and the Go type whose field order the table follows.
var docObjects = []struct {
	where, def string
	typ        reflect.Type
}{
	{"the file", "", reflect.TypeFor[translate.PolicySpec]()},
	{"providers[]", "provider_family", reflect.TypeFor[translate.ProviderFamilySpec]()},
	{"providers[].match", "provider_match", reflect.TypeFor[translate.ProviderMatchSpec]()},
	{"providers[].rules[]", "provider_rule", reflect.TypeFor[translate.ProviderRuleSpec]()},
	{"providers[].rules[].limit", "limit", reflect.TypeFor[translate.LimitSpec]()},
	{"kinds[]", "kind", reflect.TypeFor[translate.KindSpec]()},
	{"agent_codes[]", "agent_code_spec", reflect.TypeFor[translate.AgentCodeSpec]()},
	{"overrides[]", "override", reflect.TypeFor[translate.OverrideSpec]()},
	{"decisions[]", "decision", reflect.TypeFor[translate.DecisionSpec]()},
	{"default_waits", "default_waits", reflect.TypeFor[translate.DefaultWaitsSpec]()},
	{"secrets", "secrets", reflect.TypeFor[translate.SecretsSpec]()},
	{"secrets.redact[], secrets.keep[]", "pattern", reflect.TypeFor[translate.PatternSpec]()},
}

// renderReference is the field reference of docs/POLICY.md, from the
// schema: every key of every object, its type (with the generated enums)
// and its description.
func renderReference(t *testing.T) string {
	doc := readSchema(t)
	defs := doc["$defs"].(map[string]any)
	anchorOf := map[string]string{}
	for _, o := range docObjects {
		anchorOf[o.def] = "#" + anchor(o.where)
	}
	var typeOf func(s map[string]any) string
	typeOf = func(s map[string]any) string {
		if ref, ok := s["$ref"].(string); ok {
			name := strings.TrimPrefix(ref, "#/$defs/")
			def := defs[name].(map[string]any)
			if a, ok := anchorOf[name]; ok {
				return fmt.Sprintf("object ([below](%s))", a)
			}
			switch name {
			case "secs":
				return "integer, seconds"
			case "name":
				return "name"
			}
			return typeOf(def)
		}
		if enum, ok := s["enum"].([]any); ok {
			terms := make([]string, len(enum))
			for i, e := range enum {
				terms[i] = fmt.Sprintf("`%v`", e)
			}
			return "one of " + strings.Join(terms, ", ")
		}
		switch s["type"] {
		case "array":
			return "list of " + typeOf(s["items"].(map[string]any))
		case "object":
			return "map of string to " + typeOf(s["additionalProperties"].(map[string]any))
		case "integer":
			if lo, ok := s["minimum"].(float64); ok && s["maximum"].(float64) < 1<<31 {
				return fmt.Sprintf("integer, %v to %v", lo, s["maximum"])
			}
			return "integer"
		}
		if p, ok := s["pattern"].(string); ok && p == "^[a-z][a-z0-9_]*$" {
			return "string, snake_case"
		}
		return "string"
	}
	var b strings.Builder
	b.WriteString(beginMarker)
	for _, o := range docObjects {
		s := doc
		if o.def != "" {
			s = defs[o.def].(map[string]any)
		}
		if o.def == "" {
			b.WriteString("\n### The top level\n\n")
		} else {
			fmt.Fprintf(&b, "\n### `%s`\n\n", o.where)
		}
		if d, ok := s["description"].(string); ok && o.def != "" {
			b.WriteString(d + "\n\n")
		}
		required := map[string]bool{}
		for _, r := range asList(s["required"]) {
			required[r.(string)] = true
		}
		b.WriteString("| Key | Type | Required | Meaning |\n|---|---|---|---|\n")
		props := s["properties"].(map[string]any)
		for _, f := range jsonFields(o.typ) {
			p := props[f.name].(map[string]any)
			desc, _ := p["description"].(string)
			if desc == "" {
				if ref, ok := p["$ref"].(string); ok {
					desc, _ = defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)["description"].(string)
				}
			}
			req := ""
			if required[f.name] {
				req = "yes"
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", f.name, typeOf(p), req, strings.ReplaceAll(desc, "|", `\|`))
		}
	}
	b.WriteString("\n" + endMarker)
	return b.String()
}

// anchor is GitHub's heading anchor of "`where`".
func anchor(where string) string {
	a := strings.ToLower(where)
	a = regexp.MustCompile(`[^a-z0-9 _-]`).ReplaceAllString(a, "")
	return strings.ReplaceAll(a, " ", "-")
}

// TestPolicyDocs: docs/POLICY.md's reference is the schema's (generated),
// it includes every example policy verbatim, and every other policy in it
// (a yaml block that is no Kubernetes or Compose file) passes the check.
func TestPolicyDocs(t *testing.T) {
	data, err := os.ReadFile(docsFile)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	i, j := strings.Index(text, beginMarker), strings.Index(text, endMarker)
	if i < 0 || j < i {
		t.Fatalf("%s lacks the generated reference's markers", docsFile)
	}
	want := renderReference(t)
	if *update {
		text = text[:i] + want + text[j+len(endMarker):]
		if err := os.WriteFile(docsFile, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	} else if text[i:j+len(endMarker)] != want {
		t.Errorf("%s: the reference differs from the schema's; run go test ./policy -run TestPolicyDocs -update", docsFile)
	}

	examples, _ := filepath.Glob(filepath.Join(examplesDir, "*.yaml"))
	if len(examples) == 0 {
		t.Fatal("no example policies")
	}
	// Editors find the schema where it is published.
	modeline := "# yaml-language-server: $schema=" + SchemaURL + "\n"
	if !strings.Contains(text, modeline) {
		t.Errorf("%s does not show the schema's URL %s", docsFile, SchemaURL)
	}
	for _, f := range examples {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(src), modeline) {
			t.Errorf("%s does not start with %q", f, modeline)
		}
		if !strings.Contains(text, "```yaml\n"+string(src)+"```\n") {
			t.Errorf("%s does not include %s verbatim", docsFile, filepath.ToSlash(f))
		}
	}
	blocks := regexp.MustCompile("(?s)```yaml\n(.*?)```\n").FindAllStringSubmatch(text, -1)
	checked := 0
	for n, m := range blocks {
		body := m[1]
		if regexp.MustCompile(`(?m)^(apiVersion|services):`).MatchString(body) {
			continue
		}
		checked++
		if _, err := Parse(fmt.Sprintf("%s block %d", docsFile, n+1), []byte(body)); err != nil {
			t.Errorf("%v\n%s", err, body)
		}
	}
	if checked < len(examples) {
		t.Errorf("only %d policy blocks checked", checked)
	}
	// The outputs the text quotes are the real ones: the first policy's
	// check, and the examples' explain.
	first, err := Parse("first", []byte(blocks[0][1]))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{
		fmt.Sprintf("ok: %d rules, version %s, hash %s\n", len(first.Rules()), first.Version(), first.Hash()),
		fmt.Sprintf("policy deploy/policy: version %s, hash %s, %d rules\n", examplesVersion(t), examplesHash(t), examplesRules(t)),
	} {
		if !strings.Contains(text, w) {
			t.Errorf("%s does not quote %q", docsFile, w)
		}
	}
	// Every vocabulary the schema generates is in the reference.
	for name := range vocabularyDefs {
		def := readSchema(t)["$defs"].(map[string]any)[name].(map[string]any)
		first := fmt.Sprintf("`%v`", asList(def["enum"])[0])
		if !strings.Contains(want, first) {
			t.Errorf("the reference lacks %s's terms", name)
		}
	}
}

func examplesPolicy(t *testing.T) *translate.Policy {
	t.Helper()
	p, err := Load(examplesDir)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func examplesVersion(t *testing.T) string { return examplesPolicy(t).Version() }
func examplesHash(t *testing.T) string    { return examplesPolicy(t).Hash() }
func examplesRules(t *testing.T) int      { return len(examplesPolicy(t).Rules()) }
