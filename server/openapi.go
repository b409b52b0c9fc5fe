package server

import (
	"encoding/json"
	"sync"

	"github.com/errsvc/errsvc/gen/openapi"
	"github.com/errsvc/errsvc/internal/version"
)

// openAPIDocument is the generated OpenAPI document as served on
// /openapi.json, with info.version set to the running build's version
// (the generator cannot know it: gen/ stays as generated, and one binary
// serves the document of its own release) and a title that names the
// service rather than the proto file.
var openAPIDocument = sync.OnceValue(func() []byte {
	return withVersion(openapi.JSON, version.Get().Version)
})

func withVersion(doc []byte, v string) []byte {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(doc, &top); err != nil {
		return doc // a generated document that does not parse is served as is; a test checks it parses
	}
	var info map[string]any
	_ = json.Unmarshal(top["info"], &info)
	if info == nil {
		info = map[string]any{}
	}
	info["version"] = v
	info["title"] = "errsvc"
	raw, err := json.Marshal(info)
	if err != nil {
		return doc
	}
	top["info"] = raw
	out, err := json.MarshalIndent(top, "", "  ")
	if err != nil {
		return doc
	}
	return out
}
