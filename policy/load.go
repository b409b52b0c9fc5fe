// Package policy reads an operator policy (docs/POLICY.md) from YAML or
// JSON files, validates it against the published JSON Schema
// (schema.json) and compiles it with translate.NewPolicy. Every error
// names its file, line and column, and for a misspelt key the nearest
// valid one, because an operator meets these errors in a CI log or at a
// reload, far from the file.
package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"go.yaml.in/yaml/v3"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/errsvc/errsvc/translate"
)

// The bounds of the work a policy may ask for: it is read at start and at
// every reload, so a broken or hostile file must cost little and say why.
const (
	// MaxBytes is the most a policy (one file, or all the files of a
	// folder together) may hold.
	MaxBytes = 4 << 20
	// maxValues is the most values a document may hold once YAML aliases
	// are expanded: an alias repeats a value without its bytes, so the
	// size bound alone does not bound the work (billion laughs).
	maxValues = 1 << 20
	// maxDepth is deeper than the schema goes (a provider rule's limit is
	// five levels down); anything deeper is refused before it is walked.
	maxDepth = 32
	// maxFiles bounds a folder.
	maxFiles = 1000
)

// Error is one thing wrong with a policy, where it is: File, Line and
// Column (1-based; 0 when unknown), and Path, the JSON pointer of the
// value in its file ("/providers/0/rules/1/class"; "" for the whole file).
type Error struct {
	File         string
	Line, Column int
	Path         string
	Message      string
}

// Error is "FILE:LINE:COL: PATH: MESSAGE", the form editors and CI logs
// link; a part that is unknown (no line, or the whole file) is left out.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
		if e.Column > 0 {
			fmt.Fprintf(&b, ":%d", e.Column)
		}
	}
	b.WriteString(": ")
	if e.Path != "" {
		b.WriteString(graphic(e.Path))
		b.WriteString(": ")
	}
	b.WriteString(graphic(e.Message))
	return b.String()
}

// graphic escapes what a terminal would act on (a key written with an
// escape sequence, a line break): the path quotes the file's own keys.
func graphic(s string) string {
	for _, r := range s {
		if !unicode.IsGraphic(r) {
			q := strconv.QuoteToGraphic(s)
			return q[1 : len(q)-1]
		}
	}
	return s
}

// Errors are all the errors found in a policy, in file order: a schema
// check reports every error at once, so an operator fixes a file in one
// pass.
type Errors []*Error

// Error is each error on a line of its own.
func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Load reads the policy at path: one file (YAML or JSON), or a folder,
// whose .yaml, .yml and .json files (not hidden ones, nor subfolders) are
// read in lexical order as one policy: their lists concatenated, the
// version the first file's that has one. The error is always Errors, each
// with its location (a path that cannot be read has no line).
func Load(path string) (*translate.Policy, error) {
	files, err := Files(path)
	if err != nil {
		return nil, err
	}
	srcs := make([]source, 0, len(files))
	total := 0
	for _, file := range files {
		data, rerr := readFile(file, MaxBytes-total)
		if rerr != nil {
			return nil, Errors{rerr}
		}
		total += len(data)
		srcs = append(srcs, source{name: file, data: data})
	}
	return compile(srcs)
}

// Files are the files Load reads for path, in the order it reads them:
// path itself when it is a file, else the folder's policy files. A
// watcher that reloads on a change compares these (Load reads at most
// MaxBytes of them).
func Files(path string) ([]string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, Errors{{File: path, Message: pathError(err)}}
	}
	if !info.IsDir() {
		return []string{path}, nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, Errors{{File: path, Message: pathError(err)}}
	}
	var files []string
	for _, e := range entries { // ReadDir sorts by name
		name := e.Name()
		// Hidden names are skipped: a Kubernetes ConfigMap volume holds
		// ..data and ..2026_12_04_... beside the files it projects.
		if strings.HasPrefix(name, ".") || !policyExt(name) {
			continue
		}
		file := filepath.Join(path, name)
		// Stat follows the ConfigMap's symbolic links to the real file.
		fi, err := os.Stat(file)
		if err != nil {
			return nil, Errors{{File: file, Message: pathError(err)}}
		}
		if !fi.Mode().IsRegular() {
			continue
		}
		if len(files) == maxFiles {
			return nil, Errors{{File: path, Message: fmt.Sprintf("more than %d policy files", maxFiles)}}
		}
		files = append(files, file)
	}
	if len(files) == 0 {
		return nil, Errors{{File: path, Message: "no policy files (.yaml, .yml or .json) in the folder"}}
	}
	return files, nil
}

