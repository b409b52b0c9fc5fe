// Command errsvc is the scorecard's runner for errsvc itself: it sends every
// provider fixture to translate.Translate in-process, as a provider_response
// request (the way the golden vectors do, with received_at pinned to the
// fixture's clock), and prints the answers file the scorer reads:
//
//	{"$meta": {...}, "<fixture name>": {"class": ..., "retry": ..., "wait_s": ...}}
//
// class is the Error Class Contract class errsvc answers ("" when errsvc
// refuses the answer as not an error), retry is class == "transient" (the
// contract's consumer decision), wait_s its retry_after_secs, limit_kind
// and limit_decision the limit facet's kind and decision.
//
//	go run ./scorecard/errsvc [-fixtures testdata/providers] > answers/errsvc.json
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/errsvc/errsvc/codec/openjson"
	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/internal/golden"
	"github.com/errsvc/errsvc/internal/version"
	"github.com/errsvc/errsvc/translate"
)

type answer struct {
	Class *string  `json:"class"`
	Retry *bool    `json:"retry"`
	Wait  *float64 `json:"wait_s"`
	// LimitKind and LimitDecision are the limit facet's kind ("" when the
	// answer is not a limit) and decision ("" when it states none).
	LimitKind     *string `json:"limit_kind"`
	LimitDecision *string `json:"limit_decision"`
}

func main() {
	dir := flag.String("fixtures", "", "the fixture folder (default: testdata/providers of this module)")
	ver := flag.String("version", "", "the errsvc version to record (default: the build's)")
	flag.Parse()
	if *ver != "" {
		buildName = *ver
	}
	if err := run(*dir); err != nil {
		fmt.Fprintln(os.Stderr, "scorecard/errsvc:", err)
		os.Exit(1)
	}
}

func run(dir string) error {
	if dir == "" {
		root, err := golden.ModuleRoot()
		if err != nil {
			return err
		}
		dir = filepath.Join(root, "testdata", "providers")
	}
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return err
	}
	sort.Strings(paths)
	out := map[string]any{"$meta": map[string]any{
		"classifier": "errsvc",
		"version":    buildName,
		"how":        "translate.Translate on a provider_response request, in-process",
	}}
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		var fx golden.ProviderFixture
		if err := json.Unmarshal(raw, &fx); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		a, err := classify(fx)
		if err != nil {
			return fmt.Errorf("%s: %w", fx.Name, err)
		}
		out[fx.Name] = a
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", " ")
	return enc.Encode(out)
}

func classify(fx golden.ProviderFixture) (answer, error) {
	received := fx.Answer.ReceivedAt
	if received == "" {
		received = fx.Now
	}
	resp := map[string]any{"provider": fx.Answer.Provider, "status": fx.Answer.Status, "headers": fx.Answer.Headers, "body": fx.Answer.Body, "received_at": received}
	b, err := json.Marshal(map[string]any{"provider_response": resp, "targets": []string{"classification", "limit"}})
	if err != nil {
		return answer{}, err
	}
	req := &errsvcv1.TranslateRequest{}
	if err := openjson.Unmarshal(b, req); err != nil {
		return answer{}, err
	}
	no := false
	got, err := translate.Translate(req)
	var rerr *translate.RequestError
	if errors.As(err, &rerr) {
		// errsvc refuses an answer that is not an error (a 2xx without an
		// error in it): no class, no retry, no limit.
		none := ""
		return answer{Class: &none, Retry: &no, LimitKind: &none}, nil
	}
	if err != nil {
		return answer{}, err
	}
	c := got.GetClassification()
	class := c.GetClass()
	retry := class == "transient"
	// A 2xx that reports its rate limits answers the limit facet alone:
	// no class (not an error), its limit.
	kind, decision := got.GetLimit().GetKind(), got.GetLimit().GetDecision()
	a := answer{Class: &class, Retry: &retry, LimitKind: &kind}
	if decision != "" {
		a.LimitDecision = &decision
	}
	if c != nil && c.RetryAfterSecs != nil {
		w := float64(c.GetRetryAfterSecs())
		a.Wait = &w
	}
	return a, nil
}

// buildName names the errsvc build (-version, else the build's version).
var buildName = version.Get().String()
