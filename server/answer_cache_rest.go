package server

import (
	"bytes"
	"net/http"
	"strings"

	"github.com/errsvc/errsvc/codec"
	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"google.golang.org/grpc/codes"
)

// REST answers POST /v1/translate from its answer cache once the body is
// in and checked, under the same concurrency slot as a translation. The
// value is the answer as grpc-gateway wrote it (status 200, headers,
// JSON); compression (gzipREST), CORS and tracing wrap restHandler, so
// they apply to a hit as to a miss.

// restCacheVariant says whether the call may use the cache, and the state
// beyond its body that changes its answer: only a Translate routed by its
// plain path (no escapes, no X-HTTP-Method-Override, which grpc-gateway
// obeys on form posts) qualifies, and a client that accepts trailers gets
// other headers from grpc-gateway (Transfer-Encoding: chunked).
func restCacheVariant(r *http.Request) (variant byte, ok bool) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/translate" || r.URL.RawPath != "" ||
		firstHeader(r.Header, "X-Http-Method-Override") != "" {
		return 0, false
	}
	if strings.Contains(strings.ToLower(firstHeader(r.Header, "Te")), "trailers") {
		return 1, true
	}
	return 0, true
}

// firstHeader is h.Get(key) for a key already in canonical form:
// http.Header.Get canonicalises its key first, which for "TE" or
// "X-HTTP-Method-Override" allocates the canonical spelling on every call.
func firstHeader(h http.Header, key string) string {
	if v := h[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// cachedAnswer is the stored answer to the call's body, accounted for as
// its translation, or nil; and the body's hash, for storeAnswer (hashed
// false: not looked up).
func (h *restHandler) cachedAnswer(r *http.Request, c *call, variant byte, body []byte) (a *answer, hash uint64, hashed bool) {
	// A caller that gave up is answered by the gateway, as a miss would be.
	if h.cache == nil || body == nil || r.Context().Err() != nil {
		return nil, 0, false
	}
	a, hash = h.cache.find(variant, body)
	if a == nil {
		return nil, hash, true
	}
	c.rpc = errsvcv1.TranslationService_Translate_FullMethodName
	h.svc.countHit(c, a)
	return a, hash, true
}

// storeAnswer stores the gateway's answer to the call's body if it may.
func (h *restHandler) storeAnswer(c *call, ans *bufferedResponse, variant byte, body []byte, hash uint64, hashed bool) {
	if h.cache == nil || body == nil || !c.answer.answered || c.code != codes.OK || ans.code != http.StatusOK {
		return
	}
	if !c.answer.cacheable {
		h.cache.uncacheable()
		return
	}
	if !hashed {
		hash = h.cache.hash(variant, body)
	}
	if !h.cache.admitHash(hash) || !h.cache.fits(len(body), ans.body.Len()) {
		return
	}
	// Copies at their exact sizes: the body and the buffer have room to
	// spare, and the buffer is written to the client after this.
	h.cache.putHash(&answer{variant: variant, key: bytes.Clone(body), enc: codec.Encoded{Bytes: bytes.Clone(ans.body.Bytes())},
		header: ans.header.Clone(), source: c.answer.source, class: c.answer.class}, hash)
}

// writeAnswer writes a stored answer as bufferedResponse.writeTo wrote it.
// The header values are shared: net/http and the wrapping handlers replace
// values (Set, Del, append), never write into them.
func writeAnswer(w http.ResponseWriter, a *answer) {
	h := w.Header()
	for k, v := range a.header {
		h[k] = v
	}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(a.enc.Bytes)
}
