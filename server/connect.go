package server

import (
	"compress/gzip"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/errsvc/errsvc/codec"
	"github.com/errsvc/errsvc/codec/openjson"
	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/gen/errsvc/v1/errsvcv1connect"
)

// Transport labels of the calls served by connect-go on the HTTP port, one
// per protocol, so /metrics and the log tell a browser's Connect call from a
// gRPC-Web one. gRPC over the HTTP port (HTTP/2 only) counts as gRPC.
const (
	transportConnect = "connect"
	transportGRPCWeb = "grpcweb"
)

// newConnectHandler serves TranslationService over the Connect, gRPC-Web
// (and, on HTTP/2, gRPC) protocols on the HTTP port, from the same Service
// as the other transports, under the same limits, metrics and log lines:
// connectObserve opens and closes the call record, connectInterceptor
// applies the size and concurrency limits and turns the service's gRPC
// status into a Connect error with the same details. It returns the path
// prefix to mount it on.
func newConnectHandler(opts Options) (string, http.Handler) {
	svc := connectService{recoveringService{Service: NewService(opts), logger: opts.Logger}}
	path, h := errsvcv1connect.NewTranslationServiceHandler(svc,
		connect.WithCodec(connectProto{maxBatchItems: opts.MaxBatchItems}),
		connect.WithCodec(connectJSON{"json", newRESTJSON(opts.MaxBatchItems)}),
		connect.WithCodec(connectJSON{"json; charset=utf-8", newRESTJSON(opts.MaxBatchItems)}),
		// As on gRPC (see grpcRecvCap): the interceptor refuses
		// anything over MaxRequestBytes with a BadRequest on "body"; only a
		// message over twice the limit gets connect-go's bare refusal.
		connect.WithReadMaxBytes(grpcRecvCap(opts.MaxRequestBytes)),
		// gzip that stops inflating at the same cap (compress.go).
		connect.WithCompression("gzip", newBoundedGzip(int64(grpcRecvCap(opts.MaxRequestBytes))), func() connect.Compressor { return gzip.NewWriter(nil) }),
		// Small answers are not worth a gzip frame.
		connect.WithCompressMinBytes(1024),
		connect.WithInterceptors(connectInterceptor{limiter: opts.limiter, maxBytes: opts.MaxRequestBytes}),
	)
	return path, &connectObserve{next: h, opts: opts, cache: newAnswerCache(opts, transportConnect), svc: svc.Service,
		bodies: newBodyBudget(opts, "Connect bodies")}
}

// connectService adapts Service to connect-go's handler interface: the
// unary methods are the service's own (with panic recovery, as REST has);
// the stream stays on the gRPC port, where HTTP/2 is guaranteed.
type connectService struct {
	recoveringService
}

func (connectService) TranslateStream(context.Context, *connect.BidiStream[errsvcv1.TranslateRequest, errsvcv1.TranslateResponse]) error {
	return connect.NewError(connect.CodeUnimplemented,
		errors.New("TranslateStream is served on the gRPC port only; use Translate or TranslateBatch here"))
}

// connectObserve is the outermost layer of a Connect or gRPC-Web call, as
// restHandler is for REST: it opens the call record before connect-go reads
// anything and counts and logs the call once it is answered. A call refused
// before the interceptor runs (a body that does not decode, one over twice
// the size limit) is closed from the status the response carries.
type connectObserve struct {
	next http.Handler
	opts Options
	// cache answers repeated Connect Translate bodies
	// (answer_cache_connect.go); nil when disabled. svc counts its hits.
	cache *answerCache
	svc   *Service
	// bodies is the Connect receive budget (REST has its own).
	bodies *bodyBudget
}

