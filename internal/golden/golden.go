// Package golden loads the shared golden vectors of testdata/golden: one
// JSON file per vector, {name, rule, request, response | error}. The Go
// tests, the server's end-to-end tests and every SDK's tests read the same
// files.
package golden

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Vector is one request and the answer errsvc must give to it.
type Vector struct {
	// Name is unique; it is also the file name without ".json".
	Name string `json:"name"`
	// Rule says which row or rule of the matrix the vector pins.
	Rule string `json:"rule,omitempty"`
	// Request is a TranslateRequest in JSON (proto field names).
	Request json.RawMessage `json:"request"`
	// Response is the expected TranslateResponse in JSON, for a well-formed request.
	Response json.RawMessage `json:"response,omitempty"`
	// Error is set instead of Response for a malformed request.
	Error *Error `json:"error,omitempty"`
}

// Error is the expected failure of a malformed request.
type Error struct {
	// Field is the BadRequest field violation's field.
	Field string `json:"field"`
}

// Dir returns testdata/golden of the module, found by walking up from the
// working directory to go.mod.
func Dir() (string, error) {
	root, err := ModuleRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "testdata", "golden"), nil
}

// ModuleRoot walks up from the working directory to the folder with go.mod.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory")
		}
		dir = parent
	}
}

// Load reads every vector of dir, sorted by name.
func Load(dir string) ([]Vector, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var vs []Vector
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		var v Vector
		if err := json.Unmarshal(b, &v); err != nil {
			return nil, fmt.Errorf("%s: %w", e.Name(), err)
		}
		if v.Name+".json" != e.Name() {
			return nil, fmt.Errorf("%s: name %q does not match the file name", e.Name(), v.Name)
		}
		vs = append(vs, v)
	}
	sort.Slice(vs, func(i, j int) bool { return vs[i].Name < vs[j].Name })
	return vs, nil
}

// Write stores a vector as indented JSON in dir.
func Write(dir string, v Vector) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, v.Name+".json"), append(b, '\n'), 0o644)
}
