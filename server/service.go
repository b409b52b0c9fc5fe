package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/translate"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Service implements errsvcv1.TranslationServiceServer on top of the pure
// translate core. It holds no per-call state, so one value serves both
// transports concurrently.
type Service struct {
	errsvcv1.UnimplementedTranslationServiceServer

	maxBatchItems int
	logger        *slog.Logger
	translate     func(*errsvcv1.TranslateRequest) (*errsvcv1.TranslateResponse, error)
}

var _ errsvcv1.TranslationServiceServer = (*Service)(nil)

// NewService returns the service configured by opts (MaxBatchItems, Logger).
func NewService(opts Options) *Service {
	opts = opts.withDefaults()
	fn := opts.translate
	if fn == nil {
		fn = translate.Translate
	}
	return &Service{maxBatchItems: opts.MaxBatchItems, logger: opts.Logger, translate: fn}
}

// Translate answers one request, or INVALID_ARGUMENT with a BadRequest detail
// when it is malformed.
func (s *Service) Translate(ctx context.Context, req *errsvcv1.TranslateRequest) (*errsvcv1.TranslateResponse, error) {
	resp, st := s.translateOne(ctx, req)
	if st != nil {
		return nil, st.Err()
	}
	return resp, nil
}

// TranslateBatch answers every item independently, in order; a malformed
// item gets its own error so it cannot fail the others.
func (s *Service) TranslateBatch(ctx context.Context, req *errsvcv1.TranslateBatchRequest) (*errsvcv1.TranslateBatchResponse, error) {
	items := req.GetRequests()
	if len(items) > s.maxBatchItems {
		return nil, resourceExhausted("requests",
			fmt.Sprintf("a batch holds at most %d requests, got %d", s.maxBatchItems, len(items))).Err()
	}
	out := &errsvcv1.TranslateBatchResponse{Responses: make([]*errsvcv1.TranslateResponse, len(items))}
	for i, item := range items {
		out.Responses[i] = s.translateItem(ctx, item)
	}
	return out, nil
}

// TranslateStream answers each received request in order. Like a batch item,
// a malformed request gets a response carrying its error and the stream goes
// on; only transport errors end it.
func (s *Service) TranslateStream(stream grpc.BidiStreamingServer[errsvcv1.TranslateRequest, errsvcv1.TranslateResponse]) error {
	for {
		req, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := stream.Send(s.translateItem(stream.Context(), req)); err != nil {
			return err
		}
	}
}

// ListVocabularies renders the matrix the translator itself reads.
func (s *Service) ListVocabularies(context.Context, *errsvcv1.ListVocabulariesRequest) (*errsvcv1.ListVocabulariesResponse, error) {
	return translate.Vocabularies(), nil
}

// translateItem folds a failure into the response, as batch and stream items
// report their own errors.
func (s *Service) translateItem(ctx context.Context, req *errsvcv1.TranslateRequest) *errsvcv1.TranslateResponse {
	resp, st := s.translateOne(ctx, req)
	if st != nil {
		return &errsvcv1.TranslateResponse{Error: st.Proto()}
	}
	return resp
}

func (s *Service) translateOne(ctx context.Context, req *errsvcv1.TranslateRequest) (*errsvcv1.TranslateResponse, *status.Status) {
	if req == nil {
		req = &errsvcv1.TranslateRequest{}
	}
	// Checked here as well as in the core so the transport contract (exactly
	// one source, named in a BadRequest) holds whatever the core does. Two
	// sources cannot reach this point: the binary wire keeps the last one and
	// protojson rejects the second (see decodeErrorStatus).
	if req.GetSource() == nil {
		return nil, invalidArgument(sourceField, "exactly one of "+sourceChoices()+" is required")
	}
	resp, err := s.translate(req)
	var reqErr *translate.RequestError
	switch {
	case errors.As(err, &reqErr):
		return nil, invalidArgument(reqErr.Field, reqErr.Description)
	case err != nil:
		// The error text is the core's own diagnosis; the request is not
		// logged because it may carry user data.
		s.logger.ErrorContext(ctx, "translate failed", "error", err)
		return nil, status.New(codes.Internal, "translation failed")
	case resp == nil:
		return &errsvcv1.TranslateResponse{}, nil
	}
	return resp, nil
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
