package server

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/errsvc/errsvc/codec"
	"github.com/errsvc/errsvc/codec/openjson"
	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/translate"
	"golang.org/x/time/rate"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/tap"
	"google.golang.org/protobuf/proto"
)

// grpc-go reads a request message only when the handler asks for it, and
// then lets the whole declared message in (up to the receive cap) before
// anything of errsvc sees a byte. So the bounds on what a gRPC client can
// make the server hold sit in front of that read, in recvGuard, which wraps
// the TranslationService handlers (guardedService):
//
//   - the concurrency slot is taken before the message is read, so a call
//     counts in flight from its headers on, and a refusal costs no message;
//   - the message must arrive within ReceiveTimeout (a stream's next
//     message within StreamIdleTimeout), else the call ends;
//   - at most MaxReceiveBufferBytes/(2*MaxRequestBytes) messages are being
//     received at once, and one connection gets at most half of them;
//   - a message the codec refuses, or one over MaxRequestBytes, is answered
//     with the BadRequest every refusal carries (INVALID_ARGUMENT,
//     RESOURCE_EXHAUSTED), not grpc-go's bare INTERNAL. The codec hands its
//     refusal over in a codec.Capture instead of failing the receive,
//     because grpc-go writes the status of a failed receive itself, before
//     the handler returns (serverStream.RecvMsg), so no handler or
//     interceptor could add the detail. For the same reason grpc-go's own
//     cap sits at twice MaxRequestBytes (grpcRecvCap): only a message
//     declared over that gets grpc-go's bare RESOURCE_EXHAUSTED, refused
//     from its 5-byte prefix without being buffered.
//
// Before the handler reads, a stream can only have sent its flow-control
// window (defaultStreamWindow; NewGRPCServer sets the windows statically,
// which also turns off grpc-go's window growth). Once it reads a message
// larger than that, grpc-go widens the window to the message's size; the
// connection holds that widening back until the receive budget has room
// (grpc_stall.go), for unary and stream messages alike.

// errReceiveTimeout is the cause of a call's context when its message did
// not arrive in time.
var errReceiveTimeout = errors.New("request message did not arrive in time")

// errWriteTimeout is the cause of a stream's context when its client took
// none of an answer within the write timeout (it granted no flow-control
// window): the stream ends instead of holding its slot.
var errWriteTimeout = errors.New("the client did not take an answer in time")

type recvCancelKey struct{}

// tapReceive gives each TranslationService call a context that ends a
// receive grpc-go is blocked in, the only way to end one. grpc-go writes the
// status of a failed receive itself (serverStream.RecvMsg), so the context
// decides the code: a unary call gets a deadline of ReceiveTimeout for its
// whole life (DEADLINE_EXCEEDED; a unary call takes microseconds once its
// message is in), a stream a cancel the guard pulls after StreamIdleTimeout
// without a message (CANCELLED).
func tapReceive(receiveTimeout time.Duration) tap.ServerInHandle {
	return func(ctx context.Context, info *tap.Info) (context.Context, error) {
		switch {
		case !isTranslationService(info.FullMethodName):
			return ctx, nil
		case info.FullMethodName == errsvcv1.TranslationService_TranslateStream_FullMethodName:
			ctx, cancel := context.WithCancelCause(ctx)
			return context.WithValue(ctx, recvCancelKey{}, cancel), nil
		}
		// A caller whose own deadline comes first (the Go SDK's default of
		// 10 s always does) is bounded by it already: the derived context
		// would only add a cancel, and cost about five allocations per call.
		if d, ok := ctx.Deadline(); ok && time.Until(d) <= receiveTimeout {
			return ctx, nil
		}
		// Released with the stream's own context: grpc-go cancels that when
		// the call ends (finishStream, closeStream), and cancelling a parent
		// cancels this child and stops its timer. A context.AfterFunc to
		// call cancel as well cost two allocations and a goroutine per call.
		timed, cancel := context.WithTimeoutCause(ctx, receiveTimeout, errReceiveTimeout)
		_ = cancel
		return timed, nil
	}
}

// recvBudget is the receive buffer budget: a counting semaphore for the
// whole server and one per connection (see connRecv).
type recvBudget struct {
	slots   chan struct{}
	perConn int
	metrics *Metrics
}

func newRecvBudget(o Options) *recvBudget {
	// Each message being received may hold up to grpc-go's cap.
	n := max(4, int(o.MaxReceiveBufferBytes/int64(grpcRecvCap(o.MaxRequestBytes))))
	return &recvBudget{slots: make(chan struct{}, n), perConn: max(2, n/2), metrics: o.Metrics}
}

