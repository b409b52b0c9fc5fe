package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/errsvc/errsvc/internal/golden"
)

func readGen(t *testing.T, name string) []byte {
	t.Helper()
	root, err := golden.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "gen", "openapi", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// schemas compiles the named component schemas of the committed document
// with a JSON Schema 2020-12 validator (OpenAPI 3.1's dialect).
func schemas(t *testing.T, names ...string) map[string]*jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(readGen(t, "errsvc.openapi.json")))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("https://errsvc.invalid/openapi.json", doc); err != nil {
		t.Fatal(err)
	}
	out := map[string]*jsonschema.Schema{}
	for _, n := range names {
		s, err := c.Compile("https://errsvc.invalid/openapi.json#/components/schemas/" + n)
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		out[n] = s
	}
	return out
}

func instance(t *testing.T, raw string) any {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestCommittedDocumentIsCurrent(t *testing.T) {
	got, err := Convert(readGen(t, "errsvc.swagger.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, readGen(t, "errsvc.openapi.json")) {
		t.Error("gen/openapi/errsvc.openapi.json is out of date: run make generate")
	}
}

// The schema says what the server does: every request the golden vectors
// send (well-formed ones) is valid, every answer they pin is valid, and
// the requests the server refuses for their shape are invalid.
func TestSchemasAgreeWithGoldenVectors(t *testing.T) {
	s := schemas(t, "v1TranslateRequest", "v1TranslateResponse")
	dir, err := golden.Dir()
	if err != nil {
		t.Fatal(err)
	}
	vectors, err := golden.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, v := range vectors {
		if v.Error != nil {
			continue
		}
		checked++
		if err := s["v1TranslateRequest"].Validate(instance(t, string(v.Request))); err != nil && !streamedUnder400(v.Request) && !statusBin(v.Request) {
			t.Errorf("%s: request is schema-invalid: %v", v.Name, err)
		}
		if err := s["v1TranslateResponse"].Validate(instance(t, string(v.Response))); err != nil {
			t.Errorf("%s: response is schema-invalid: %v", v.Name, err)
		}
	}
	if checked < 100 {
		t.Fatalf("only %d vectors checked", checked)
	}
	for _, bad := range []string{
		`{}`,
		`{"targets":["labby_error"]}`,
		`{"labby_error":{"kind":"x"},"agent_error":{"code":"RATE_LIMITED"}}`,
		`{"labby_error":null}`,
		`{"labby_error":{}}`,
		`{"labby_error":{"kind":"\u200b"}}`,
		`{"agent_error":{"code":""}}`,
		`{"mcp_tool_result":{"is_error":false}}`,
		`{"provider_response":{"status":600}}`,
		`{"provider_response":{"status":200}}`,
		`{"provider_response":{"status":200,"body":"ok"}}`,
		`{"classified_error":{"class":"transient","retry_after_secs":-1}}`,
		`{"labby_error":{"kind":"x","contract_version":4294967296}}`,
		`{"labby_error":{"kind":"x","contract_version":-1}}`,
	} {
		if err := s["v1TranslateRequest"].Validate(instance(t, bad)); err == nil {
			t.Errorf("schema accepts %s, which the server refuses", bad)
		}
	}
	for _, good := range []string{
		`{"labby_error":{"kind":"x","unknown_member":{"a":1}},"also_unknown":true}`,
		`{"labby_error":{"kind":"x"},"agent_error":null}`,
	} {
		if err := s["v1TranslateRequest"].Validate(instance(t, good)); err != nil {
			t.Errorf("schema refuses %s, which the server reads: %v", good, err)
		}
	}
}

// streamedUnder400 is a provider answer whose error is in a stream other
// than the plain "event: error" the schema states (see v1ProviderResponse).
func streamedUnder400(req []byte) bool {
	var r struct {
		P *struct {
			Status int    `json:"status"`
			Body   string `json:"body"`
		} `json:"provider_response"`
	}
	// A 2xx that carries its error in the body (an event stream, or a JSON
	// error object as gateways answer) is described in its plainest form
	// only: a schema pattern cannot say "holds an error" for every shape.
	return json.Unmarshal(req, &r) == nil && r.P != nil && r.P.Status < 400 &&
		(strings.Contains(r.P.Body, "data:") || strings.Contains(r.P.Body, "event:") || strings.Contains(r.P.Body, `"error"`))
}

// Every typed error answer requires its detail, and 429 documents
// Retry-After.
func TestErrorAnswersTyped(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal(readGen(t, "errsvc.openapi.json"), &doc); err != nil {
		t.Fatal(err)
	}
	if v := doc["info"].(map[string]any)["version"]; v != Version {
		t.Errorf("info.version %v", v)
	}
	paths := doc["paths"].(map[string]any)
	for path, ops := range paths {
		for method, op := range ops.(map[string]any) {
			resp := op.(map[string]any)["responses"].(map[string]any)
			want := []string{"200", "429", "default"}
			if method == "post" {
				want = append(want, "400", "413")
			}
			for _, code := range want {
				if resp[code] == nil {
					t.Errorf("%s %s: no %s answer", method, path, code)
				}
			}
			if h, _ := resp["429"].(map[string]any)["headers"].(map[string]any); h["Retry-After"] == nil {
				t.Errorf("%s %s: 429 without Retry-After", method, path)
			}
		}
	}
	s := schemas(t, "InvalidArgumentStatus", "QuotaExceededStatus")
	if err := s["InvalidArgumentStatus"].Validate(instance(t, `{"code":3,"message":"x","details":[]}`)); err == nil {
		t.Error("a 400 without BadRequest validates")
	}
	ok := `{"code":8,"message":"x","details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"subject":"concurrent_requests","description":"d"}]},{"@type":"type.googleapis.com/google.rpc.RetryInfo","retry_delay":"1s"}]}`
	if err := s["QuotaExceededStatus"].Validate(instance(t, ok)); err != nil {
		t.Errorf("a real 429 body is invalid: %v", err)
	}
}

// No $ref has siblings, which tools drop: descriptions sit in wrappers.
func TestNoRefSiblings(t *testing.T) {
	var doc any
	if err := json.Unmarshal(readGen(t, "errsvc.openapi.json"), &doc); err != nil {
		t.Fatal(err)
	}
	var walk func(any, string)
	walk = func(v any, at string) {
		switch v := v.(type) {
		case map[string]any:
			if _, ok := v["$ref"]; ok && len(v) > 1 {
				t.Errorf("%s: $ref with siblings", at)
			}
			for k, c := range v {
				walk(c, at+"/"+k)
			}
		case []any:
			for _, c := range v {
				walk(c, at+"/[]")
			}
		}
	}
	walk(doc, "")
	if !bytes.Contains(readGen(t, "errsvc.openapi.json"), []byte(`"description": "A Labby envelope, or a legacy {kind, message}."`)) {
		t.Error("a field description beside a $ref was lost")
	}
}

// statusBin: a grpc_status given as serialized bytes, for gRPC callers; the
// document states the JSON form only (bytes a schema cannot check).
func statusBin(req []byte) bool {
	var r struct {
		G *struct {
			Bin string `json:"status_bin"`
		} `json:"grpc_status"`
	}
	return json.Unmarshal(req, &r) == nil && r.G != nil && r.G.Bin != ""
}
