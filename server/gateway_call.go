package server

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/errsvc/errsvc/codec"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/protobuf/proto"
)

// recordRPC is a forward-response option: it runs on success with the
// context the gateway annotated with the method name.
func recordRPC(ctx context.Context, _ http.ResponseWriter, _ proto.Message) error {
	if c := callFrom(ctx); c != nil {
		if rpc, ok := runtime.RPCMethod(ctx); ok {
			c.rpc = rpc
		}
	}
	return nil
}

// nameRPC is a gateway middleware: it runs once the mux matched a route
// (method and path), before the request body is read, and names the call's
// RPC so that everything counted inside the service (translations, batch
// items) carries the real method, as on gRPC.
//
// For the service's own routes it also clears the request's Host and
// RemoteAddr. The generated handlers turn every request into incoming gRPC
// metadata (runtime.AnnotateIncomingContext), and besides the headers (none
// pass: see WithIncomingHeaderMatcher in NewHTTPHandler) they always add
// x-forwarded-host from Host and x-forwarded-for from RemoteAddr, which no
// option turns off: a metadata map, its slices and a context for values the
// service never reads, about eight allocations per call. r is the gateway's
// own copy of the request (its mux made it to carry the route pattern), and
// nothing after the generated handler reads either field: the answer,
// tracing and logs come from restHandler and the layers around it.
func nameRPC(next runtime.HandlerFunc) runtime.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request, pathParams map[string]string) {
		if rpc := restRPC(r); rpc != "unknown" {
			if c := callFrom(r.Context()); c != nil {
				c.rpc = rpc
			}
			r.Host, r.RemoteAddr = "", ""
		}
		next(w, r, pathParams)
	}
}

// restHandler bounds the request body and the calls in flight, and counts
// and logs each REST call around the grpc-gateway mux. The gateway only
// hands our hooks a context, so the call record (see call) is how the body
// limit reaches the error handler and the outcome reaches the metrics.
//
// A call goes through three phases, and holds a concurrency slot (shared
// with gRPC) only in the middle one, so a slow client cannot take slots
// from anyone:
//  1. the body is read in full, within receiveTimeout and maxBytes, and
//     checked for nesting and broken text (codec.CheckJSON) before protojson
//     sees it;
//  2. with a slot, the gateway decodes, translates and marshals the answer
//     into memory;
//  3. without the slot, the answer is written, within writeTimeout.
type restHandler struct {
	gateway        *runtime.ServeMux
	maxBytes       int64
	receiveTimeout time.Duration
	writeTimeout   time.Duration
	metrics        *Metrics
	limiter        *limiter
	logger         *slog.Logger
	// bodies is the REST receive budget.
	bodies *bodyBudget
	// cache answers repeated Translate bodies (answer_cache_rest.go); nil
	// when disabled. svc accounts for its hits.
	cache *answerCache
	svc   *Service
}