type connKey struct{}

// connRecv is one connection's share of the receive budget, and its count
// of open TranslationService streams (streamLimits).
type connRecv struct {
	slots   chan struct{}
	streams atomic.Int64
}

func (b *recvBudget) tagConn(ctx context.Context) context.Context {
	return context.WithValue(ctx, connKey{}, &connRecv{slots: make(chan struct{}, b.perConn)})
}

// acquire waits up to defaultReceiveWait for the connection's share and the
// server's budget; release undoes a true answer.
func (b *recvBudget) acquire(ctx context.Context) bool {
	conn, _ := ctx.Value(connKey{}).(*connRecv)
	if conn != nil {
		// The common case, without a timer.
		select {
		case conn.slots <- struct{}{}:
			select {
			case b.slots <- struct{}{}:
				b.metrics.receiving.Inc()
				return true
			default:
			}
			<-conn.slots
		default:
		}
	}
	timer := time.NewTimer(defaultReceiveWait)
	defer timer.Stop()
	if conn != nil {
		select {
		case conn.slots <- struct{}{}:
		case <-timer.C:
			return false
		case <-ctx.Done():
			return false
		}
	}
	select {
	case b.slots <- struct{}{}:
		b.metrics.receiving.Inc()
		return true
	case <-timer.C:
	case <-ctx.Done():
	}
	if conn != nil {
		<-conn.slots
	}
	return false
}

func (b *recvBudget) release(ctx context.Context) {
	<-b.slots
	b.metrics.receiving.Dec()
	if conn, _ := ctx.Value(connKey{}).(*connRecv); conn != nil {
		<-conn.slots
	}
}

func (b *recvBudget) exhausted() *status.Status {
	return quotaExceeded(quotaReceiveBuffer, fmt.Sprintf(
		"the server is receiving its limit of %d request messages at once; retry shortly", cap(b.slots)), time.Second)
}

type recvGuard struct {
	limiter        *limiter
	budget         *recvBudget
	maxBytes       int64
	maxItems       int // a batch's requests, counted before decoding
	receiveTimeout time.Duration
	idleTimeout    time.Duration
	writeTimeout   time.Duration // a stream's answer must be taken within it
	streamBytes    float64       // a stream's inflated bytes per second (<= 0: unlimited)
	streamBurst    int           // and its burst
}

// guardedService is desc with every handler behind the guard, and
// Translate answered through cache when it is not nil. Registered in place
// of the generated ServiceDesc, it changes nothing on the wire.
func guardedService(desc grpc.ServiceDesc, g *recvGuard, cache *answerCache) *grpc.ServiceDesc {
	out := desc
	out.Methods = make([]grpc.MethodDesc, len(desc.Methods))
	for i, m := range desc.Methods {
		h := m.Handler
		cached := cache != nil && "/"+desc.ServiceName+"/"+m.MethodName == errsvcv1.TranslationService_Translate_FullMethodName
		out.Methods[i] = grpc.MethodDesc{MethodName: m.MethodName,
			Handler: func(srv any, ctx context.Context, dec func(any) error, in grpc.UnaryServerInterceptor) (any, error) {
				var resp any
				var err error
				if cached {
					l := lookupOf(ctx, cache)
					resp, err = g.unary(srv, ctx, dec, in, l.handle, l)
				} else {
					resp, err = g.unary(srv, ctx, dec, in, h, nil)
				}
				return encodeLent(callFrom(ctx), resp, err)
			}}
	}
	out.Streams = make([]grpc.StreamDesc, len(desc.Streams))
	for i, s := range desc.Streams {
		h := s.Handler
		out.Streams[i] = s
		out.Streams[i].Handler = func(srv any, ss grpc.ServerStream) error {
			return h(srv, &guardedStream{ServerStream: ss, guard: g})
		}
	}
	return &out
}

// encodeLent encodes an answer whose storage the call holds on lease
// (call.lend) before grpc-go would, and gives the storage back: grpc-go
// encodes a handler's answer only after the interceptors return, and
// nothing but the codec reads it. An answer already encoded (a cached one)
// is sent as it is.
func encodeLent(c *call, resp any, err error) (any, error) {
	if c == nil || c.lease == (translate.Lease{}) {
		return resp, err
	}
	defer c.releaseAnswers()
	if err != nil {
		return resp, err
	}
	switch m := resp.(type) {
	case *codec.Encoded:
		return m, nil
	case proto.Message:
		enc, err := codec.Encode(m)
		if err != nil {
			return nil, status.Error(codes.Internal, "the answer could not be encoded")
		}
		return enc, nil
	}
	return nil, status.Error(codes.Internal, "the answer could not be encoded")
}

