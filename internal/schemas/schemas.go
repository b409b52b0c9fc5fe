// Package schemas validates emitted envelopes against the published JSON
// Schemas (testdata/schemas, a copy of ../shared/reference/schemas) with a
// real JSON Schema validator. Tests, fuzz targets and SDK checks share it.
package schemas

import (
	"bytes"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/internal/golden"
)

// The schema files, by the response field they govern.
const (
	AgentErrorFile    = "agent-error.schema.json"
	CodeModeErrorFile = "code-mode-call-error.schema.json"
)

var (
	once     sync.Once
	compiled map[string]*jsonschema.Schema
	loadErr  error
)

// Dir is testdata/schemas of the module.
func Dir() (string, error) {
	root, err := golden.ModuleRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "testdata", "schemas"), nil
}

func load() {
	dir, err := Dir()
	if err != nil {
		loadErr = err
		return
	}
	c := jsonschema.NewCompiler()
	compiled = map[string]*jsonschema.Schema{}
	for _, f := range []string{AgentErrorFile, CodeModeErrorFile} {
		s, err := c.Compile(filepath.Join(dir, f))
		if err != nil {
			loadErr = fmt.Errorf("compile %s: %w", f, err)
			return
		}
		compiled[f] = s
	}
}

// Validate checks one message, marshalled as errsvc emits it (proto field
// names), against the named schema file.
func Validate(file string, m proto.Message) error {
	once.Do(load)
	if loadErr != nil {
		return loadErr
	}
	b, err := protojson.MarshalOptions{UseProtoNames: true}.Marshal(m)
	if err != nil {
		return err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return err
	}
	return compiled[file].Validate(doc)
}

// ValidateResponse checks every envelope a response carries.
func ValidateResponse(resp *errsvcv1.TranslateResponse) error {
	if e := resp.GetLabbyError(); e != nil {
		if err := Validate(AgentErrorFile, e); err != nil {
			return fmt.Errorf("labby_error: %w", err)
		}
	}
	if e := resp.GetCodeModeError(); e != nil {
		if err := Validate(CodeModeErrorFile, e); err != nil {
			return fmt.Errorf("code_mode_error: %w", err)
		}
	}
	return nil
}

// AssertResponse fails the test when an envelope of resp is schema-invalid.
func AssertResponse(t testing.TB, resp *errsvcv1.TranslateResponse) {
	t.Helper()
	if err := ValidateResponse(resp); err != nil {
		t.Errorf("schema: %v", err)
	}
}
