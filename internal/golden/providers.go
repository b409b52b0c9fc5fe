package golden

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ProviderFixture is one file of testdata/providers: a real-shaped provider
// answer and the classification errsvc must give it. The provider package's
// tests and the engine's golden vectors both read them.
type ProviderFixture struct {
	Name   string `json:"name"`
	Why    string `json:"why"`
	Answer struct {
		Provider   string            `json:"provider"`
		Status     int               `json:"status"`
		Headers    map[string]string `json:"headers"`
		Body       string            `json:"body"`
		ReceivedAt string            `json:"received_at,omitempty"`
	} `json:"answer"`
	// Now is the clock of the fixture (RFC 3339).
	Now  string `json:"now"`
	Want struct {
		Class          string  `json:"class"`
		RetryAfterSecs *uint32 `json:"retry_after_secs,omitempty"`
		Kind           string  `json:"kind"`
		// Optional: asserted only when present.
		Rule       string `json:"rule,omitempty"`
		Code       string `json:"code,omitempty"`
		WaitSource string `json:"wait_source,omitempty"`
		Stream     *bool  `json:"stream,omitempty"`
		// AfterOutput: the error came after the stream delivered output.
		AfterOutput *bool `json:"after_output,omitempty"`
		// Limit: the limit facet a person reads in the answer; asserted
		// only when present (an empty member is not checked, except scope).
		Limit *FixtureLimit `json:"limit,omitempty"`
	} `json:"want"`
}

// FixtureLimit is a fixture's expected limit facet. Kind "none" says the
// answer is not a limit.
type FixtureLimit struct {
	Kind      string  `json:"kind"`
	Dimension string  `json:"dimension,omitempty"`
	Scope     string  `json:"scope,omitempty"`
	ResetAt   string  `json:"reset_at,omitempty"`
	Remaining *uint64 `json:"remaining,omitempty"`
	Limit     *uint64 `json:"limit,omitempty"`
	Decision  string  `json:"decision,omitempty"`
}

// LoadProviderFixtures reads every fixture of testdata/providers, sorted
// by file name; unknown fields are an error, so a typo cannot hide.
func LoadProviderFixtures() ([]ProviderFixture, error) {
	root, err := ModuleRoot()
	if err != nil {
		return nil, err
	}
	paths, err := filepath.Glob(filepath.Join(root, "testdata", "providers", "*.json"))
	if err != nil {
		return nil, err
	}
	var fs []ProviderFixture
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		var f ProviderFixture
		d := json.NewDecoder(strings.NewReader(string(raw)))
		d.DisallowUnknownFields()
		if err := d.Decode(&f); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		if f.Name+".json" != filepath.Base(p) {
			return nil, fmt.Errorf("%s: name %q does not match the file name", p, f.Name)
		}
		fs = append(fs, f)
	}
	return fs, nil
}