func (h *connectObserve) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx, c := openCall(r.Context(), connectTransport(r), connectRPC(r.URL.Path))
	r = r.WithContext(ctx)
	var body *connectBody
	if r.Body != nil && r.Body != http.NoBody {
		body = h.boundBody(w, r.Body)
		defer body.release()
		r.Body = body
	}
	hit, miss := h.cachedHit(w, r, c)
	if hit {
		c.finish(r.Context(), h.opts.Logger, h.opts.Metrics)
		return
	}
	out := w
	if miss != nil {
		out = miss
	}
	rec := &statusRecorder{ResponseWriter: out}
	h.next.ServeHTTP(rec, r)
	// connect-go has encoded and written the answers: their storage goes back.
	c.releaseAnswers()
	if body != nil && body.refused != "" {
		// The body's own limits, whichever layer was reading it: the
		// refusal is the limit's, not the body's size or shape.
		c.limit, c.field = body.refused, "body"
	}
	if !c.finished {
		c.finished = true
		c.code = rec.code()
		switch {
		case c.limit != "":
		case c.code == codes.ResourceExhausted:
			c.limit, c.field = limitRequestBytes, "body"
		case c.code == codes.InvalidArgument || c.code == codes.Internal:
			c.callerFault, c.field = true, "body"
		}
	}
	if miss != nil {
		h.storeAnswer(c, miss)
		miss.writeTo(w)
	}
	c.finish(r.Context(), h.opts.Logger, h.opts.Metrics)
}

// boundBody bounds a Connect or gRPC-Web request body as restHandler
// bounds a REST one: it must arrive within ReceiveTimeout (not only the
// HTTP server's ReadTimeout, which also counts the headers' time), and the
// bytes it holds count against the Connect receive budget as they arrive,
// so tricklers hold what they sent, never more than the budget in all, and
// no concurrency slot (connect-go reads the body before the interceptor
// takes one).
func (h *connectObserve) boundBody(w http.ResponseWriter, body io.ReadCloser) *connectBody {
	// The deadline needs no clearing: net/http sets the connection's next
	// one before it reads the next request.
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(h.opts.ReceiveTimeout))
	return &connectBody{budgetReader: budgetReader{r: body, budget: h.bodies}, Closer: body, timeout: h.opts.ReceiveTimeout}
}

// connectBody is a request body under boundBody's limits. Its refusals are
// Connect errors, which connect-go answers as they are (in the caller's
// protocol, details included), as errsvc's other transports answer them.
type connectBody struct {
	budgetReader
	io.Closer
	timeout time.Duration
	// refused is the limit that refused the body ("" if none).
	refused string
}

func (b *connectBody) Read(p []byte) (int, error) {
	if b.refused != "" {
		return 0, b.refusal()
	}
	n, err := b.budgetReader.Read(p)
	switch {
	case errors.Is(err, errBodyBudget):
		b.refused = limitReceiveBuffer
	case errors.Is(err, os.ErrDeadlineExceeded):
		b.refused = limitReceiveTimeout
	default:
		return n, err
	}
	return n, b.refusal()
}

// refusal is the error of the limit that refused the body.
func (b *connectBody) refusal() error {
	if b.refused == limitReceiveTimeout {
		return toConnectError(receiveTimedOut(b.timeout).Err())
	}
	return toConnectError(b.budget.refusal().Err())
}

// connectTransport tells the protocol by its content type, as connect-go does.
func connectTransport(r *http.Request) string {
	ct := r.Header.Get("Content-Type")
	switch {
	case strings.HasPrefix(ct, "application/grpc-web"):
		return transportGRPCWeb
	case strings.HasPrefix(ct, "application/grpc"):
		return transportGRPC
	}
	return transportConnect
}

// connectRPC keeps the rpc label bounded: only a method of the service
// names itself.
func connectRPC(path string) string {
	switch path {
	case errsvcv1.TranslationService_Translate_FullMethodName,
		errsvcv1.TranslationService_TranslateBatch_FullMethodName,
		errsvcv1.TranslationService_TranslateStream_FullMethodName,
		errsvcv1.TranslationService_ListVocabularies_FullMethodName:
		return path
	}
	return "unknown"
}

// statusRecorder remembers what connect-go answered, for the calls that end
// before the interceptor: the gRPC status of a gRPC or gRPC-Web
// trailers-only answer, or the HTTP status of a Connect one.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

func (s *statusRecorder) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (s *statusRecorder) code() codes.Code {
	if v := s.Header().Get("Grpc-Status"); v != "" {
		if n, err := strconv.Atoi(v); err == nil {
			return codes.Code(n)
		}
	}
	if code, ok := connectHTTPCodes[s.status]; ok {
		return code
	}
	if s.status == 0 || s.status == http.StatusOK {
		return codes.OK
	}
	return codes.Unknown
}

