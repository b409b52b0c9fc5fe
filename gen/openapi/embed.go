// Package openapi holds the generated OpenAPI documents so binaries can
// serve them without reading files at run time.
package openapi

import _ "embed"

// JSON is errsvc.openapi.json, the OpenAPI 3.1 document: the Swagger 2.0
// one converted and completed from the proto descriptors by
// internal/openapigen.
//
//go:embed errsvc.openapi.json
var JSON []byte

// Swagger is errsvc.swagger.json, the Swagger 2.0 document
// protoc-gen-openapiv2 generates from the contract.
//
//go:embed errsvc.swagger.json
var Swagger []byte