type unaryHandler = func(any, context.Context, func(any) error, grpc.UnaryServerInterceptor) (any, error)

// unary runs h behind the guard; hook, when set, sees the request's bytes
// (codec.Capture.Raw).
func (g *recvGuard) unary(srv any, ctx context.Context, dec func(any) error, in grpc.UnaryServerInterceptor, h unaryHandler, hook codec.RawHook) (any, error) {
	c := callFrom(ctx)
	if !g.limiter.acquireRequest() {
		c.setLimit(limitConcurrentRequests)
		return nil, g.limiter.requestsExhausted().Err()
	}
	// Released when the handler returns: grpc-go writes the answer after,
	// under HTTP/2 flow control, so a client that does not read holds no
	// slot.
	defer g.limiter.releaseRequest()
	guarded := func(m any) error {
		if !g.budget.acquire(ctx) {
			c.setLimit(limitReceiveBuffer)
			return g.budget.exhausted().Err()
		}
		defer g.budget.release(ctx)
		return g.recv(ctx, c, g.receiveTimeout, g.maxBytes, dec, m, hook)
	}
	return h(srv, ctx, guarded, in)
}

// recv receives one message into m through recvFn, within timeout, and
// turns grpc-go's own refusals into errsvc's answers.
func (g *recvGuard) recv(ctx context.Context, c *call, timeout time.Duration, maxBytes int64, recvFn func(any) error, m any, hook codec.RawHook) error {
	pm, ok := m.(proto.Message)
	if !ok {
		return recvFn(m)
	}
	// The call record's, when there is one: a call receives one message at
	// a time, and the codec keeps nothing of it once the receive returns.
	var capture *codec.Capture
	if c != nil {
		c.capture = codec.Capture{Msg: pm, MaxBytes: int(maxBytes), MaxItems: g.maxItems, Raw: hook}
		capture = &c.capture
	} else {
		capture = &codec.Capture{Msg: pm, MaxBytes: int(maxBytes), MaxItems: g.maxItems, Raw: hook}
	}
	err := recvFn(capture)
	if err != nil && errors.Is(context.Cause(ctx), errReceiveTimeout) {
		// grpc-go has already answered (see tapReceive); this is for the
		// log line and the metric.
		c.setLimit(limitReceiveTimeout)
		return receiveTimedOut(timeout).Err()
	}
	if err == nil && capture.Err == nil {
		return nil
	}
	var fe *codec.FieldError
	st := status.Convert(err)
	switch {
	case errors.Is(capture.Err, codec.ErrTooLarge):
		c.setLimit(limitRequestBytes)
		return tooLarge(g.maxBytes).Err()
	case errors.Is(capture.Err, codec.ErrTooManyItems):
		c.setLimit(limitBatchItems)
		return resourceExhausted("requests", fmt.Sprintf("a batch holds at most %d requests", g.maxItems)).Err()
	case errors.As(capture.Err, &fe):
		switch {
		case errors.Is(fe, codec.ErrTooDeep):
			c.setLimit(limitJSONDepth)
		case errors.Is(fe, codec.ErrTooWide):
			c.setLimit(limitJSONValues)
		}
		field := fe.Field
		if field == "" {
			field = "body"
		}
		return invalidArgument(field, fe.Description).Err()
	case capture.Err != nil || (st.Code() == codes.Internal && strings.HasPrefix(st.Message(), grpcUndecodable)):
		return invalidArgument("body", "not a valid "+string(pm.ProtoReflect().Descriptor().FullName())+" message").Err()
	case st.Code() == codes.ResourceExhausted && strings.HasPrefix(st.Message(), grpcTooLargePrefix):
		c.setLimit(limitRequestBytes)
		return tooLarge(g.maxBytes).Err()
	}
	return err
}

// receiveTimedOut answers a request that stopped arriving, on both
// transports: DEADLINE_EXCEEDED (REST 408) naming the body.
func receiveTimedOut(timeout time.Duration) *status.Status {
	return badRequest(codes.DeadlineExceeded, "body",
		fmt.Sprintf("the request message did not arrive in full within %s", timeout))
}

