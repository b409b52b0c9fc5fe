// Command answers prints, one JSON object a line, errsvc's answer with every
// target to every golden request (their answers are not read) and to a grid
// of classes, waits and statuses per source, for check.py to hold the
// provider-shaped answers to the real clients (the openai and anthropic
// SDKs, google-api-core).
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"google.golang.org/protobuf/encoding/protojson"

	"github.com/errsvc/errsvc/codec/openjson"
	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/internal/golden"
	"github.com/errsvc/errsvc/translate"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "answers:", err)
		os.Exit(1)
	}
}

func run() error {
	root, err := golden.ModuleRoot()
	if err != nil {
		return err
	}
	files, err := filepath.Glob(filepath.Join(root, "testdata", "golden", "*.json"))
	if err != nil {
		return err
	}
	sort.Strings(files)
	out := json.NewEncoder(os.Stdout)
	targets := []string{"classification", "http_status", "http_headers", "grpc_status", "openai_error", "anthropic_error", "google_error"}
	emit := func(name string, reqJSON []byte) error {
		req := &errsvcv1.TranslateRequest{}
		if err := openjson.Unmarshal(reqJSON, req); err != nil {
			return nil // a vector of a malformed request
		}
		req.Targets = targets
		resp, err := translate.Translate(req)
		if err != nil {
			return nil
		}
		b, err := protojson.MarshalOptions{UseProtoNames: true}.Marshal(resp)
		if err != nil {
			return err
		}
		return out.Encode(map[string]any{"name": name, "answer": json.RawMessage(b)})
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		var v struct {
			Request json.RawMessage `json:"request"`
		}
		if json.Unmarshal(b, &v) != nil || v.Request == nil {
			continue
		}
		if err := emit(filepath.Base(f), v.Request); err != nil {
			return err
		}
	}
	// A grid nobody wrote by hand: every class (and one outside the four)
	// with and without a wait, from a classified error, and every status
	// from a bare HTTP error.
	for _, class := range []string{"transient", "permanent", "auth_required", "context_overflow", "throttled"} {
		for _, wait := range []string{``, `,"retry_after_secs":2.5`, `,"retry_after_secs":30`, `,"retry_after_secs":600`} {
			req := fmt.Sprintf(`{"classified_error":{"code":"x","class":%q%s}}`, class, wait)
			if err := emit("grid."+class+wait, []byte(req)); err != nil {
				return err
			}
		}
	}
	for s := 400; s <= 599; s++ {
		for _, h := range []string{`{}`, `{"retry-after":"7"}`, `{"x-should-retry":"false"}`} {
			req := fmt.Sprintf(`{"http_error":{"status":%d,"headers":%s}}`, s, h)
			if err := emit(fmt.Sprintf("grid.http.%d.%s", s, h), []byte(req)); err != nil {
				return err
			}
		}
	}
	return nil
}
