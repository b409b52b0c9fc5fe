package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"

	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
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
		`{"labby_error":{"kind":"x","message":"\ud800"}}`:         "lone UTF-16 surrogate",
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

// REST bodies being read count their bytes as they arrive against the
// receive budget: past it a body is refused 429 with a QuotaFailure, and a
// body that was answered gives its bytes back.
func TestRESTReceiveBudget(t *testing.T) {
	r := start(t, Options{MaxRequestBytes: 4096, MaxReceiveBufferBytes: 4096})
	c, err := net.Dial("tcp", r.srv.HTTPAddr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	held := `{"labby_error":{"kind":"x","message":"` + strings.Repeat("a", 3000)
	fmt.Fprintf(c, "POST /v1/translate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 4000\r\n\r\n%s", held)
	big := `{"labby_error":{"kind":"x","message":"` + strings.Repeat("b", 2000) + `"}}`
	waitFor(t, func() bool {
		code, _ := r.post(t, "/v1/translate", big)
		return code == http.StatusTooManyRequests
	}, "a body past the budget to be refused 429")
	code, body := r.post(t, "/v1/translate", big)
	var st spb.Status
	decodeJSON(t, body, &st)
	if subject, _ := quota(t, &st); code != http.StatusTooManyRequests || subject != quotaReceiveBuffer {
		t.Errorf("HTTP %d, subject %q", code, subject)
	}
	_ = c.Close() // the held body ends, its bytes return
	waitFor(t, func() bool {
		code, _ := r.post(t, "/v1/translate", big)
		return code == http.StatusOK
	}, "the budget to come back")
}

// Metadata past --max-header-bytes is refused (before, 8 MiB was accepted);
// a call with ordinary metadata still goes through.
func TestMaxHeaderBytes(t *testing.T) {
	r := start(t, Options{})
	big := metadata.AppendToOutgoingContext(context.Background(), "x-filler", strings.Repeat("a", DefaultMaxHeaderBytes+1))
	if _, err := r.client.Translate(big, validRequest()); err == nil {
		t.Error("a call with more than 64 KiB of metadata was accepted")
	}
	small := metadata.AppendToOutgoingContext(context.Background(), "x-request-id", "abc")
	if _, err := r.client.Translate(small, validRequest()); err != nil {
		t.Errorf("ordinary metadata: %v", err)
	}
}
