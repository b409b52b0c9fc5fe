package errjson_test

import (
	"testing"

	"github.com/errsvc/errsvc/codec"
	"github.com/errsvc/errsvc/codec/errjson"
	"github.com/errsvc/errsvc/codec/openjson"
	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// seedBodies are every golden request and answer, and the edge cases of
// edge_test.go.
func seedBodies(f *testing.F) [][]byte {
	var out [][]byte
	for _, v := range goldenVectors(f) {
		out = append(out, v.Request)
		if v.Response != nil {
			out = append(out, v.Response)
		}
	}
	for _, s := range edgeBodies {
		out = append(out, []byte(s))
	}
	return out
}

// FuzzDecode: on any body, errjson reads the message openjson (protojson)
// reads, or both refuse, naming the same field where protojson names one.
func FuzzDecode(f *testing.F) {
	for _, b := range seedBodies(f) {
		f.Add(b, false)
	}
	f.Fuzz(func(t *testing.T, body []byte, answer bool) {
		if answer {
			checkDecode(t, body, &errsvcv1.TranslateResponse{})
			return
		}
		checkDecode(t, body, &errsvcv1.TranslateRequest{})
		checkDecode(t, body, &errsvcv1.TranslateBatchRequest{})
		checkBatch(t, body)
	})
}

// FuzzEncode: any answer (or request) built from fuzz bytes by the binary
// decoder is written so that openjson reads it back to the same message,
// and errjson fails to write exactly what openjson fails to write.
func FuzzEncode(f *testing.F) {
	for _, v := range goldenVectors(f) {
		for _, raw := range [][]byte{v.Response, v.Request} {
			if raw == nil {
				continue
			}
			var m errsvcv1.TranslateResponse
			var r errsvcv1.TranslateRequest
			if openjson.Unmarshal(raw, &m) == nil {
				if b, err := m.MarshalVT(); err == nil {
					f.Add(b, true)
				}
			} else if openjson.Unmarshal(raw, &r) == nil {
				if b, err := r.MarshalVT(); err == nil {
					f.Add(b, false)
				}
			}
		}
	}
	f.Fuzz(func(t *testing.T, wire []byte, answer bool) {
		if answer {
			m := &errsvcv1.TranslateResponse{}
			if m.UnmarshalVT(wire) != nil {
				return
			}
			checkEncode(t, m)
			return
		}
		m := &errsvcv1.TranslateRequest{}
		if m.UnmarshalVT(wire) != nil {
			return
		}
		checkEncode(t, m)
	})
}

func itemCheck(raw []byte) (string, string, bool) {
	if fe, ok := codec.CheckJSON(raw, codec.MaxJSONDepth).(*codec.FieldError); ok {
		return fe.Field, fe.Description, false
	}
	return "", "", true
}

// checkBatch: errjson's batch reader fails as a whole where openjson's
// does, and otherwise keeps each item as openjson keeps it: the same
// message, or marked invalid in both.
func checkBatch(t *testing.T, body []byte) {
	t.Helper()
	if codec.CheckJSON(body, 1<<20) != nil {
		return // broken text: refused before either decoder runs
	}
	var got, want errsvcv1.TranslateBatchRequest
	gotErr := errjson.UnmarshalBatch(body, &got, itemCheck, nil)
	wantErr := openjson.UnmarshalBatch(body, &want, itemCheck)
	if (gotErr != nil) != (wantErr != nil) {
		if gotErr != nil && hasDuplicate(body) {
			return // see checkDecode
		}
		t.Fatalf("%s: errjson %v, openjson %v", body, gotErr, wantErr)
	}
	if gotErr != nil {
		return
	}
	if len(got.Requests) != len(want.Requests) {
		t.Fatalf("%s: %d items, openjson %d", body, len(got.Requests), len(want.Requests))
	}
	for i := range got.Requests {
		g, w := openjson.ItemError(got.Requests[i]), openjson.ItemError(want.Requests[i])
		switch {
		case g != nil && w != nil:
		case g != nil && hasDuplicate(body):
		case (g != nil) != (w != nil):
			t.Fatalf("%s: item %d: errjson %v, openjson %v", body, i, g, w)
		default:
			if d := sameMessage(want.Requests[i], got.Requests[i]); d != "" {
				t.Fatalf("%s: item %d differs (-openjson +errjson):\n%s", body, i, d)
			}
		}
	}
	got.Requests, want.Requests = nil, nil
	if d := sameMessage(&want, &got); d != "" {
		t.Fatalf("%s: batch differs (-openjson +errjson):\n%s", body, d)
	}
}
