package server

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// A misspelt source is named, with the field meant, in the BadRequest of
// the refusal, in the same words on REST, Connect and gRPC (where the JSON
// decoders put an unknown top-level member in additional_fields, and a gRPC
// caller may too); a near-miss term is named in its note on all three.
func TestMistakesAreNamedOnEveryTransport(t *testing.T) {
	r := start(t, Options{})
	const want = `labbi: not a field of errsvc.v1.TranslateRequest; did you mean \"labby_error\"?`
	body := `{"labbi":{"kind":"rate_limited","message":"m"}}`
	post := func(path string) string {
		resp, err := http.Post(r.base+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	if got := post("/v1/translate"); !strings.Contains(got, want) || !strings.Contains(got, `"field":"labbi"`) {
		t.Errorf("REST: %s\nwant a violation on labbi: %s", got, want)
	}
	if got := post("/errsvc.v1.TranslationService/Translate"); !strings.Contains(got, want) {
		t.Errorf("Connect: %s\nwant %s", got, want)
	}
	labbi, _ := structpb.NewStruct(map[string]any{"labbi": map[string]any{"kind": "rate_limited"}})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := r.client.Translate(ctx, &errsvcv1.TranslateRequest{AdditionalFields: labbi})
	if v := fieldViolation(status.Convert(err)); v == nil || v.GetField() != "labbi" ||
		v.GetDescription() != `not a field of errsvc.v1.TranslateRequest; did you mean "labby_error"?` {
		t.Errorf("gRPC: %v, want the violation on labbi first", err)
	}

	// A near-miss term: its note names the pinned term.
	const note = `classified_error.class \"TRANSIENT\" is not one of the four classes; passed through verbatim; did you mean \"transient\"?`
	term := `{"classified_error":{"code":"rate_limited","class":"TRANSIENT"}}`
	for _, path := range []string{"/v1/translate", "/errsvc.v1.TranslationService/Translate"} {
		resp, err := http.Post(r.base+path, "application/json", strings.NewReader(term))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(b), note) {
			t.Errorf("%s: %s\nwant the note %s", path, b, note)
		}
	}
	resp, err := r.client.Translate(ctx, &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_ClassifiedError{
		ClassifiedError: &errsvcv1.ClassifiedError{Code: "rate_limited", Class: "TRANSIENT"}}})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, n := range resp.GetNotes() {
		found = found || strings.ReplaceAll(note, `\"`, `"`) == n.GetMessage()
	}
	if !found {
		t.Errorf("gRPC: notes %v lack %s", resp.GetNotes(), note)
	}
}