// connectHTTPCodes is the Connect protocol's HTTP status of each code it
// answers before a handler runs (connectrpc.com/docs/protocol).
var connectHTTPCodes = map[int]codes.Code{
	http.StatusBadRequest:            codes.InvalidArgument,
	http.StatusNotFound:              codes.Unimplemented,
	http.StatusMethodNotAllowed:      codes.Unimplemented,
	http.StatusUnsupportedMediaType:  codes.Unimplemented,
	http.StatusRequestEntityTooLarge: codes.ResourceExhausted,
	http.StatusTooManyRequests:       codes.ResourceExhausted,
	http.StatusInternalServerError:   codes.Internal,
	http.StatusServiceUnavailable:    codes.Unavailable,
	http.StatusGatewayTimeout:        codes.DeadlineExceeded,
	http.StatusRequestTimeout:        codes.DeadlineExceeded,
}

// connectInterceptor does for Connect what unaryLimits and unaryObserve do
// for gRPC: the size limit on the decoded message, the concurrency limit,
// and the closing of the call record with the status the client gets.
type connectInterceptor struct {
	limiter  *limiter
	maxBytes int64
}

func (i connectInterceptor) WrapUnary(next connect.UnaryFunc) connect.UnaryFunc {
	return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
		c := callFrom(ctx)
		resp, err := i.unary(ctx, c, next, req)
		if c != nil && !c.finished {
			c.finished = true
			c.setStatus(status.Convert(err))
		}
		return resp, toConnectError(err)
	}
}

func (i connectInterceptor) unary(ctx context.Context, c *call, next connect.UnaryFunc, req connect.AnyRequest) (connect.AnyResponse, error) {
	m, _ := req.Any().(proto.Message)
	if m == nil {
		return nil, status.Error(codes.Internal, "unexpected request type")
	}
	if st := invalidItem(m); st != nil {
		if c != nil {
			// A JSON refusal is the codec's (connectJSON marks the message,
			// it has no call to note the limit on): counted here, as REST
			// and gRPC count theirs.
			c.limit = jsonLimitOf(st)
		}
		return nil, st.Err()
	}
	if int64(codec.Size(m)) > i.maxBytes {
		if c != nil {
			c.limit = limitRequestBytes
		}
		return nil, tooLarge(i.maxBytes).Err()
	}
	if !i.limiter.acquireRequest() {
		if c != nil {
			c.limit = limitConcurrentRequests
		}
		return nil, i.limiter.requestsExhausted().Err()
	}
	defer i.limiter.releaseRequest()
	return next(ctx, req)
}

func (connectInterceptor) WrapStreamingClient(next connect.StreamingClientFunc) connect.StreamingClientFunc {
	return next
}

func (connectInterceptor) WrapStreamingHandler(next connect.StreamingHandlerFunc) connect.StreamingHandlerFunc {
	return func(ctx context.Context, conn connect.StreamingHandlerConn) error {
		err := next(ctx, conn)
		if c := callFrom(ctx); c != nil && !c.finished {
			c.finished = true
			c.code = connectCode(err)
		}
		return err
	}
}

// toConnectError carries a gRPC status (code, message, every detail) over
// to connect-go, which writes it in the caller's protocol: Connect's JSON
// error, or grpc-status and grpc-status-details-bin for gRPC-Web.
func toConnectError(err error) error {
	if err == nil {
		return nil
	}
	var ce *connect.Error
	if errors.As(err, &ce) {
		return ce
	}
	st := status.Convert(err)
	out := connect.NewError(connect.Code(st.Code()), errors.New(st.Message()))
	for _, d := range st.Proto().GetDetails() {
		if detail, derr := connect.NewErrorDetail(d); derr == nil {
			out.AddDetail(detail)
		}
	}
	return out
}

func connectCode(err error) codes.Code {
	if err == nil {
		return codes.OK
	}
	return codes.Code(connect.CodeOf(err))
}

