package server

import (
	"bytes"
	"encoding/json"
	"flag"
	"testing"

	"github.com/errsvc/errsvc/internal/golden"
)

var updatePlayground = flag.Bool("update", false, "rewrite server/playground/vectors.json from testdata/golden")

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
		Request json.RawMessage `json:"request"`
	}
	var out []entry
	for _, v := range vectors {
		if v.Error != nil {
			continue
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, v.Request); err != nil {
			t.Fatalf("%s: %v", v.Name, err)
		}
		out = append(out, entry{v.Name, v.Rule, compact.Bytes()})
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
