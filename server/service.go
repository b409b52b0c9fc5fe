package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/errsvc/errsvc/codec"
	"github.com/errsvc/errsvc/codec/openjson"
	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/translate"
	"golang.org/x/time/rate"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// Service implements errsvcv1.TranslationServiceServer on top of the pure
// translate core. It holds no per-call state, so one value serves both
// transports concurrently.
type Service struct {
	errsvcv1.UnimplementedTranslationServiceServer

	maxBatchItems int
	maxBytes      int64
	streamRate    float64
	streamBurst   int
	logger        *slog.Logger
	metrics       *Metrics
	// translate is translate.TranslateLeased: the answer, whether it is a
	// function of the request alone (see answer_cache.go), and the lease of
	// its storage, which the call record holds (call.lend) until the
	// transport has encoded the answer.
	translate func(*errsvcv1.TranslateRequest) (*errsvcv1.TranslateResponse, bool, translate.Lease, error)
	// policy is the operator policy's holder (nil: none).
	policy *PolicyHolder
}

var _ errsvcv1.TranslationServiceServer = (*Service)(nil)

// NewService returns the service configured by opts (MaxBatchItems,
// MaxRequestBytes and StreamRate/StreamBurst for stream messages, Logger,
// Metrics).
func NewService(opts Options) *Service {
	opts = opts.withDefaults()
	fn := translate.TranslateLeased
	if h := opts.Policy; h != nil {
		h.observe(opts.Metrics)
		// One load per translation: the answer reads one policy throughout.
		fn = func(req *errsvcv1.TranslateRequest) (*errsvcv1.TranslateResponse, bool, translate.Lease, error) {
			return h.Load().TranslateLeased(req)
		}
	}
	switch c, t := opts.translateCacheable, opts.translate; {
	case c != nil:
		fn = func(req *errsvcv1.TranslateRequest) (*errsvcv1.TranslateResponse, bool, translate.Lease, error) {
			resp, cacheable, err := c(req)
			return resp, cacheable, translate.Lease{}, err
		}
	case t != nil:
		// An injected fault is no function of the request: never cached.
		fn = func(req *errsvcv1.TranslateRequest) (*errsvcv1.TranslateResponse, bool, translate.Lease, error) {
			resp, err := t(req)
			return resp, false, translate.Lease{}, err
		}
	}
	return &Service{
		maxBatchItems: opts.MaxBatchItems,
		maxBytes:      opts.MaxRequestBytes,
		streamRate:    opts.StreamRate,
		streamBurst:   opts.StreamBurst,
		logger:        opts.Logger,
		metrics:       opts.Metrics,
		translate:     fn,
		policy:        opts.Policy,
	}
}

// Translate answers one request, or INVALID_ARGUMENT with a BadRequest detail
// when it is malformed.
func (s *Service) Translate(ctx context.Context, req *errsvcv1.TranslateRequest) (*errsvcv1.TranslateResponse, error) {
	resp, cacheable, lease, st := s.translateOne(ctx, req)
	c := callFrom(ctx)
	c.lend(lease)
	source, class := sourceLabel(req), itemClass(resp, st)
	s.metrics.observeItem(c, source, class, itemCode(st), false, "")
	if st != nil {
		return nil, st.Err()
	}
	if c != nil {
		// For the transport's answer cache, which stores what it encodes.
		c.answer = answerNote{answered: true, cacheable: cacheable, source: source, class: class}
	}
	return resp, nil
}

// translateHit accounts for a Translate answered from a transport's answer
// cache exactly as Translate accounts for the translation it stands for:
// the same item (source, class, code) in the metrics and the trace, and the
// same refusal of a caller that already gave up.
func (s *Service) translateHit(ctx context.Context, a *answer) error {
	c := callFrom(ctx)
	if err := ctx.Err(); err != nil {
		st := status.FromContextError(err)
		s.metrics.observeItem(c, a.source, labelNone, st.Code(), false, "")
		return st.Err()
	}
	s.countHit(c, a)
	return nil
}

// countHit counts a's translation, answered from a cache, for call c.
func (s *Service) countHit(c *call, a *answer) {
	s.metrics.observeItem(c, a.source, a.class, codes.OK, false, "")
}

