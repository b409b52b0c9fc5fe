package server

import (
	"context"

	"github.com/errsvc/errsvc/codec"
	"github.com/errsvc/errsvc/translate"
	"log/slog"
	"strings"
	"time"

	"go.opentelemetry.io/otel/trace"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// call is what one call (gRPC or REST) learns about itself on its way
// through the server: the outermost layer of each transport (the gRPC
// interceptors, restHandler) puts it in the context, inner layers fill it
// in, and the outermost layer counts and logs it when the call ends.
//
// A call runs its handler on one goroutine (a stream's messages are handled
// one after another), and the outermost layer reads the record only after
// the handler returned, so the fields need no locking.
type call struct {
	transport string
	rpc       string
	start     time.Time
	// span is the call's server span (see tracing.go), from the context
	// openCall stores the record in; never nil.
	span trace.Span

	code codes.Code
	// field is the violated field (BadRequest) or the quota subject
	// (QuotaFailure) of the call's error, already made safe to log.
	field string
	// limit names the limit that refused the call, if one did.
	limit        string
	bodyTooLarge bool
	// bodyTimedOut and bodyRefused are what the REST body check found
	// before the gateway ran (see restHandler).
	bodyTimedOut bool
	bodyRefused  *status.Status
	panicked     bool
	// finished is set once the call is counted and logged.
	finished bool
	// callerFault marks an error the caller caused although its code says
	// otherwise (grpc-go answers an undecodable message INTERNAL).
	callerFault bool

	// Batch items and stream messages carry their own errors.
	items       int
	failedItems int
	itemCode    codes.Code // of the first failed item
	itemField   string     // of the first failed item, safe to log
	itemLimit   string     // of the first failed item

	// answer is what a successful unary Translate tells its transport's
	// answer cache about its answer.
	answer answerNote

	// leases are the storage of the call's answers (translate.Lease), lent
	// until the transport has encoded them (releaseAnswers).
	lease  translate.Lease
	leases []translate.Lease

	// series are the metric children of transport and rpc (see
	// Metrics.seriesOf).
	series *rpcSeries
	// lookup is a gRPC Translate's use of the answer cache.
	lookup grpcLookup
	// capture is the receive of a gRPC request message (recvGuard.recv).
	capture codec.Capture
	// restAnswer is the buffer a REST call's answer is encoded into
	// (encodeIntoAnswer), while the gateway runs.
	restAnswer *bufferedResponse
}

// lend keeps the lease of one of the call's answers until releaseAnswers.
// Without a record nothing releases it, and the storage is the collector's.
func (c *call) lend(l translate.Lease) {
	switch {
	case c == nil || l == (translate.Lease{}):
	case c.lease == (translate.Lease{}):
		c.lease = l
	default:
		c.leases = append(c.leases, l)
	}
}

// releaseAnswers gives back the storage of the call's answers. The
// outermost layer of a transport calls it once the answers are encoded;
// nothing may read them afterwards.
func (c *call) releaseAnswers() {
	if c == nil {
		return
	}
	c.lease.Release()
	for _, l := range c.leases {
		l.Release()
	}
	c.lease, c.leases = translate.Lease{}, nil
}

type callKey struct{}

// newCall is a record outside any context (for tests).
func newCall(transport, rpc string) *call {
	c := &call{}
	c.open(transport, rpc)
	return c
}

func (c *call) open(transport, rpc string) {
	*c = call{transport: transport, rpc: rpc, start: time.Now(), code: codes.OK}
}

// openCall opens the record of a call and returns ctx carrying it, with
// the record in its own node of the context chain (callCtx): opening a
// call costs one allocation, where context.WithValue would add a second.
func openCall(ctx context.Context, transport, rpc string) (context.Context, *call) {
	cc := &callCtx{Context: ctx}
	cc.c.open(transport, rpc)
	cc.c.span = trace.SpanFromContext(ctx)
	return cc, &cc.c
}

// callCtx is a context carrying a call record, as context.WithValue(ctx,
// callKey{}, c) would. Everything else it asks its parent, so the context
// package treats it as it treats a value context (cancellation of a child
// registers with the parent's).
type callCtx struct {
	context.Context
	c call
}

func (cc *callCtx) Value(key any) any {
	if _, ok := key.(callKey); ok {
		return &cc.c
	}
	return cc.Context.Value(key)
}

func callFrom(ctx context.Context) *call {
	c, _ := ctx.Value(callKey{}).(*call)
	return c
}

// setStatus records the status a call ends with.
func (c *call) setStatus(st *status.Status) {
	c.code = st.Code()
	c.field = statusField(st)
}

// itemDone records the outcome of one batch item or stream message.
func (c *call) itemDone(st *status.Status, limit string) {
	c.items++
	if st == nil || st.Code() == codes.OK {
		return
	}
	c.failedItems++
	if c.failedItems == 1 || (st.Code() == codes.Internal && c.itemCode != codes.Internal) {
		c.itemCode, c.itemField, c.itemLimit = st.Code(), statusField(st), limit
	}
}

// finish counts the call and writes its one log line: nothing at INFO for a
// call that went well (DEBUG only), WARN for an error the caller can fix,
// ERROR for one that needs an operator. The line names the RPC, the code,
// the duration and the violated field or quota, never the request, the
// error's message or anything an upstream wrote.
func (c *call) finish(ctx context.Context, logger *slog.Logger, m *Metrics) {
	m.observeCall(c)
	traceCall(c)
	level := logLevel(c.code)
	if c.callerFault {
		level = slog.LevelWarn
	}
	msg := "call"
	switch {
	case c.code != codes.OK:
		msg = "call failed"
	case c.failedItems > 0:
		msg = "call answered items with errors"
		level = max(slog.LevelWarn, logLevel(c.itemCode))
	}
	if !logger.Enabled(ctx, level) {
		return
	}
	attrs := []slog.Attr{
		slog.String("transport", c.transport),
		slog.String("rpc", c.rpc),
		slog.String("code", c.code.String()),
		slog.Float64("duration_ms", float64(time.Since(c.start).Microseconds())/1000),
	}
	if sc := c.span.SpanContext(); sc.HasTraceID() {
		attrs = append(attrs, slog.String("trace_id", sc.TraceID().String()), slog.String("span_id", sc.SpanID().String()))
	}
	if c.field != "" {
		attrs = append(attrs, slog.String("field", c.field))
	}
	if c.limit != "" {
		attrs = append(attrs, slog.String("limit", c.limit))
	}
	if c.panicked {
		attrs = append(attrs, slog.Bool("panic", true))
	}
	if c.items > 0 {
		attrs = append(attrs, slog.Int("items", c.items), slog.Int("failed_items", c.failedItems))
	}
	if c.failedItems > 0 {
		attrs = append(attrs, slog.String("item_code", c.itemCode.String()))
		if c.itemField != "" {
			attrs = append(attrs, slog.String("item_field", c.itemField))
		}
		if c.itemLimit != "" {
			attrs = append(attrs, slog.String("item_limit", c.itemLimit))
		}
	}
	logger.LogAttrs(ctx, level, msg, attrs...)
}

// logLevel follows the Labby agent error contract v1: caller-fixable errors at WARN, internal
// failures that need an operator at ERROR.
func logLevel(code codes.Code) slog.Level {
	switch code {
	case codes.OK:
		return slog.LevelDebug
	case codes.Internal, codes.Unknown, codes.DataLoss, codes.Unavailable:
		return slog.LevelError
	}
	return slog.LevelWarn
}

// statusField is the field a BadRequest names or the subject a QuotaFailure
// names, made safe to log.
func statusField(st *status.Status) string {
	for _, d := range st.Details() {
		switch d := d.(type) {
		case *errdetails.BadRequest:
			if v := d.GetFieldViolations(); len(v) > 0 {
				return logSafeField(v[0].GetField())
			}
		case *errdetails.QuotaFailure:
			if v := d.GetViolations(); len(v) > 0 {
				return logSafeField(v[0].GetSubject())
			}
		}
	}
	return ""
}

// logSafeField keeps each dotted segment of a field path only if it is a
// name the contract declares; anything else becomes "*". A violation can
// name a key the caller wrote (an unknown JSON field, a key inside details),
// and a caller can write a secret there.
func logSafeField(path string) string {
	if path == "" {
		return ""
	}
	segs := strings.Split(path, ".")
	if len(segs) > 8 {
		segs = append(segs[:8], "*")
	}
	for i, s := range segs {
		if !knownFieldNames[s] {
			segs[i] = "*"
		}
	}
	return strings.Join(segs, ".")
}

// knownFieldNames holds every field name (proto and JSON spelling) of the
// errsvc.v1 messages, plus the pseudo-fields and quota subjects the server
// names itself.
var knownFieldNames = func() map[string]bool {
	names := map[string]bool{
		"body": true, sourceField: true, "requests": true,
		quotaConcurrentRequests: true, quotaConcurrentStreams: true, quotaStreamMessages: true,
		quotaHealthWatches: true, quotaReceiveBuffer: true,
	}
	var addMessages func(protoreflect.MessageDescriptors)
	addMessages = func(ms protoreflect.MessageDescriptors) {
		for i := range ms.Len() {
			md := ms.Get(i)
			for j := range md.Fields().Len() {
				fd := md.Fields().Get(j)
				names[string(fd.Name())] = true
				names[fd.JSONName()] = true
			}
			for j := range md.Oneofs().Len() {
				names[string(md.Oneofs().Get(j).Name())] = true
			}
			addMessages(md.Messages())
		}
	}
	protoregistry.GlobalFiles.RangeFilesByPackage("errsvc.v1", func(fd protoreflect.FileDescriptor) bool {
		addMessages(fd.Messages())
		return true
	})
	return names
}()

// setLimit names the limit that refused the call; nil-safe.
func (c *call) setLimit(limit string) {
	if c != nil {
		c.limit = limit
	}
}