func (h *restHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx, call := openCall(r.Context(), transportHTTP, "unknown")
	r = r.WithContext(ctx)
	defer call.finish(r.Context(), h.logger, h.metrics)
	rc := http.NewResponseController(w)
	// cacheKey is the body of a call that may use the answer cache, once
	// read and checked in full.
	var cacheKey []byte
	variant, cacheable := restCacheVariant(r)

	// Even a declared Content-Length over the limit is read up to the limit
	// rather than refused up front, and every refusal of the body is handed
	// to the gateway as the body's read error: the answer then comes from
	// inside the gateway, annotated with its RPC, like every other REST
	// error (see restError).
	if r.Body != nil && r.Body != http.NoBody {
		_ = rc.SetReadDeadline(time.Now().Add(h.receiveTimeout))
		counted := &budgetReader{r: http.MaxBytesReader(w, r.Body, h.maxBytes), budget: h.bodies}
		defer counted.release()
		var src io.Reader = counted
		declared := r.ContentLength
		if enc := r.Header.Get("Content-Encoding"); enc != "" && !strings.EqualFold(enc, "identity") {
			// A compressed body: its limit counts the inflated bytes, and
			// the inflating stops at it (restInflate).
			src, declared = restInflate(counted, enc, h.maxBytes), -1
		}
		body, err := readDeclared(src, declared, h.maxBytes)
		if err == nil {
			_ = rc.SetReadDeadline(time.Time{})
		}
		// On an error the deadline stays: net/http may read what is left of
		// the body after the answer, and must not wait for a trickler.
		var checked error
		if err == nil {
			checked = codec.CheckJSON(body, codec.MaxJSONDepth)
		}
		if err != nil || checked != nil {
			err = h.bodyFault(w, r, call, err, checked)
		}
		_ = r.Body.Close()
		if err != nil {
			r.Body = io.NopCloser(errReader{err})
		} else {
			r.Body = newRESTBody(body)
			if cacheable && body != nil {
				cacheKey = body
			}
		}
	}

	if !h.limiter.acquireRequest() {
		call.rpc = restRPC(r)
		call.limit = limitConcurrentRequests
		w.Header().Set("Retry-After", "1")
		_, m := runtime.MarshalerForRequest(h.gateway, r)
		runtime.HTTPError(r.Context(), h.gateway, m, w, r, h.limiter.requestsExhausted().Err())
		return
	}
	var hit *answer
	var answer *bufferedResponse
	func() {
		defer h.limiter.releaseRequest()
		var hash uint64
		var hashed bool
		if hit, hash, hashed = h.cachedAnswer(r, call, variant, cacheKey); hit == nil {
			answer = newBufferedResponse()
			call.restAnswer = answer
			h.gateway.ServeHTTP(answer, r)
			call.restAnswer = nil
			// The answer is in answer's buffer: its storage goes back.
			call.releaseAnswers()
			h.storeAnswer(call, answer, variant, cacheKey, hash, hashed)
		}
	}()
	_ = rc.SetWriteDeadline(time.Now().Add(h.writeTimeout))
	if hit != nil {
		writeAnswer(w, hit)
		return
	}
	answer.writeTo(w)
	answer.release()
}

// bodyFault records what is wrong with the body of call: readErr, what
// reading it failed with, or else checked, what codec.CheckJSON found; the
// result is the error to hand the gateway as the body's (nil: none).
// Apart from ServeHTTP so that the error targets, which escape, are made
// only for a faulty body.
func (h *restHandler) bodyFault(w http.ResponseWriter, r *http.Request, call *call, readErr, checked error) error {
	var tooLarge *http.MaxBytesError
	var fe *codec.FieldError
	switch {
	case errors.As(readErr, &tooLarge):
		call.bodyTooLarge = true
	case errors.Is(readErr, errBodyBudget):
		call.limit = limitReceiveBuffer
		w.Header().Set("Retry-After", "1")
		w.Header().Set("Connection", "close")
		call.bodyRefused = h.bodies.refusal()
	case errors.Is(readErr, os.ErrDeadlineExceeded):
		call.bodyTimedOut = true
		w.Header().Set("Connection", "close")
	case readErr != nil:
	case errors.As(checked, &fe) && !batchItemFault(r, fe):
		field := fe.Field
		switch {
		case errors.Is(fe, codec.ErrTooDeep):
			call.limit = limitJSONDepth
		case errors.Is(fe, codec.ErrTooWide):
			call.limit = limitJSONValues
		}
		call.bodyRefused = invalidArgument(safePath(field), fe.Description)
		return fe
	}
	return readErr
}

// readDeclared is io.ReadAll(r) for a body that declared its length: one
// buffer of that size and a byte (to meet the end without growing), where
// io.ReadAll starts at 512 bytes and grows. A length that is not declared,
// or over max, takes io.ReadAll. Only the first maxBodyPrealloc bytes are
// taken up front: a client that declares a large body and sends nothing
// must not make the server hold what it declared (the REST receive budget
// counts bytes as they arrive).
// maxBodyPrealloc bounds what readDeclared takes before bytes arrive: an
// error worth translating is a few hundred bytes to a few KiB.
const maxBodyPrealloc = 16 << 10

