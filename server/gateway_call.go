package server

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"

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
func nameRPC(next runtime.HandlerFunc) runtime.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request, pathParams map[string]string) {
		if c := callFrom(r.Context()); c != nil {
			if rpc := restRPC(r); rpc != "unknown" {
				c.rpc = rpc
			}
		}
		next(w, r, pathParams)
	}
}

// restHandler bounds the request body and the calls in flight, and counts
// and logs each REST call around the grpc-gateway mux. The gateway only
// hands our hooks a context, so the call record (see call) is how the body
// limit reaches the error handler and the outcome reaches the metrics.
type restHandler struct {
	gateway  *runtime.ServeMux
	maxBytes int64
	metrics  *Metrics
	limiter  *limiter
	logger   *slog.Logger
}

func (h *restHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	call := newCall(transportHTTP, "unknown")
	r = r.WithContext(withCall(r.Context(), call))
	defer call.finish(r.Context(), h.logger, h.metrics)

	// Refused before the body is read, so a full server spends nothing on
	// the calls it turns away.
	if !h.limiter.acquireRequest() {
		call.rpc = restRPC(r)
		call.limit = limitConcurrentRequests
		w.Header().Set("Retry-After", "1")
		_, m := runtime.MarshalerForRequest(h.gateway, r)
		runtime.HTTPError(r.Context(), h.gateway, m, w, r, h.limiter.requestsExhausted().Err())
		return
	}
	defer h.limiter.releaseRequest()

	// Even a declared Content-Length over the limit is read up to the limit
	// rather than refused up front: the refusal then comes from inside the
	// gateway, annotated with its RPC, like every other REST error.
	if r.Body != nil {
		r.Body = &limitedBody{ReadCloser: http.MaxBytesReader(w, r.Body, h.maxBytes), call: call}
	}
	h.gateway.ServeHTTP(w, r)
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

// limitedBody notes when the limit was hit: the gateway flattens the read
// error into an INVALID_ARGUMENT string, which would otherwise be
// indistinguishable from bad JSON.
type limitedBody struct {
	io.ReadCloser
	call *call
}

func (b *limitedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		b.call.bodyTooLarge = true
	}
	return n, err
}
