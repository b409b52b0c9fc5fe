package golden

import (
	"testing"

	"google.golang.org/protobuf/encoding/protojson"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// Requests are the requests of every vector that answers (no error
// expected), decoded, in the vectors' order; it fails t when the vectors
// cannot be read.
func Requests(t testing.TB) []*errsvcv1.TranslateRequest {
	t.Helper()
	dir, err := Dir()
	if err != nil {
		t.Fatal(err)
	}
	vectors, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	reqs := make([]*errsvcv1.TranslateRequest, 0, len(vectors))
	for _, v := range vectors {
		if v.Error != nil {
			continue
		}
		req := &errsvcv1.TranslateRequest{}
		if err := protojson.Unmarshal(v.Request, req); err != nil {
			t.Fatalf("%s: %v", v.Name, err)
		}
		reqs = append(reqs, req)
	}
	return reqs
}
