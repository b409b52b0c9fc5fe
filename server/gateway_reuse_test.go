package server

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
)

// TestRESTAnswerBuffersDoNotLeak: REST answers are buffered in storage
// reused from call to call (bufferedResponses), so nothing of one answer
// (status, headers, body) may reach the next. Every answer is asked for
// twice, once after itself and once after each of the others, in one
// goroutine (a sync.Pool hands the same goroutine back what it just put),
// and must come out the same.
func TestRESTAnswerBuffersDoNotLeak(t *testing.T) {
	quiet := slog.New(slog.NewJSONHandler(io.Discard, nil))
	// The answer cache off: every call goes through the gateway.
	h, err := NewHTTPHandler(context.Background(), Options{Logger: quiet, AnswerCacheEntries: -1})
	if err != nil {
		t.Fatal(err)
	}
	type call struct {
		name, method, path, body string
		header                   map[string]string
		code                     int // the status it answers
	}
	calls := []call{
		{name: "405 with Allow", method: http.MethodGet, path: "/v1/translate", code: http.StatusMethodNotAllowed},
		{name: "translate", method: http.MethodPost, path: "/v1/translate", body: `{"labby_error":{"kind":"rate_limited","message":"slow down"}}`, code: http.StatusOK},
		{name: "translate with trailers", method: http.MethodPost, path: "/v1/translate", body: `{"labby_error":{"kind":"timeout","message":"late"}}`,
			header: map[string]string{"TE": "trailers"}, code: http.StatusOK},
		{name: "long answer", method: http.MethodPost, path: "/v1/translate",
			body: `{"labby_error":{"kind":"x","message":"` + strings.Repeat("m", 3000) + `"}}`, code: http.StatusOK},
		{name: "refusal", method: http.MethodPost, path: "/v1/translate", body: `{"labby_error":{"kind":"x","message":5}}`, code: http.StatusBadRequest},
		{name: "batch", method: http.MethodPost, path: "/v1/translate:batch",
			body: `{"requests":[{"labby_error":{"kind":"auth","message":"who"}},{}]}`, code: http.StatusOK},
		{name: "404", method: http.MethodPost, path: "/v1/nowhere", body: `{}`, code: http.StatusNotFound},
	}
	do := func(c call) *httptest.ResponseRecorder {
		req := httptest.NewRequest(c.method, c.path, strings.NewReader(c.body))
		req.Header.Set("Content-Type", "application/json")
		for k, v := range c.header {
			req.Header.Set(k, v)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w
	}
	same := func(t *testing.T, a, b *httptest.ResponseRecorder) {
		t.Helper()
		if a.Code != b.Code {
			t.Errorf("status %d, alone %d", b.Code, a.Code)
		}
		if !reflect.DeepEqual(a.Header(), b.Header()) {
			t.Errorf("headers %v, alone %v", b.Header(), a.Header())
		}
		if a.Body.String() != b.Body.String() {
			t.Errorf("body %q, alone %q", b.Body.String(), a.Body.String())
		}
	}
	for _, c := range calls {
		do(c)
		alone := do(c)
		// A leak that sticks (a status kept for good) would make every
		// answer equally wrong: each is also held to what it must be.
		if alone.Code != c.code {
			t.Errorf("%s: status %d, want %d", c.name, alone.Code, c.code)
		}
		if allow := alone.Header().Get("Allow"); (allow != "") != (c.code == http.StatusMethodNotAllowed) {
			t.Errorf("%s: Allow %q", c.name, allow)
		}
		for _, before := range calls {
			t.Run(fmt.Sprintf("%s after %s", c.name, before.name), func(t *testing.T) {
				for range 3 {
					do(before)
					same(t, alone, do(c))
				}
			})
		}
	}
}
