package server

import (
	"bytes"
	"io"
	"net/http"
	"strings"

	"github.com/errsvc/errsvc/codec"
	"github.com/errsvc/errsvc/gen/errsvc/v1/errsvcv1connect"
	"google.golang.org/grpc/codes"
)

// Connect's unary Translate (the Connect protocol, not gRPC-Web, whose
// frames and trailers differ per call) is answered from its own answer
// cache like REST: the body is the key, connect-go's answer (status,
// headers, body) the value. What beyond the body changes that answer makes
// the variant: the codec the Content-Type names, and whether the client
// accepts gzip, which connect-go then applies to answers of 1 KiB or more.
// A compressed request, a GET or a body over MaxRequestBytes goes to
// connect-go untouched.

// connectCacheVariant is restCacheVariant for Connect.
func connectCacheVariant(r *http.Request) (variant byte, ok bool) {
	if r.Method != http.MethodPost || r.URL.Path != errsvcv1connect.TranslationServiceTranslateProcedure || r.URL.RawPath != "" {
		return 0, false
	}
	if ce := r.Header.Get("Content-Encoding"); ce != "" && ce != "identity" {
		return 0, false
	}
	switch r.Header.Get("Content-Type") {
	case "application/proto":
		variant = 1
	case "application/json":
		variant = 2
	case "application/json; charset=utf-8":
		variant = 3
	default:
		return 0, false
	}
	// connect-go's negotiation: the first token it supports, and gzip is
	// the only compressor registered.
	for _, name := range strings.FieldsFunc(r.Header.Get("Accept-Encoding"), func(c rune) bool { return c == ',' || c == ' ' }) {
		if name == "gzip" {
			variant |= 4
			break
		}
	}
	return variant, true
}

// cachedHit answers a Connect Translate from the cache when it can; else,
// for a call that may use the cache, it returns the buffer connect-go is
// to answer into, for storeAnswer. It only reads the body, and hands it on
// intact, for a call that may not.
func (h *connectObserve) cachedHit(w http.ResponseWriter, r *http.Request, c *call) (hit bool, miss *connectMiss) {
	variant, ok := connectCacheVariant(r)
	if h.cache == nil || !ok || r.Body == nil || r.Body == http.NoBody {
		return false, nil
	}
	limit := h.opts.MaxRequestBytes
	body, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err != nil || int64(len(body)) > limit {
		rest := io.Reader(r.Body)
		if err != nil {
			rest = errReader{err}
		}
		r.Body = readCloser{io.MultiReader(bytes.NewReader(body), rest), r.Body}
		return false, nil
	}
	r.Body = readCloser{bytes.NewReader(body), r.Body}
	// Under a concurrency slot, as a translation; a caller that gave up or
	// a full server is left to connect-go, which answers as for a miss.
	if r.Context().Err() == nil && h.opts.limiter.acquireRequest() {
		a, hash := h.cache.find(variant, body)
		if a != nil {
			h.svc.countHit(c, a)
		}
		h.opts.limiter.releaseRequest()
		if a != nil {
			c.finished = true
			writeAnswer(w, a)
			return true, nil
		}
		miss = &connectMiss{hash: hash, hashed: true}
	}
	// connect-go answers into a buffer, so that only its own headers are
	// stored, not those the wrapping handlers (CORS, the drain) set for
	// this one caller.
	if miss == nil {
		miss = &connectMiss{}
	}
	miss.bufferedResponse, miss.variant, miss.key = bufferedResponse{header: make(http.Header)}, variant, body
	return false, miss
}

// connectMiss is a Connect Translate the cache did not answer.
type connectMiss struct {
	bufferedResponse
	variant byte
	key     []byte // the request body
	// hash is key's, when it was looked up (answerCache.find).
	hash   uint64
	hashed bool
}

// storeAnswer stores connect-go's answer to a miss if it may.
func (h *connectObserve) storeAnswer(c *call, m *connectMiss) {
	if !c.answer.answered || c.code != codes.OK || m.code != http.StatusOK {
		return
	}
	if !c.answer.cacheable {
		h.cache.uncacheable()
		return
	}
	if !m.hashed {
		m.hash = h.cache.hash(m.variant, m.key)
	}
	if h.cache.admitHash(m.hash) && h.cache.fits(len(m.key), m.body.Len()) {
		h.cache.putHash(&answer{variant: m.variant, key: bytes.Clone(m.key), enc: codec.Encoded{Bytes: bytes.Clone(m.body.Bytes())},
			header: m.header.Clone(), source: c.answer.source, class: c.answer.class}, m.hash)
	}
}

// readCloser reads from one reader and closes another.
type readCloser struct {
	io.Reader
	io.Closer
}