// guardedStream bounds each message of a stream: its wait (the stream's
// idle time) and grpc-go's refusals, as for unary calls. A stream takes no
// receive slot here, since between messages it holds nothing but its
// window; a message larger than the window is counted against the receive
// budget on the connection while it arrives (grpc_stall.go).
type guardedStream struct {
	grpc.ServerStream
	guard *recvGuard
	// idle ends the stream (tapReceive's cancel) when a message takes
	// longer than the idle timeout to arrive: one timer for the stream,
	// armed for each receive.
	idle *time.Timer
	// stalled ends the stream when an answer cannot be written within the
	// write timeout: grpc-go's Send waits for the client's flow-control
	// window with no bound of its own, and returns once the stream's
	// context ends.
	stalled *time.Timer
	// inflated paces the stream's messages by their bytes after
	// decompression: when a message puts it in debt, the next is read
	// only once the debt is paid, and flow control holds the client back.
	inflated *rate.Limiter
	debt     time.Duration
}

func (s *guardedStream) SendMsg(m any) error {
	if s.guard.writeTimeout > 0 {
		if s.stalled == nil {
			if cancel, ok := s.Context().Value(recvCancelKey{}).(context.CancelCauseFunc); ok {
				s.stalled = time.AfterFunc(s.guard.writeTimeout, func() { cancel(errWriteTimeout) })
			}
		} else {
			s.stalled.Reset(s.guard.writeTimeout)
		}
	}
	err := s.ServerStream.SendMsg(m)
	if s.stalled != nil {
		s.stalled.Stop()
	}
	if err != nil && errors.Is(context.Cause(s.Context()), errWriteTimeout) {
		// The handler returns and frees the stream's slot; what grpc-go
		// had queued for the client (at most its 64 KiB write quota, and
		// the status behind it) waits on the connection.
		callFrom(s.Context()).setLimit(limitWriteTimeout)
	}
	return err
}

func (s *guardedStream) RecvMsg(m any) error {
	ctx := s.Context()
	if s.debt > 0 {
		t := time.NewTimer(s.debt)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return status.FromContextError(ctx.Err()).Err()
		}
		s.debt = 0
	}
	if s.idle == nil {
		if cancel, ok := ctx.Value(recvCancelKey{}).(context.CancelCauseFunc); ok {
			s.idle = time.AfterFunc(s.guard.idleTimeout, func() { cancel(errReceiveTimeout) })
		}
	} else {
		s.idle.Reset(s.guard.idleTimeout)
	}
	// No size refusal here: an oversize stream message is decoded (it is
	// within grpc-go's cap) and answered as an item by the service, so the
	// stream goes on.
	err := s.guard.recv(ctx, callFrom(ctx), s.guard.idleTimeout, 0, s.ServerStream.RecvMsg, m, nil)
	if s.idle != nil {
		s.idle.Stop()
	}
	if pm, ok := m.(proto.Message); ok && err == nil && s.guard.streamBytes > 0 {
		s.pace(codec.Size(pm))
	}
	// A message the codec refused (a broken encoding, invalid text, nesting
	// past the limit) is one bad item, as in a batch: it is handed on
	// marked with its error, the service answers it with its own
	// INVALID_ARGUMENT, and the stream goes on.
	if pm, ok := m.(proto.Message); ok && status.Code(err) == codes.InvalidArgument {
		if v := fieldViolation(status.Convert(err)); v != nil {
			proto.Reset(pm)
			openjson.MarkInvalid(pm, v.GetField(), v.GetDescription())
			return nil
		}
	}
	return err
}

// pace charges n inflated bytes to the stream's rate and notes how long the
// next receive must wait.
func (s *guardedStream) pace(n int) {
	if s.inflated == nil {
		s.inflated = rate.NewLimiter(rate.Limit(s.guard.streamBytes), s.guard.streamBurst)
	}
	now := time.Now()
	if r := s.inflated.ReserveN(now, min(n, s.guard.streamBurst)); r.OK() {
		s.debt = r.DelayFrom(now)
	}
}

// fieldViolation is the first BadRequest field violation of st, or nil.
func fieldViolation(st *status.Status) *errdetails.BadRequest_FieldViolation {
	for _, d := range st.Details() {
		if br, ok := d.(*errdetails.BadRequest); ok && len(br.GetFieldViolations()) > 0 {
			return br.GetFieldViolations()[0]
		}
	}
	return nil
}