// Parse reads one policy file's content; name is the file named in errors.
func Parse(name string, data []byte) (*translate.Policy, error) {
	if len(data) > MaxBytes {
		return nil, Errors{tooBig(name)}
	}
	return compile([]source{{name: name, data: data}})
}

// pathError is err without the path the Error names already.
func pathError(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

func policyExt(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

func tooBig(name string) *Error {
	return &Error{File: name, Message: fmt.Sprintf("a policy is at most %d MiB (one file, or a folder's files together)", MaxBytes>>20)}
}

// readFile reads at most limit bytes of file; more is an error, found
// without reading more (the file may grow between Stat and Read).
func readFile(file string, limit int) ([]byte, *Error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, &Error{File: file, Message: pathError(err)}
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, int64(limit)+1))
	if err != nil {
		return nil, &Error{File: file, Message: pathError(err)}
	}
	if len(data) > limit {
		return nil, tooBig(file)
	}
	return data, nil
}

type source struct {
	name string
	data []byte
}

// document is one parsed file: its value as JSON would hold it, and where
// each value and key is in the file, by JSON pointer.
type document struct {
	file   string
	value  any
	nodes  map[string]*yaml.Node // value nodes
	keys   map[string]*yaml.Node // key nodes, by the pointer of their value
	values int                   // values converted, aliases expanded
	spec   translate.PolicySpec
}