// connectProto is the binary codec of the gRPC port (package codec): the
// same generated code and the same refusal of invalid UTF-8 and excessive
// nesting, so a message means the same on both ports.
//
// A batch's requests are counted on the wire before any is decoded, as on
// the gRPC port: one past --max-batch-items, the batch is handed on as that
// many empty requests, which the service refuses as it refuses every
// oversized batch ("a batch holds at most N requests", RESOURCE_EXHAUSTED),
// without a byte of the rest decoded.
type connectProto struct{ maxBatchItems int }

func (connectProto) Name() string { return "proto" }

func (connectProto) Marshal(v any) ([]byte, error) {
	bs, err := codec.Server.Marshal(v)
	if err != nil {
		return nil, err
	}
	defer bs.Free()
	return bs.Materialize(), nil
}

func (c connectProto) Unmarshal(data []byte, v any) error {
	if batch, ok := v.(*errsvcv1.TranslateBatchRequest); ok && c.maxBatchItems > 0 {
		capture := codec.Capture{Msg: batch, MaxItems: c.maxBatchItems}
		if err := codec.Server.Unmarshal(mem.BufferSlice{mem.SliceBuffer(data)}, &capture); err != nil {
			return err
		}
		if errors.Is(capture.Err, codec.ErrTooManyItems) {
			proto.Reset(batch)
			batch.Requests = make([]*errsvcv1.TranslateRequest, c.maxBatchItems+1)
			for i := range batch.Requests {
				batch.Requests[i] = &errsvcv1.TranslateRequest{}
			}
			return nil
		}
		return capture.Err
	}
	return codec.Server.Unmarshal(mem.BufferSlice{mem.SliceBuffer(data)}, v)
}

// connectJSON is the REST face's JSON (restJSON): open on read (members
// the contract does not model are carried, a batch decodes item by item)
// and proto field names on write, so a Connect JSON answer is byte for byte
// the REST one.
type connectJSON struct {
	name string // "json", or connect-go's alias "json; charset=utf-8"
	rest *restJSON
}

func (j connectJSON) Name() string { return j.name }

func (j connectJSON) Marshal(v any) ([]byte, error) { return j.rest.Marshal(v) }

func (j connectJSON) Unmarshal(data []byte, v any) error {
	m, ok := v.(proto.Message)
	if !ok {
		return j.rest.Unmarshal(data, v)
	}
	if len(data) == 0 {
		// Connect's GET and an empty POST mean an empty message.
		proto.Reset(m)
		return nil
	}
	// Bounded like a REST body before protojson runs (nesting, broken
	// text); a batch's faults inside its items are the decoder's, per item.
	if field, desc, wide, ok := checkJSONFault(data); !ok && (wide || !(isBatch(m) && strings.HasPrefix(field, "requests["))) {
		proto.Reset(m)
		openjson.MarkInvalid(m, field, desc)
		return nil
	}
	if err := j.rest.Unmarshal(data, m); err != nil {
		// connect-go would answer a bare "unmarshal message" error; marked,
		// the message reaches the interceptor, which answers what REST
		// answers (a BadRequest naming the field).
		proto.Reset(m)
		openjson.MarkInvalid(m, "", err.Error())
	}
	return nil
}

// jsonLimitOf is the limit a marked message's refusal names: json_values
// or json_depth when codec.CheckJSON refused the body, "" for any other
// fault (a broken encoding, invalid text). The marking carries only the
// field and the description, so the description tells; TestConnectJSONLimits
// holds it to the descriptions codec.CheckJSON writes.
func jsonLimitOf(st *status.Status) string {
	desc := st.Message()
	if v := fieldViolation(st); v != nil {
		desc = v.GetDescription()
	}
	switch {
	case strings.HasPrefix(desc, jsonTooWidePrefix):
		return limitJSONValues
	case strings.HasPrefix(desc, jsonTooDeepPrefix):
		return limitJSONDepth
	}
	return ""
}

// The openings of codec.CheckJSON's descriptions of its two limits.
const (
	jsonTooWidePrefix = "JSON holds more than "
	jsonTooDeepPrefix = "JSON nested deeper than "
)

// IsBinary tells connect-go the codec is text (it then accepts the
// codec for GET requests and names it in errors as such).
func (connectJSON) IsBinary() bool { return false }

func isBatch(m proto.Message) bool {
	_, ok := m.(*errsvcv1.TranslateBatchRequest)
	return ok
}
