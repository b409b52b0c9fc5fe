package errsvcclient

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// The in-process client reads the same policy file a server's --policy
// does, and answers as the server would under it.
func TestInProcessWithPolicyFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(path, []byte(`version: "2026-12-04"
kinds:
  - kind: gpu_out_of_memory
    meaning: The model server ran out of GPU memory.
    class: transient
    http_status: 503
    agent_code: EXECUTION_FAILED
`), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := NewInProcessWithPolicyFile(path)
	if err != nil {
		t.Fatal(err)
	}
	req := &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_LabbyError{LabbyError: &errsvcv1.LabbyError{Kind: "gpu_out_of_memory"}}}
	resp, err := c.Translate(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.GetClassification().GetClass() != "transient" || resp.GetHttpStatus() != 503 {
		t.Errorf("under the policy: class %q, HTTP %d", resp.GetClassification().GetClass(), resp.GetHttpStatus())
	}
	plain, err := NewInProcess().Translate(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if plain.GetHttpStatus() == 503 {
		t.Error("without the policy the kind is already known: the test proves nothing")
	}
	if _, err := NewInProcessWithPolicyFile(filepath.Join(t.TempDir(), "missing.yaml")); err == nil || !strings.Contains(err.Error(), "missing.yaml") {
		t.Errorf("a missing file: %v", err)
	}
}
