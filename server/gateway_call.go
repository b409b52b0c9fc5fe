package server

import (
	"context"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"
)

// restCall is what one REST call learns about itself on its way through the
// gateway. The gateway only hands our hooks a context, so this is how the
// body limit reaches the error handler and the outcome reaches the metrics.
// A call runs on one goroutine, so the fields need no locking.
type restCall struct {
	rpc          string
	code         codes.Code
	bodyTooLarge bool
}

type restCallKey struct{}

func restCallFrom(ctx context.Context) *restCall {
	c, _ := ctx.Value(restCallKey{}).(*restCall)
	return c
}

// recordRPC is a forward-response option: it runs on success with the
// context the gateway annotated with the method name.
func recordRPC(ctx context.Context, _ http.ResponseWriter, _ proto.Message) error {
	if c := restCallFrom(ctx); c != nil {
		if rpc, ok := runtime.RPCMethod(ctx); ok {
			c.rpc = rpc
		}
	}
	return nil
}

// restHandler bounds the request body and measures each REST call around
// the grpc-gateway mux.
type restHandler struct {
	gateway  *runtime.ServeMux
	maxBytes int64
	metrics  *Metrics
}

func (h *restHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	call := &restCall{rpc: "unknown", code: codes.OK}
	r = r.WithContext(context.WithValue(r.Context(), restCallKey{}, call))
	defer func() { h.metrics.observe(transportHTTP, call.rpc, call.code, start) }()

	// Even a declared Content-Length over the limit is read up to the limit
	// rather than refused up front: the refusal then comes from inside the
	// gateway, annotated with its RPC, like every other REST error.
	if r.Body != nil {
		r.Body = &limitedBody{ReadCloser: http.MaxBytesReader(w, r.Body, h.maxBytes), call: call}
	}
	h.gateway.ServeHTTP(w, r)
}

// limitedBody notes when the limit was hit: the gateway flattens the read
// error into an INVALID_ARGUMENT string, which would otherwise be
// indistinguishable from bad JSON.
type limitedBody struct {
	io.ReadCloser
	call *restCall
}

func (b *limitedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		b.call.bodyTooLarge = true
	}
	return n, err
}
