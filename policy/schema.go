package policy

import (
	"bytes"
	_ "embed"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// schemaJSON is the published JSON Schema of a policy file (draft 2020-12).
// Its vocabulary enums are generated from the contract (translate's
// vocabularies): `go test ./policy -run TestPolicySchemaEnums -update` rewrites
// them, and the test fails when they drift.
//
//go:embed schema.json
var schemaJSON []byte

// SchemaURL is the schema's $id: where it is published.
const SchemaURL = "https://raw.githubusercontent.com/errsvc/errsvc/main/policy/schema.json"

// Schema is the policy file's JSON Schema, as published (a copy).
func Schema() []byte { return bytes.Clone(schemaJSON) }

// compiled is the schema compiled once: it is embedded, so a failure is a
// build defect, kept and reported by every Load rather than a panic.
var compiled = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(SchemaURL, doc); err != nil {
		return nil, err
	}
	return c.Compile(SchemaURL)
})

// schemaDoc is the schema as a tree, for the property names an unknown
// key is compared with ("did you mean").
var schemaDoc = sync.OnceValue(func() map[string]any {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
	if err != nil {
		return nil
	}
	m, _ := doc.(map[string]any)
	return m
})
