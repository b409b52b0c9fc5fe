package policy

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/errsvc/errsvc/translate"
	"github.com/errsvc/errsvc/translate/provider"
)

var update = flag.Bool("update", false, "rewrite schema.json's generated enums from the contract")

// vocabularyDefs are the schema's $defs generated from the contract's
// vocabularies: the file's enums must be exactly the vocabularies' terms.
var vocabularyDefs = map[string]*translate.Vocabulary{
	"class":           translate.Classes,
	"origin":          translate.Origins,
	"recovery_action": translate.RecoveryActions,
	"same_arguments":  translate.SameArgs,
	"agent_code":      translate.AgentCodes,
	"limit_kind":      translate.LimitKinds,
	"limit_dimension": translate.LimitDimensions,
	"limit_scope":     translate.LimitScopes,
}

// listDefs are the schema's $defs generated from other lists of known
// names: the provider values a family may read like.
var listDefs = map[string]func() []string{
	"provider_name": provider.Names,
}

func readSchema(t *testing.T) map[string]any {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(schemaJSON, &doc); err != nil {
		t.Fatalf("schema.json: %v", err)
	}
	return doc
}

// TestPolicySchemaEnums: the enums are generated from the contract, and the file
// is in its canonical form (so -update rewrites nothing else).
func TestPolicySchemaEnums(t *testing.T) {
	doc := readSchema(t)
	defs := doc["$defs"].(map[string]any)
	for name, voc := range vocabularyDefs {
		def, ok := defs[name].(map[string]any)
		if !ok {
			t.Fatalf("$defs/%s is missing", name)
		}
		want := make([]any, len(voc.Terms))
		for i, term := range voc.Terms {
			want[i] = term.Wire
		}
		if *update {
			def["enum"] = want
			continue
		}
		if !reflect.DeepEqual(def["enum"], want) {
			t.Errorf("$defs/%s enum = %v, the contract's %s = %v; run go test ./policy -run TestPolicySchemaEnums -update", name, def["enum"], voc.Name, want)
		}
	}
	for name, list := range listDefs {
		def, ok := defs[name].(map[string]any)
		if !ok {
			t.Fatalf("$defs/%s is missing", name)
		}
		var want []any
		for _, n := range list() {
			want = append(want, n)
		}
		if *update {
			def["enum"] = want
			continue
		}
		if !reflect.DeepEqual(def["enum"], want) {
			t.Errorf("$defs/%s enum = %v, the known names are %v; run go test ./policy -run TestPolicySchemaEnums -update", name, def["enum"], want)
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile("schema.json", buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(buf.Bytes(), schemaJSON) {
		t.Errorf("schema.json is not in canonical form; run go test ./policy -run TestPolicySchemaEnums -update")
	}
	if _, err := compiled(); err != nil {
		t.Errorf("schema.json does not compile: %v", err)
	}
}

// TestPolicySchemaMatchesSpec walks translate.PolicySpec and the schema together:
// every object is closed, its properties are exactly the struct's json
// tags (an embedded struct's flattened, as encoding/json does), required
// are exactly the tags without omitempty, and each property's JSON type is
// the field's. So the schema and the struct cannot drift apart.
func TestPolicySchemaMatchesSpec(t *testing.T) {
	doc := readSchema(t)
	defs := doc["$defs"].(map[string]any)
	resolve := func(s map[string]any) map[string]any {
		for {
			ref, ok := s["$ref"].(string)
			if !ok {
				return s
			}
			s = defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
		}
	}
	var walk func(path string, typ reflect.Type, s map[string]any)
	walk = func(path string, typ reflect.Type, s map[string]any) {
		s = resolve(s)
		for typ.Kind() == reflect.Pointer {
			typ = typ.Elem()
		}
		gotType, _ := s["type"].(string)
		switch typ.Kind() {
		case reflect.Struct:
			if gotType != "object" || s["additionalProperties"] != false {
				t.Errorf("%s: type %q additionalProperties %v, want a closed object", path, gotType, s["additionalProperties"])
			}
			props, _ := s["properties"].(map[string]any)
			var names, required []string
			for _, f := range jsonFields(typ) {
				names = append(names, f.name)
				if !f.omitempty {
					required = append(required, f.name)
				}
				ps, ok := props[f.name].(map[string]any)
				if !ok {
					t.Errorf("%s: the schema lacks %q", path, f.name)
					continue
				}
				walk(path+"/"+f.name, f.typ, ps)
			}
			var schemaNames []string
			for p := range props {
				if !(path == "" && p == "$schema") { // the editors' key
					schemaNames = append(schemaNames, p)
				}
			}
			slices.Sort(names)
			slices.Sort(schemaNames)
			if !slices.Equal(names, schemaNames) {
				t.Errorf("%s: schema properties %v, struct json tags %v", path, schemaNames, names)
			}
			var schemaRequired []string
			for _, r := range asList(s["required"]) {
				schemaRequired = append(schemaRequired, r.(string))
			}
			slices.Sort(required)
			slices.Sort(schemaRequired)
			if !slices.Equal(required, schemaRequired) {
				t.Errorf("%s: schema required %v, struct fields without omitempty %v", path, schemaRequired, required)
			}
		case reflect.Slice:
			if gotType != "array" {
				t.Errorf("%s: type %q, want array", path, gotType)
				return
			}
			walk(path+"/0", typ.Elem(), s["items"].(map[string]any))
		case reflect.Map:
			ap, ok := s["additionalProperties"].(map[string]any)
			if gotType != "object" || !ok {
				t.Errorf("%s: want an object with typed additionalProperties", path)
				return
			}
			walk(path+"/*", typ.Elem(), ap)
		case reflect.String:
			if gotType != "string" {
				t.Errorf("%s: type %q, want string", path, gotType)
			}
		case reflect.Int32, reflect.Uint32:
			if gotType != "integer" {
				t.Errorf("%s: type %q, want integer", path, gotType)
			}
			// The schema's range must fit the field, so a valid file
			// always decodes.
			lo, _ := s["minimum"].(float64)
			hi, ok := s["maximum"].(float64)
			minInt, maxInt := float64(0), float64(1<<32-1)
			if typ.Kind() == reflect.Int32 {
				minInt, maxInt = -(1 << 31), 1<<31-1
			}
			if _, hasMin := s["minimum"]; !hasMin || !ok || lo < minInt || hi > maxInt {
				t.Errorf("%s: range [%v, %v] does not fit %s", path, s["minimum"], s["maximum"], typ)
			}
		default:
			t.Errorf("%s: Go type %s has no check here; extend the test", path, typ)
		}
	}
	walk("", reflect.TypeFor[translate.PolicySpec](), doc)
}

type jsonField struct {
	name      string
	omitempty bool
	typ       reflect.Type
}

// jsonFields are typ's fields as encoding/json sees them.
func jsonFields(typ reflect.Type) []jsonField {
	var out []jsonField
	for f := range typ.Fields() {
		if f.Anonymous && f.Tag.Get("json") == "" {
			out = append(out, jsonFields(f.Type)...)
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" || !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		out = append(out, jsonField{name: name, omitempty: slices.Contains(strings.Split(opts, ","), "omitempty"), typ: f.Type})
	}
	return out
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}