// compile parses, validates and merges srcs, then compiles the policy.
func compile(srcs []source) (*translate.Policy, error) {
	sch, err := compiled()
	if err != nil {
		return nil, Errors{{File: "policy/schema.json", Message: "the embedded schema does not compile: " + err.Error()}}
	}
	var errs Errors
	docs := make([]*document, 0, len(srcs))
	for _, s := range srcs {
		d, derr := parse(s.name, s.data)
		if derr != nil {
			errs = append(errs, derr)
			continue
		}
		if verrs := d.validate(sch); len(verrs) > 0 {
			errs = append(errs, verrs...)
			continue
		}
		if err := d.decode(); err != nil {
			errs = append(errs, err)
			continue
		}
		docs = append(docs, d)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	m, merr := merge(docs)
	if merr != nil {
		return nil, Errors{merr}
	}
	p, err := translate.NewPolicy(m.spec)
	if err != nil {
		var pe *translate.PolicyError
		if !errors.As(err, &pe) {
			return nil, Errors{{File: docs[0].file, Message: err.Error()}}
		}
		return nil, Errors{m.policyError(pe)}
	}
	return p, nil
}

var yamlLine = regexp.MustCompile(`^yaml: (?:line (\d+): )?(.*)$`)

// parse reads one YAML (or JSON: YAML's flow style) document into a
// value and its positions.
func parse(file string, data []byte) (*document, *Error) {
	d := &document{file: file, nodes: map[string]*yaml.Node{}, keys: map[string]*yaml.Node{}}
	data, shifts := jsonCompat(data)
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var root yaml.Node
	if err := dec.Decode(&root); err != nil {
		if errors.Is(err, io.EOF) { // an empty file is an empty policy
			d.value = map[string]any{}
			return d, nil
		}
		return nil, yamlError(file, err)
	}
	fixColumns(&root, shifts)
	var next yaml.Node
	if err := dec.Decode(&next); !errors.Is(err, io.EOF) {
		if err != nil {
			return nil, yamlError(file, err)
		}
		return nil, &Error{File: file, Line: next.Line, Column: next.Column, Message: "a second YAML document: a policy file holds one (put several in a folder)"}
	}
	// A key written twice is refused where it is (yaml.v3's decoder would
	// refuse it too, but without the column or the path).
	if err := d.duplicateKeys(&root, "", 0); err != nil {
		return nil, err
	}
	// yaml.v3's own decoder refuses recursive anchors and excessive
	// aliasing (billion laughs); run it first as the guard, then convert
	// the node tree ourselves, as that keeps every position.
	var guard any
	if err := root.Decode(&guard); err != nil {
		return nil, yamlError(file, err)
	}
	v, err := d.convert(&root, "", 0)
	if err != nil {
		return nil, err
	}
	d.value = v
	return d, nil
}

// duplicateKeys finds a mapping key written twice, without following
// aliases (an alias repeats a value, not a key), as deep as convert goes.
func (d *document) duplicateKeys(n *yaml.Node, path string, depth int) *Error {
	if depth > maxDepth {
		return nil // convert refuses it, located
	}
	switch n.Kind {
	case yaml.DocumentNode, yaml.SequenceNode:
		for i, c := range n.Content {
			p := path
			if n.Kind == yaml.SequenceNode {
				p += "/" + strconv.Itoa(i)
			}
			if err := d.duplicateKeys(c, p, depth+1); err != nil {
				return err
			}
		}
	case yaml.MappingNode:
		seen := make(map[string]*yaml.Node, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			kp := path + "/" + escape(k.Value)
			if first, dup := seen[k.Value]; dup && k.Kind == yaml.ScalarNode {
				return d.errorAt(k, kp, fmt.Sprintf("key %q is written twice (first at %d:%d)", k.Value, first.Line, first.Column))
			}
			seen[k.Value] = k
			if err := d.duplicateKeys(n.Content[i+1], kp, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

func yamlError(file string, err error) *Error {
	msg := err.Error()
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
		if !strings.HasPrefix(msg, "yaml: ") {
			msg = "yaml: " + msg
		}
	}
	e := &Error{File: file, Message: msg}
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		e.Line, _ = strconv.Atoi(m[1])
		e.Message = m[2]
	}
	return e
}

func (d *document) errorAt(n *yaml.Node, path, msg string) *Error {
	return &Error{File: d.file, Line: n.Line, Column: n.Column, Path: path, Message: msg}
}

// convert is n as JSON would hold it: maps, slices, strings, bools, nil
// and json.Number; an alias is expanded, within maxValues. Every value's
// node is recorded under its pointer (a value reached by an alias is
// located where its anchor wrote it).
func (d *document) convert(n *yaml.Node, path string, depth int) (any, *Error) {
	if depth > maxDepth {
		return nil, d.errorAt(n, path, fmt.Sprintf("nested more than %d levels deep: deeper than any policy goes", maxDepth))
	}
	d.values++
	if d.values > maxValues {
		return nil, d.errorAt(n, path, fmt.Sprintf("more than %d values once YAML aliases are expanded", maxValues))
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return map[string]any{}, nil
		}
		return d.convert(n.Content[0], path, depth)
	case yaml.AliasNode:
		return d.convert(n.Alias, path, depth+1)
	}
	if _, seen := d.nodes[path]; !seen {
		d.nodes[path] = n
	}
	switch n.Kind {
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind == yaml.AliasNode {
				k = k.Alias
			}
			if k.ShortTag() == "!!merge" {
				return nil, d.errorAt(k, path, "YAML merge keys (<<) are not supported in a policy: write the keys out, or alias a whole value")
			}
			if k.Kind != yaml.ScalarNode {
				return nil, d.errorAt(k, path, "a key is a plain string")
			}
			kp := path + "/" + escape(k.Value)
			d.keys[kp] = k
			cv, err := d.convert(v, kp, depth+1)
			if err != nil {
				return nil, err
			}
			m[k.Value] = cv
		}
		return m, nil
	case yaml.SequenceNode:
		s := make([]any, 0, len(n.Content))
		for i, c := range n.Content {
			cv, err := d.convert(c, path+"/"+strconv.Itoa(i), depth+1)
			if err != nil {
				return nil, err
			}
			s = append(s, cv)
		}
		return s, nil
	case yaml.ScalarNode:
		return d.scalar(n, path)
	}
	return nil, d.errorAt(n, path, "not a YAML value a policy holds")
}

// scalar is a YAML scalar as JSON holds it. A timestamp stays the text it
// was written as: `version: 2026-12-04` is a label, not a time.
func (d *document) scalar(n *yaml.Node, path string) (any, *Error) {
	switch n.ShortTag() {
	case "!!str", "!!timestamp", "!!binary":
		return n.Value, nil
	case "!!null":
		return nil, nil
	case "!!bool":
		var b bool
		if err := n.Decode(&b); err != nil {
			return nil, d.errorAt(n, path, err.Error())
		}
		return b, nil
	case "!!int":
		var i any
		if err := n.Decode(&i); err != nil {
			return nil, d.errorAt(n, path, err.Error())
		}
		switch i := i.(type) {
		case int:
			return json.Number(strconv.Itoa(i)), nil
		case int64:
			return json.Number(strconv.FormatInt(i, 10)), nil
		case uint64:
			return json.Number(strconv.FormatUint(i, 10)), nil
		}
		// Too big for 64 bits: a number all the same, out of every range.
		return json.Number(strings.ReplaceAll(n.Value, "_", "")), nil
	case "!!float":
		var f float64
		if err := n.Decode(&f); err != nil {
			return nil, d.errorAt(n, path, err.Error())
		}
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, d.errorAt(n, path, fmt.Sprintf("%s is not a number JSON can hold", n.Value))
		}
		return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), nil
	}
	return nil, d.errorAt(n, path, fmt.Sprintf("the YAML tag %s is not one a policy uses", n.Tag))
}

