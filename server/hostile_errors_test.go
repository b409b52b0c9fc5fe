package server

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
)

// Answers never echo request content unsanitised: a secret written as an
// unknown field's name (which translates, with a note naming it), as a term,
// or as a wrongly typed value, is not in the answer, nor in a REST 400's
// message or BadRequest. (Before, the 400 quoted both verbatim.)
func TestBadRequestNeverEchoesSecrets(t *testing.T) {
	r := start(t, Options{})
	for _, sc := range loadSecrets(t) {
		key, _ := json.Marshal(sc.Secret)
		for shape, body := range map[string]string{
			"unknown field name":        `{"labby_error":{"kind":"x"},` + string(key) + `:1}`,
			"nested unknown field name": `{"labby_error":{"kind":"x",` + string(key) + `:{"a":1}}}`,
			"wrongly typed value":       `{"labby_error":{"kind":` + string(key) + `1}}`,
			"term given a secret":       `{"labby_error":{"kind":"x","side_effects":` + string(key) + `}}`,
		} {
			code, resp := r.post(t, "/v1/translate", body)
			if strings.Contains(string(resp), sc.Secret) {
				t.Errorf("%s, %s: HTTP %d echoes the secret: %s", sc.Name, shape, code, resp)
			}
			// Unknown members translate (open on read); a string where a
			// modelled string belongs is a term that passes with a note; only
			// a wrong type is a 400.
			if shape != "wrongly typed value" {
				if code != http.StatusOK {
					t.Errorf("%s, %s: HTTP %d, want 200", sc.Name, shape, code)
				}
				continue
			}
			restViolation(t, code, resp, http.StatusBadRequest, int32(codes.InvalidArgument))
		}
	}
}

// Broken text answers a message that says so, naming the field, on REST
// (not protojson's "unexpected EOF").
func TestBrokenTextNamesTheField(t *testing.T) {
	r := start(t, Options{})
	for body, want := range map[string]string{
		`{"labby_error":{"kind":"x","message":"\ud800"}}`:     "lone UTF-16 surrogate",
		"{\"labby_error\":{\"kind\":\"x\",\"message\":\"\xff\"}}": "invalid UTF-8",
	} {
		code, resp := r.post(t, "/v1/translate", body)
		v := restViolation(t, code, resp, http.StatusBadRequest, int32(codes.InvalidArgument))
		if v.GetField() != "labby_error.message" || !strings.Contains(v.GetDescription(), want) {
			t.Errorf("%q: violation %v, want labby_error.message: %s", body, v, want)
		}
	}
	code, resp := r.post(t, "/v1/translate", `{"labby_error":{"kind":"x","details":`+strings.Repeat("[", 65)+strings.Repeat("]", 65)+`}}`)
	if v := restViolation(t, code, resp, http.StatusBadRequest, int32(codes.InvalidArgument)); !strings.HasPrefix(v.GetField(), "labby_error.details[0]") {
		t.Errorf("deep nesting: violation %v", v)
	}
}