func readDeclared(r io.Reader, declared, max int64) ([]byte, error) {
	if declared <= 0 || declared > max {
		return io.ReadAll(r)
	}
	b := make([]byte, 0, min(declared+1, maxBodyPrealloc))
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
}

// restBody is a body the handler has read and checked in full, handed to
// the gateway. The decoder (restJSON.NewDecoder) takes its bytes as they
// are, rather than reading them into a copy of its own: they are the
// handler's private copy, which nothing writes to.
type restBody struct {
	bytes.Reader
	data []byte
	// json is the codec that decodes it (restJSON.NewDecoder).
	json *restJSON
}

func newRESTBody(data []byte) *restBody {
	b := &restBody{data: data}
	b.Reset(data)
	return b
}

func (*restBody) Close() error { return nil }

// errReader fails every read with err.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// bufferedResponse holds the gateway's answer until the slot is released.
// The gateway marshals each answer into one slice before writing it, so
// this costs one copy, not an unbounded buffer.
type bufferedResponse struct {
	header http.Header
	code   int
	body   bytes.Buffer
	// pending is the answer the gateway is about to marshal into body
	// (encodeIntoAnswer).
	pending proto.Message
}

// bufferedResponses keeps REST answers' buffers (the struct, its header map
// and its body's storage: four allocations and an answer's size per call)
// for the next call; see release. What it earns a caller (issue 42's
// rule): with a fresh buffer per call instead, REST Translate cold (c) ran
// 5.0% slower at 16 callers and 6.2% at 64, gRPC (a) within its noise
// (bench/ab.sh, 3 interleaved rounds, 2026-12-05).
var bufferedResponses = sync.Pool{New: func() any { return &bufferedResponse{header: make(http.Header)} }}

// maxPooledAnswer is the largest body storage kept for the next call: an
// answer is a few hundred bytes to a few KiB, and one large batch answer
// must not stay in memory once it is written.
const maxPooledAnswer = 32 << 10

func newBufferedResponse() *bufferedResponse {
	return bufferedResponses.Get().(*bufferedResponse)
}

// release hands b to the next call once its answer is written (writeTo) or
// copied (storeAnswer): nothing reads b afterwards. The header values
// writeTo shared with the ResponseWriter stay theirs: clearing the map
// drops b's references, not the slices, and the gateway sets new slices
// (Header().Set), never writes into old ones.
func (b *bufferedResponse) release() {
	if b.body.Cap() > maxPooledAnswer {
		return
	}
	clear(b.header)
	b.code = 0
	b.body.Reset()
	b.pending = nil
	bufferedResponses.Put(b)
}

func (b *bufferedResponse) Header() http.Header { return b.header }

func (b *bufferedResponse) WriteHeader(code int) {
	if b.code == 0 {
		b.code = code
	}
}

func (b *bufferedResponse) Write(p []byte) (int, error) {
	if b.code == 0 {
		b.code = http.StatusOK
	}
	return b.body.Write(p)
}

func (b *bufferedResponse) writeTo(w http.ResponseWriter) {
	h := w.Header()
	for k, v := range b.header {
		h[k] = v
	}
	if b.code == 0 {
		b.code = http.StatusOK
	}
	w.WriteHeader(b.code)
	_, _ = w.Write(b.body.Bytes())
}

// restRPC names the RPC of a REST path for a call refused before routing.
func restRPC(r *http.Request) string {
	switch r.URL.Path {
	case "/v1/translate":
		return errsvcv1.TranslationService_Translate_FullMethodName
	case "/v1/translate:batch":
		return errsvcv1.TranslationService_TranslateBatch_FullMethodName
	case "/v1/vocabularies":
		return errsvcv1.TranslationService_ListVocabularies_FullMethodName
	}
	return "unknown"
}