// TranslateBatch answers every item independently, in order; a malformed
// item gets its own error so it cannot fail the others.
func (s *Service) TranslateBatch(ctx context.Context, req *errsvcv1.TranslateBatchRequest) (*errsvcv1.TranslateBatchResponse, error) {
	items := req.GetRequests()
	if len(items) > s.maxBatchItems {
		if c := callFrom(ctx); c != nil {
			c.limit = limitBatchItems
		}
		return nil, resourceExhausted("requests",
			// No count: a JSON decoder stops one request past the limit.
			fmt.Sprintf("a batch holds at most %d requests", s.maxBatchItems)).Err()
	}
	out := &errsvcv1.TranslateBatchResponse{Responses: make([]*errsvcv1.TranslateResponse, len(items))}
	if s.policy != nil {
		// One batch, one policy: a swap between two items does not make
		// them answer under different policies.
		ctx = context.WithValue(ctx, pinnedPolicyKey{}, s.policy.Load())
	}
	c := callFrom(ctx)
	for i, item := range items {
		// A caller that gave up (deadline, cancel) gets no more work done.
		if err := ctx.Err(); err != nil {
			return nil, status.FromContextError(err).Err()
		}
		resp, lease := s.translateItem(ctx, item)
		c.lend(lease)
		out.Responses[i] = resp
	}
	return out, nil
}

// TranslateStream answers each received request in order. Like a batch item,
// a malformed request gets a response carrying its error and the stream goes
// on; only transport errors end it. So do the stream's limits: a message
// over MaxRequestBytes, or over the stream's rate (StreamRate, StreamBurst),
// is answered by a response carrying RESOURCE_EXHAUSTED (a BadRequest on
// "body", or a QuotaFailure and a RetryInfo) without being translated.
func (s *Service) TranslateStream(stream grpc.BidiStreamingServer[errsvcv1.TranslateRequest, errsvcv1.TranslateResponse]) error {
	ctx := stream.Context()
	var limiter *rate.Limiter
	if s.streamRate > 0 {
		limiter = rate.NewLimiter(rate.Limit(s.streamRate), s.streamBurst)
	}
	for {
		req, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		var resp *errsvcv1.TranslateResponse
		var lease translate.Lease
		switch {
		case limiter != nil && !limiter.Allow():
			resp = s.refuseItem(ctx, req, limitStreamRate, quotaExceeded(quotaStreamMessages,
				fmt.Sprintf("a stream may send %g messages per second (bursts of %d)", s.streamRate, s.streamBurst),
				time.Duration(float64(time.Second)/s.streamRate)))
		case int64(codec.Size(req)) > s.maxBytes:
			resp = s.refuseItem(ctx, req, limitRequestBytes, tooLarge(s.maxBytes))
		default:
			resp, lease = s.translateItem(ctx, req)
		}
		// grpc-go has encoded the answer once Send returns.
		err = stream.Send(resp)
		lease.Release()
		if err != nil {
			return err
		}
	}
}

// refuseItem answers a stream message a limit refused.
func (s *Service) refuseItem(ctx context.Context, req *errsvcv1.TranslateRequest, limit string, st *status.Status) *errsvcv1.TranslateResponse {
	if c := callFrom(ctx); c != nil {
		c.itemDone(st, limit)
	}
	s.metrics.observeItem(callFrom(ctx), sourceLabel(req), labelNone, st.Code(), true, limit)
	return &errsvcv1.TranslateResponse{Error: st.Proto()}
}

// ListVocabularies renders the matrix the translator itself reads, with
// the operator policy's terms beside the built-in ones.
func (s *Service) ListVocabularies(context.Context, *errsvcv1.ListVocabulariesRequest) (*errsvcv1.ListVocabulariesResponse, error) {
	return s.policy.Load().Vocabularies(), nil
}

// translateItem folds a failure into the response, as batch and stream items
// report their own errors.
func (s *Service) translateItem(ctx context.Context, req *errsvcv1.TranslateRequest) (*errsvcv1.TranslateResponse, translate.Lease) {
	resp, _, lease, st := s.translateOne(ctx, req)
	c := callFrom(ctx)
	if c != nil {
		c.itemDone(st, "")
	}
	s.metrics.observeItem(c, sourceLabel(req), itemClass(resp, st), itemCode(st), true, "")
	if st != nil {
		return &errsvcv1.TranslateResponse{Error: st.Proto()}, lease
	}
	return resp, lease
}

