package server

import (
	"bytes"
	"encoding/json"
	"flag"
	"testing"

	"github.com/errsvc/errsvc/internal/golden"
)

var updatePlayground = flag.Bool("update", false, "rewrite server/playground/vectors.json from testdata/golden")

// playgroundExamples is the golden vector the playground loads first for
// each source of TranslateRequest's `source` oneof (marked "example" in
// vectors.json); every source has one.
var playgroundExamples = map[string]string{
	"labby_error":       "labby.retry_after.rate_limited",
	"agent_error":       "agent.code.RATE_LIMITED",
	"classified_error":  "classified.kind.rate_limited",
	"provider_response": "provider.anthropic-529-overloaded",
	"mcp_tool_result":   "mcp.kind.rate_limited",
	"grpc_status":       "grpc.details.unavailable_retry_info",
	"jsonrpc_error":     "jsonrpc.code.-32601",
	"http_error":        "http_error.too_many_requests_retry_after",
}

// The playground's vector picker lists the requests of the well-formed
// golden vectors; the file is generated so it cannot drift from them.
func TestPlaygroundVectorsAreCurrent(t *testing.T) {
	dir, err := golden.Dir()
	if err != nil {
		t.Fatal(err)
	}
	vectors, err := golden.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	type entry struct {
		Name    string          `json:"name"`
		Rule    string          `json:"rule,omitempty"`
		Example bool            `json:"example,omitempty"`
		Request json.RawMessage `json:"request"`
	}
	var out []entry
	found := map[string]bool{}
	for _, v := range vectors {
		if v.Error != nil {
			continue
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, v.Request); err != nil {
			t.Fatalf("%s: %v", v.Name, err)
		}
		var members map[string]json.RawMessage
		if err := json.Unmarshal(v.Request, &members); err != nil {
			t.Fatalf("%s: %v", v.Name, err)
		}
		example := false
		for source, name := range playgroundExamples {
			if _, ok := members[source]; ok && name == v.Name {
				example, found[source] = true, true
			}
		}
		out = append(out, entry{v.Name, v.Rule, example, compact.Bytes()})
	}
	for source, name := range playgroundExamples {
		if !found[source] {
			t.Errorf("the %s example %s is not a well-formed golden vector with that source", source, name)
		}
	}
	if len(out) < 100 {
		t.Fatalf("only %d well-formed golden vectors", len(out))
	}
	var buf bytes.Buffer
	buf.WriteString("[\n")
	for i, e := range out {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(b)
		if i < len(out)-1 {
			buf.WriteString(",")
		}
		buf.WriteString("\n")
	}
	buf.WriteString("]\n")
	golden.CheckGenerated(t, "server/playground/vectors.json", buf.String(), *updatePlayground, "run make generate")
}
