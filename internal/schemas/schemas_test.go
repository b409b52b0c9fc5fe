package schemas

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/internal/testenv"
)

// The vendored schemas must be the published ones: when ../shared sits
// beside the repository (as in CI), they are compared byte for byte.
func TestVendoredSchemasMatchReference(t *testing.T) {
	dir, err := Dir()
	if err != nil {
		t.Fatal(err)
	}
	ref := filepath.Join(testenv.Shared(t), "reference", "schemas")
	for _, f := range []string{AgentErrorFile, CodeModeErrorFile, "agent-surface-error-matrix.json"} {
		a, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(ref, f))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("testdata/schemas/%s differs from the reference copy", f)
		}
	}
}

// testdata/reference/README.md, the reference tables the oracle tests of
// translate parse, must be the reference's own text: when ../shared sits
// beside the repository (as in CI), they are compared byte for byte.
func TestVendoredReferenceMatchesShared(t *testing.T) {
	dir, err := Dir()
	if err != nil {
		t.Fatal(err)
	}
	a, err := os.ReadFile(filepath.Join(dir, "..", "reference", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(testenv.Shared(t), "reference", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Error("testdata/reference/README.md differs from ../shared/reference/README.md: copy it again")
	}
}

// The validator must reject what the schema forbids, or every schema
// assertion elsewhere could never fail.
func TestValidatorRejects(t *testing.T) {
	bad := []*errsvcv1.LabbyError{
		{Kind: "x", Message: "m", Origin: "runtime", SideEffects: "unknown", Recovery: &errsvcv1.Recovery{Action: "do_not_retry", SameArguments: "never", Guidance: "g"}},                    // contract_version 0
		{ContractVersion: 1, Kind: "x", Message: "m", Origin: "mars", SideEffects: "unknown", Recovery: &errsvcv1.Recovery{Action: "do_not_retry", SameArguments: "never", Guidance: "g"}},   // origin
		{ContractVersion: 1, Kind: "x", Message: "m", Origin: "runtime", SideEffects: "unknown"},                                                                                             // recovery
		{ContractVersion: 1, Kind: "x", Message: "", Origin: "runtime", SideEffects: "unknown", Recovery: &errsvcv1.Recovery{Action: "do_not_retry", SameArguments: "never", Guidance: "g"}}, // message
	}
	for i, e := range bad {
		if err := Validate(AgentErrorFile, e); err == nil {
			t.Errorf("case %d: invalid envelope accepted", i)
		}
	}
	good := &errsvcv1.LabbyError{ContractVersion: 1, Kind: "x", Message: "m", Origin: "runtime", SideEffects: "unknown", Recovery: &errsvcv1.Recovery{Action: "do_not_retry", SameArguments: "never", Guidance: "g"}}
	if err := Validate(AgentErrorFile, good); err != nil {
		t.Errorf("valid envelope rejected: %v", err)
	}
	cm := &errsvcv1.LabbyError{ContractVersion: 1, Kind: "x", Message: "m", Origin: "runtime", SideEffects: "unknown", Tool: "no-namespace", Recovery: &errsvcv1.Recovery{Action: "do_not_retry", SameArguments: "never", Guidance: "g"}}
	if err := Validate(CodeModeErrorFile, cm); err == nil {
		t.Error("code mode error with origin runtime and a bare tool name accepted")
	}
}
