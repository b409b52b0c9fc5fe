package errsvcclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/translate"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// inProcess implements the generated TranslationServiceClient by calling the
// translator directly, with the server's error contract: a malformed request
// is INVALID_ARGUMENT with a google.rpc.BadRequest naming the field, and a
// batch or stream item carries its own error.
type inProcess struct {
	// policy is the operator policy it translates under (nil: none).
	policy *translate.Policy
}

var _ errsvcv1.TranslationServiceClient = inProcess{}

func (ip inProcess) Translate(ctx context.Context, req *errsvcv1.TranslateRequest, _ ...grpc.CallOption) (*errsvcv1.TranslateResponse, error) {
	if err := ctx.Err(); err != nil {
		return nil, status.FromContextError(err).Err()
	}
	resp, st := ip.translateOne(req)
	if st != nil {
		return nil, st.Err()
	}
	return resp, nil
}

func (ip inProcess) TranslateBatch(ctx context.Context, in *errsvcv1.TranslateBatchRequest, _ ...grpc.CallOption) (*errsvcv1.TranslateBatchResponse, error) {
	out := &errsvcv1.TranslateBatchResponse{Responses: make([]*errsvcv1.TranslateResponse, len(in.GetRequests()))}
	for i, req := range in.GetRequests() {
		if err := ctx.Err(); err != nil {
			return nil, status.FromContextError(err).Err()
		}
		out.Responses[i] = ip.translateItem(req)
	}
	return out, nil
}

func (ip inProcess) ListVocabularies(ctx context.Context, _ *errsvcv1.ListVocabulariesRequest, _ ...grpc.CallOption) (*errsvcv1.ListVocabulariesResponse, error) {
	if err := ctx.Err(); err != nil {
		return nil, status.FromContextError(err).Err()
	}
	return ip.policy.Vocabularies(), nil
}

func (ip inProcess) TranslateStream(ctx context.Context, _ ...grpc.CallOption) (grpc.BidiStreamingClient[errsvcv1.TranslateRequest, errsvcv1.TranslateResponse], error) {
	if err := ctx.Err(); err != nil {
		return nil, status.FromContextError(err).Err()
	}
	return &localStream{ctx: ctx, ready: make(chan struct{}, 1), ip: ip}, nil
}

// translateItem folds a failure into the response, as batch and stream
// items report their own errors.
func (ip inProcess) translateItem(req *errsvcv1.TranslateRequest) *errsvcv1.TranslateResponse {
	resp, st := ip.translateOne(req)
	if st != nil {
		return &errsvcv1.TranslateResponse{Error: st.Proto()}
	}
	return resp
}

func (ip inProcess) translateOne(req *errsvcv1.TranslateRequest) (*errsvcv1.TranslateResponse, *status.Status) {
	if req == nil {
		req = &errsvcv1.TranslateRequest{}
	}
	if req.GetSource() == nil {
		// As the server: the names the contract does not have first, each
		// with the nearest known one, then the source.
		var vs []*errdetails.BadRequest_FieldViolation
		for _, m := range translate.UnknownTopLevel(req) {
			vs = append(vs, &errdetails.BadRequest_FieldViolation{Field: m.Field, Description: m.Description})
		}
		vs = append(vs, &errdetails.BadRequest_FieldViolation{Field: "source", Description: "exactly one of " + sourceChoices() + " is required"})
		return nil, badRequests(vs)
	}
	// A copy, so the response never shares a message with the caller's
	// request, as it never does over the network.
	resp, err := ip.policy.Translate(proto.Clone(req).(*errsvcv1.TranslateRequest))
	var reqErr *translate.RequestError
	switch {
	case errors.As(err, &reqErr):
		return nil, badRequest(reqErr.Field, reqErr.Description)
	case err != nil:
		return nil, status.New(codes.Internal, fmt.Sprintf("translation failed: %v", err))
	case resp == nil:
		return &errsvcv1.TranslateResponse{}, nil
	}
	return resp, nil
}

func badRequest(field, description string) *status.Status {
	return badRequests([]*errdetails.BadRequest_FieldViolation{{Field: field, Description: description}})
}

// badRequests names several fields: the message says the first.
func badRequests(vs []*errdetails.BadRequest_FieldViolation) *status.Status {
	st := status.New(codes.InvalidArgument, vs[0].Field+": "+vs[0].Description)
	withDetail, err := st.WithDetails(&errdetails.BadRequest{FieldViolations: vs})
	if err != nil {
		return st
	}
	return withDetail
}

// sourceChoices lists the TranslateRequest source oneof's members in
// declaration order, as the server does.
func sourceChoices() string {
	fields := (&errsvcv1.TranslateRequest{}).ProtoReflect().Descriptor().Oneofs().ByName("source").Fields()
	names := make([]string, fields.Len())
	for i := range names {
		names[i] = string(fields.Get(i).Name())
	}
	return strings.Join(names, ", ")
}

// localStream is an in-process TranslateStream: each request is translated
// as it is sent and its response queued for Recv.
type localStream struct {
	ip    inProcess
	ctx   context.Context
	ready chan struct{} // signalled when the queue grows or the send side closes

	mu     sync.Mutex
	queue  []*errsvcv1.TranslateResponse
	closed bool
}

var _ grpc.BidiStreamingClient[errsvcv1.TranslateRequest, errsvcv1.TranslateResponse] = (*localStream)(nil)

func (s *localStream) signal() {
	select {
	case s.ready <- struct{}{}:
	default:
	}
}

func (s *localStream) Send(req *errsvcv1.TranslateRequest) error {
	if s.ctx.Err() != nil {
		// As on a gRPC stream: the reason is returned by Recv.
		return io.EOF
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return status.Error(codes.Internal, "send after CloseSend")
	}
	s.queue = append(s.queue, s.ip.translateItem(req))
	s.signal()
	return nil
}

func (s *localStream) Recv() (*errsvcv1.TranslateResponse, error) {
	for {
		s.mu.Lock()
		if len(s.queue) > 0 {
			resp := s.queue[0]
			s.queue[0] = nil
			s.queue = s.queue[1:]
			s.mu.Unlock()
			return resp, nil
		}
		closed := s.closed
		s.mu.Unlock()
		if closed {
			return nil, io.EOF
		}
		select {
		case <-s.ready:
		case <-s.ctx.Done():
			return nil, status.FromContextError(s.ctx.Err()).Err()
		}
	}
}

func (s *localStream) CloseSend() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	s.signal()
	return nil
}

func (s *localStream) Header() (metadata.MD, error) { return metadata.MD{}, nil }
func (s *localStream) Trailer() metadata.MD         { return metadata.MD{} }
func (s *localStream) Context() context.Context     { return s.ctx }

func (s *localStream) SendMsg(m any) error {
	req, ok := m.(*errsvcv1.TranslateRequest)
	if !ok {
		return status.Errorf(codes.Internal, "SendMsg: want *errsvcv1.TranslateRequest, got %T", m)
	}
	return s.Send(req)
}

func (s *localStream) RecvMsg(m any) error {
	out, ok := m.(*errsvcv1.TranslateResponse)
	if !ok {
		return status.Errorf(codes.Internal, "RecvMsg: want *errsvcv1.TranslateResponse, got %T", m)
	}
	resp, err := s.Recv()
	if err != nil {
		return err
	}
	proto.Reset(out)
	proto.Merge(out, resp)
	return nil
}