func escape(tok string) string {
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
}

// locate is the node at pointer, or the nearest enclosing one known.
func (d *document) locate(pointer string) *yaml.Node {
	for p := pointer; ; {
		if n, ok := d.nodes[p]; ok {
			return n
		}
		i := strings.LastIndexByte(p, '/')
		if i < 0 {
			return nil
		}
		p = p[:i]
	}
}

func (d *document) at(pointer, msg string) *Error {
	e := &Error{File: d.file, Path: pointer, Message: msg}
	if n := d.locate(pointer); n != nil {
		e.Line, e.Column = n.Line, n.Column
	}
	return e
}

var printer = message.NewPrinter(language.English)

// validate checks the document against the schema: every error, each
// where its value is.
func (d *document) validate(sch *jsonschema.Schema) Errors {
	var errs Errors
	if err := sch.Validate(d.value); err != nil {
		var ve *jsonschema.ValidationError
		if !errors.As(err, &ve) {
			return Errors{{File: d.file, Message: err.Error()}}
		}
		var walk func(*jsonschema.ValidationError)
		walk = func(v *jsonschema.ValidationError) {
			if len(v.Causes) > 0 {
				for _, c := range v.Causes {
					walk(c)
				}
				return
			}
			errs = append(errs, d.schemaError(v)...)
		}
		walk(ve)
	}
	errs = append(errs, d.checkHeaderNames()...)
	slices.SortStableFunc(errs, func(a, b *Error) int {
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return a.Column - b.Column
	})
	return slices.CompactFunc(errs, func(a, b *Error) bool { return *a == *b })
}