func (s *Service) translateOne(ctx context.Context, req *errsvcv1.TranslateRequest) (*errsvcv1.TranslateResponse, bool, translate.Lease, *status.Status) {
	if req == nil {
		req = &errsvcv1.TranslateRequest{}
	}
	// A batch item the JSON decoder could not read carries its error.
	if st := invalidItem(req); st != nil {
		return nil, false, translate.Lease{}, st
	}
	// Checked here as well as in the core so the transport contract (exactly
	// one source, named in a BadRequest) holds whatever the core does. Two
	// sources cannot reach this point: the binary wire keeps the last one and
	// protojson rejects the second (see decodeErrorStatus).
	if req.GetSource() == nil {
		return nil, false, translate.Lease{}, missingSource(req)
	}
	// A caller that already gave up gets no work done: its deadline is
	// honoured here, and between the items of a batch.
	if err := ctx.Err(); err != nil {
		return nil, false, translate.Lease{}, status.FromContextError(err)
	}
	began := time.Now()
	var (
		resp      *errsvcv1.TranslateResponse
		cacheable bool
		lease     translate.Lease
		err       error
	)
	resp, cacheable, lease, err = s.translateGuarded(ctx, req)
	s.metrics.translateDurOf(sourceLabel(req)).Observe(time.Since(began).Seconds())
	if err == nil {
		// The common case, without errors.As (whose target escapes).
		if resp == nil {
			return &errsvcv1.TranslateResponse{}, cacheable, lease, nil
		}
		return resp, cacheable, lease, nil
	}
	var reqErr *translate.RequestError
	if errors.As(err, &reqErr) {
		return nil, false, translate.Lease{}, invalidArgument(reqErr.Field, reqErr.Description)
	}
	if st, ok := status.FromError(err); ok {
		// A panic, logged where it was recovered (translateGuarded).
		return nil, false, translate.Lease{}, st
	}
	// Only the error's type: its text may quote the request or upstream
	// text, and neither belongs in a log. The call's own ERROR line
	// follows from the INTERNAL code.
	s.logger.ErrorContext(ctx, "translate failed", "error_type", fmt.Sprintf("%T", err))
	return nil, false, translate.Lease{}, status.New(codes.Internal, "translation failed")
}

// translateGuarded is one translation with a panic of the core turned into
// INTERNAL for this request alone: the interceptors' recovery would fail a
// whole batch or end a stream for one item the core chokes on (a request
// once made the sanitiser read past its text), and every other item is
// still answered. The lease of a panicked translation is dropped, not
// released: its storage may be half written.
func (s *Service) translateGuarded(ctx context.Context, req *errsvcv1.TranslateRequest) (resp *errsvcv1.TranslateResponse, cacheable bool, lease translate.Lease, err error) {
	rpc := ""
	if c := callFrom(ctx); c != nil {
		rpc = c.rpc
	}
	defer recoverAsInternal(ctx, s.logger, rpc, &err)
	if p, pinned := pinnedPolicy(ctx, s.policy); pinned {
		return p.TranslateLeased(req)
	}
	return s.translate(req)
}

// sourceField is the TranslateRequest oneof; a violation names it when no
// single member is to blame.
const sourceField = "source"

// sourceChoices lists the oneof members from the descriptor so the message
// stays right when the contract gains a source.
func sourceChoices() string {
	fields := (&errsvcv1.TranslateRequest{}).ProtoReflect().Descriptor().Oneofs().ByName(sourceField).Fields()
	names := make([]string, fields.Len())
	for i := range names {
		names[i] = string(fields.Get(i).Name())
	}
	return strings.Join(names, ", ")
}

// itemCode is the code an item ends with.
func itemCode(st *status.Status) codes.Code {
	if st == nil {
		return codes.OK
	}
	return st.Code()
}

// itemClass is the class label of an item: none when it failed.
func itemClass(resp *errsvcv1.TranslateResponse, st *status.Status) string {
	if st != nil {
		return labelNone
	}
	return classLabel(resp)
}

// invalidItem is the INVALID_ARGUMENT of a request a decoder could not read
// and marked (openjson.MarkInvalid: a batch item, a stream or Connect
// message), or nil: the item fails alone, naming its field.
func invalidItem(m proto.Message) *status.Status {
	err := openjson.ItemError(m)
	if err == nil {
		// The common case, without errors.As (whose target escapes).
		return nil
	}
	var bad *openjson.InvalidItem
	if !errors.As(err, &bad) {
		return nil
	}
	if bad.Field == "" {
		return decodeErrorStatus(bad.Description)
	}
	return invalidArgument(bad.Field, bad.Description)
}
