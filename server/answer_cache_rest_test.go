package server

import (
	"bufio"
	"net/http"
	"strings"
	"testing"
)

// TestRESTCacheVariant reads the headers that decide whether a REST call
// may use the answer cache (and which entry) as a client spells them on
// the wire: net/http canonicalises them, and the lookup must use the
// canonical spelling.
func TestRESTCacheVariant(t *testing.T) {
	for _, tc := range []struct {
		head      string
		variant   byte
		cacheable bool
	}{
		{"POST /v1/translate HTTP/1.1\r\nHost: x\r\n", 0, true},
		{"POST /v1/translate HTTP/1.1\r\nHost: x\r\nTE: trailers\r\n", 1, true},
		{"POST /v1/translate HTTP/1.1\r\nHost: x\r\nte: Trailers, deflate\r\n", 1, true},
		{"POST /v1/translate HTTP/1.1\r\nHost: x\r\nTE: deflate\r\n", 0, true},
		{"POST /v1/translate HTTP/1.1\r\nHost: x\r\nX-HTTP-Method-Override: GET\r\n", 0, false},
		{"POST /v1/translate HTTP/1.1\r\nHost: x\r\nx-http-method-override: GET\r\n", 0, false},
		{"POST /v1/translate:batch HTTP/1.1\r\nHost: x\r\n", 0, false},
		{"POST /v1/%74ranslate HTTP/1.1\r\nHost: x\r\n", 0, false},
		{"GET /v1/translate HTTP/1.1\r\nHost: x\r\n", 0, false},
	} {
		r, err := http.ReadRequest(bufio.NewReader(strings.NewReader(tc.head + "\r\n")))
		if err != nil {
			t.Fatal(err)
		}
		if v, ok := restCacheVariant(r); v != tc.variant || ok != tc.cacheable {
			t.Errorf("%q: variant %d cacheable %v, want %d %v", tc.head, v, ok, tc.variant, tc.cacheable)
		}
	}
}
