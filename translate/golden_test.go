package translate

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/errsvc/errsvc/codec/openjson"
	"google.golang.org/protobuf/testing/protocmp"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/internal/golden"
	"github.com/errsvc/errsvc/internal/schemas"
)

var update = flag.Bool("update", false, "rewrite testdata/golden from goldenCases and the engine")

var jsonOut = protojson.MarshalOptions{UseProtoNames: true}

func TestGolden(t *testing.T) {
	dir, err := golden.Dir()
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		writeGolden(t, dir)
	}
	vectors, err := golden.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(vectors) < 200 {
		t.Errorf("only %d golden vectors; the engine is pinned by at least 200", len(vectors))
	}
	onDisk := map[string]bool{}
	for _, v := range vectors {
		onDisk[v.Name] = true
		t.Run(v.Name, func(t *testing.T) { checkVector(t, v) })
	}
	// A new matrix row without its vectors fails here until -update runs.
	for _, c := range goldenCases() {
		if !onDisk[c.name] {
			t.Errorf("golden vector %s is missing: run go test ./translate -run TestGolden -update", c.name)
		}
	}
}

func checkVector(t *testing.T, v golden.Vector) {
	t.Helper()
	req := &errsvcv1.TranslateRequest{}
	if err := protojson.Unmarshal(v.Request, req); err != nil {
		t.Fatalf("request: %v", err)
	}
	resp, err := Translate(req)
	if v.Error != nil {
		var re *RequestError
		if !errors.As(err, &re) {
			t.Fatalf("want a RequestError naming %q, got %v", v.Error.Field, err)
		}
		if re.Field != v.Error.Field {
			t.Fatalf("error names %q, want %q", re.Field, v.Error.Field)
		}
		return
	}
	if err != nil {
		t.Fatalf("Translate: %v", err)
	}
	want := &errsvcv1.TranslateResponse{}
	if err := protojson.Unmarshal(v.Response, want); err != nil {
		t.Fatalf("expected response: %v", err)
	}
	if diff := cmp.Diff(want, resp, protocmp.Transform()); diff != "" {
		t.Errorf("response differs from the vector (-want +got):\n%s", diff)
	}
	schemas.AssertResponse(t, resp)
}

func writeGolden(t *testing.T, dir string) {
	t.Helper()
	old, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	for _, f := range old {
		if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range goldenCases() {
		v := golden.Vector{Name: c.name, Rule: c.rule}
		if ec, ok := c.request.(errorCase); ok {
			v.Request = mustJSON(ec.request)
			v.Error = &golden.Error{Field: ec.field}
		} else {
			v.Request = mustJSON(c.request)
			req := &errsvcv1.TranslateRequest{}
			if err := protojson.Unmarshal(v.Request, req); err != nil {
				// A request in its producer's shape, with members the
				// contract does not model: the vector keeps the canonical
				// form (additional_fields explicit), which every SDK's
				// protobuf JSON parser reads.
				if err := openjson.Unmarshal(v.Request, req); err != nil {
					t.Fatalf("%s: %v", c.name, err)
				}
				canonical, err := protojson.MarshalOptions{UseProtoNames: true}.Marshal(req)
				if err != nil {
					t.Fatal(err)
				}
				v.Request = canonical
			}
			resp, err := Translate(req)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			b, err := jsonOut.Marshal(resp)
			if err != nil {
				t.Fatal(err)
			}
			v.Response = b
		}
		if strings.ContainsAny(v.Name, "/ ") {
			t.Fatalf("vector name %q is not a file name", v.Name)
		}
		if err := golden.Write(dir, v); err != nil {
			t.Fatal(err)
		}
	}
}