// schemaError words one schema error for an operator: an unknown key with
// the key it most likely was, a wrong term with the term it most likely
// was; the validator's own words otherwise.
func (d *document) schemaError(v *jsonschema.ValidationError) Errors {
	ptr := ""
	for _, tok := range v.InstanceLocation {
		ptr += "/" + escape(tok)
	}
	switch k := v.ErrorKind.(type) {
	case *kind.AdditionalProperties:
		allowed := allowedProperties(v.SchemaURL)
		var errs Errors
		for _, p := range k.Properties {
			kp := ptr + "/" + escape(p)
			msg := fmt.Sprintf("unknown key %q", p)
			if n := translate.NearestName(p, allowed); n != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", n)
			} else if len(allowed) > 0 {
				msg += ": the keys here are " + strings.Join(allowed, ", ")
			}
			e := d.at(kp, msg)
			if kn := d.keys[kp]; kn != nil {
				e.Line, e.Column = kn.Line, kn.Column
			}
			errs = append(errs, e)
		}
		return errs
	case *kind.Required:
		var errs Errors
		for _, m := range k.Missing {
			errs = append(errs, d.at(ptr, fmt.Sprintf("missing required key %q", m)))
		}
		return errs
	case *kind.Enum:
		got, ok := k.Got.(string)
		if !ok {
			got = fmt.Sprint(k.Got)
		}
		want := make([]string, 0, len(k.Want))
		for _, w := range k.Want {
			if s, ok := w.(string); ok {
				want = append(want, s)
			}
		}
		msg := fmt.Sprintf("%q is not one of %s", got, strings.Join(want, ", "))
		if n := translate.NearestName(got, want); n != "" {
			msg = fmt.Sprintf("%q is not one of these (did you mean %q?): %s", got, n, strings.Join(want, ", "))
		}
		return Errors{d.at(ptr, msg)}
	case *kind.Type:
		msg := k.LocalizedString(printer)
		if slices.Contains(k.Want, "string") && (k.Got == "number" || k.Got == "integer" || k.Got == "boolean") {
			if n := d.locate(ptr); n != nil {
				msg += fmt.Sprintf(": quote it (%q)", n.Value)
			}
		}
		return Errors{d.at(ptr, msg)}
	}
	return Errors{d.at(ptr, v.ErrorKind.LocalizedString(printer))}
}

// headerName is an HTTP field name (RFC 9110, token).
var headerName = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")

// checkHeaderNames refuses a match header that is no HTTP field name,
// which could never match. It is checked here, not with the schema's
// propertyNames: jsonschema/v6.0.3 reports a propertyNames error at a
// wrong instance location (santhosh-tekuri/jsonschema#258, #269).
func (d *document) checkHeaderNames() Errors {
	root, _ := d.value.(map[string]any)
	families, _ := root["providers"].([]any)
	var errs Errors
	for i, f := range families {
		fm, _ := f.(map[string]any)
		match, _ := fm["match"].(map[string]any)
		headers, _ := match["headers"].(map[string]any)
		for name := range headers {
			if headerName.MatchString(name) {
				continue
			}
			kp := fmt.Sprintf("/providers/%d/match/headers/%s", i, escape(name))
			e := d.at(kp, fmt.Sprintf("%q is not an HTTP header name (letters, digits and !#$%%&'*+.^_`|~-)", name))
			if kn := d.keys[kp]; kn != nil {
				e.Line, e.Column = kn.Line, kn.Column
			}
			errs = append(errs, e)
		}
	}
	return errs
}

// allowedProperties are the property names of the schema object at
// schemaURL (its fragment a pointer into schema.json), sorted.
func allowedProperties(schemaURL string) []string {
	_, frag, _ := strings.Cut(schemaURL, "#")
	var cur any = schemaDoc()
	for _, tok := range strings.Split(strings.TrimPrefix(frag, "/"), "/") {
		if tok == "" {
			continue
		}
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		cur = m[tok]
	}
	m, _ := cur.(map[string]any)
	props, _ := m["properties"].(map[string]any)
	names := make([]string, 0, len(props))
	for p := range props {
		if p != "$schema" {
			names = append(names, p)
		}
	}
	slices.Sort(names)
	return names
}

// decode reads the validated value into a PolicySpec: through JSON, so
// the struct's json tags (which the schema test pins) are the one mapping.
func (d *document) decode() *Error {
	if m, ok := d.value.(map[string]any); ok {
		delete(m, "$schema") // for editors only
	}
	raw, err := json.Marshal(d.value)
	if err != nil {
		return &Error{File: d.file, Message: err.Error()}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d.spec); err != nil {
		// The schema admits only what the struct holds; this is a schema
		// that drifted from PolicySpec, which the schema test guards.
		return &Error{File: d.file, Message: "does not decode as a policy: " + err.Error()}
	}
	return nil
}
