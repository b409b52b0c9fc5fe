// Command openapigen writes errsvc's OpenAPI 3.1 document from the Swagger
// 2.0 one protoc-gen-openapiv2 generates, completed from the proto
// descriptors with what Swagger cannot say or the plugin does not write:
// the TranslateRequest source oneof as oneOf (exactly one source), every
// error answer typed with its google.rpc detail messages and headers,
// integer bounds, the document's version, descriptions wrapped so they
// survive beside a $ref, and the request objects' openness (members the
// contract does not model are accepted). `make generate` runs it:
//
//	go run ./internal/openapigen -in gen/openapi/errsvc.swagger.json -out gen/openapi/errsvc.openapi.json
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/getkin/kin-openapi/openapi2"
	"github.com/getkin/kin-openapi/openapi2conv"
)

func main() {
	in := flag.String("in", "gen/openapi/errsvc.swagger.json", "Swagger 2.0 document from protoc-gen-openapiv2")
	out := flag.String("out", "gen/openapi/errsvc.openapi.json", "OpenAPI 3.1 document to write")
	flag.Parse()
	src, err := os.ReadFile(*in)
	if err != nil {
		fail(err)
	}
	doc, err := Convert(src)
	if err != nil {
		fail(err)
	}
	if err := os.WriteFile(*out, doc, 0o644); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "openapigen:", err)
	os.Exit(1)
}

// Convert turns the Swagger 2.0 document into the completed OpenAPI 3.1 one.
func Convert(swagger []byte) ([]byte, error) {
	// kin-openapi keeps only the $ref of a schema that has one, so the
	// descriptions protoc-gen-openapiv2 writes beside $refs are wrapped into
	// allOf first (valid in 2.0 too), where they survive the conversion.
	var tree any
	if err := json.Unmarshal(swagger, &tree); err != nil {
		return nil, fmt.Errorf("read Swagger 2.0: %w", err)
	}
	wrapRefs(tree)
	swagger, err := json.Marshal(tree)
	if err != nil {
		return nil, err
	}
	var v2 openapi2.T
	if err := json.Unmarshal(swagger, &v2); err != nil {
		return nil, fmt.Errorf("read Swagger 2.0: %w", err)
	}
	v3, err := openapi2conv.ToV3(&v2)
	if err != nil {
		return nil, fmt.Errorf("convert to OpenAPI 3: %w", err)
	}
	raw, err := json.Marshal(v3)
	if err != nil {
		return nil, err
	}
	// The completion works on the plain JSON tree: 3.1 constructs (type
	// arrays, const, $ref siblings) are not all in kin-openapi's 3.0 model.
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, err
	}
	if err := complete(doc); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
