// Package openapi holds the generated OpenAPI document so binaries can serve
// it without reading files at run time.
package openapi

import _ "embed"

// JSON is errsvc.swagger.json as generated from the contract.
//
//go:embed errsvc.swagger.json
var JSON []byte
