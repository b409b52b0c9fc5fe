package server

import (
	"encoding/json"
	"testing"

	"github.com/errsvc/errsvc/gen/openapi"
	"github.com/errsvc/errsvc/internal/version"
)

// TestOpenAPIVersion: /openapi.json names the running build's version and
// is otherwise the generated document.
func TestOpenAPIVersion(t *testing.T) {
	r := start(t, Options{})
	_, body := r.get(t, "/openapi.json")
	var served, generated map[string]any
	if err := json.Unmarshal(body, &served); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(openapi.JSON, &generated); err != nil {
		t.Fatalf("generated document does not parse: %v", err)
	}
	info, _ := served["info"].(map[string]any)
	if info["version"] != version.Get().Version || info["version"] == "version not set" || info["title"] != "errsvc" {
		t.Errorf("info %v, want version %q", info, version.Get().Version)
	}
	delete(served, "info")
	delete(generated, "info")
	a, _ := json.Marshal(served)
	b, _ := json.Marshal(generated)
	if string(a) != string(b) {
		t.Error("served document differs from the generated one beyond info")
	}
}
