package adapters

import (
	"context"
	"io"
	"sync"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// Interceptor holds the Policy of a pair of grpc-go client interceptors
// that make a failed call again as errsvc decides: the error's
// google.rpc.Status (with its ErrorInfo and RetryInfo) is translated and
// the call repeated only when the answer is retryable, after its wait.
//
//	ic := &adapters.Interceptor{}
//	conn, err := grpc.NewClient(target,
//		grpc.WithUnaryInterceptor(ic.Unary()), grpc.WithStreamInterceptor(ic.Stream()), ...)
type Interceptor struct {
	Policy
	// Idempotent reports whether a method may be repeated with the same
	// arguments when errsvc says so only for idempotent calls; nil means
	// none is (a retryable answer is still retried: errsvc decides).
	Idempotent func(method string) bool
}

func (ic *Interceptor) idempotent(method string) bool {
	return ic.Idempotent != nil && ic.Idempotent(method)
}

// statusRequest is the TranslateRequest of a gRPC error.
func statusRequest(err error, method string) *errsvcv1.TranslateRequest {
	st, _ := status.FromError(err)
	bin, _ := proto.Marshal(st.Proto())
	return &errsvcv1.TranslateRequest{
		Source:  &errsvcv1.TranslateRequest_GrpcStatus{GrpcStatus: &errsvcv1.GrpcStatusError{StatusBin: bin}},
		Context: &errsvcv1.TranslateContext{Action: method},
	}
}

// Unary is the unary client interceptor.
func (ic *Interceptor) Unary() grpc.UnaryClientInterceptor {
	return func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		for attempt := 1; ; attempt++ {
			err := invoker(ctx, method, req, reply, cc, opts...)
			if err == nil || ctx.Err() != nil {
				return err
			}
			ev := ic.decide(ctx, statusRequest(err, method), attempt, ic.idempotent(method), method)
			if !ev.Retry {
				return err
			}
			if ic.sleep(ctx, ev.Wait) != nil {
				return err
			}
		}
	}
}

// Stream is the streaming client interceptor. A stream is opened again
// when opening it fails, or when its first receive fails before any
// message arrived (the messages the client had sent, and its CloseSend,
// are sent again); once a message has arrived an error is the caller's, as
// a retry would repeat what it already received.
func (ic *Interceptor) Stream() grpc.StreamClientInterceptor {
	return func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
		open := func() (grpc.ClientStream, error) {
			for attempt := 1; ; attempt++ {
				s, err := streamer(ctx, desc, cc, method, opts...)
				if err == nil || ctx.Err() != nil {
					return s, err
				}
				ev := ic.decide(ctx, statusRequest(err, method), attempt, ic.idempotent(method), method)
				if !ev.Retry || ic.sleep(ctx, ev.Wait) != nil {
					return nil, err
				}
			}
		}
		s, err := open()
		if err != nil {
			return nil, err
		}
		return &retryStream{cur: s, ic: ic, ctx: ctx, method: method, open: open}, nil
	}
}

// retryStream replays the sent messages on a new stream when the first
// receive fails before any message arrived. grpc-go allows one goroutine
// sending while another receives, so the current stream is read under mu.
type retryStream struct {
	ic     *Interceptor
	ctx    context.Context
	method string
	open   func() (grpc.ClientStream, error)

	mu       sync.Mutex
	cur      grpc.ClientStream
	sent     []any
	closed   bool
	received bool
	attempt  int
}

func (s *retryStream) stream() grpc.ClientStream {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cur
}

func (s *retryStream) Header() (metadata.MD, error) { return s.stream().Header() }
func (s *retryStream) Trailer() metadata.MD         { return s.stream().Trailer() }
func (s *retryStream) Context() context.Context     { return s.stream().Context() }

func (s *retryStream) SendMsg(m any) error {
	s.mu.Lock()
	if !s.received {
		s.sent = append(s.sent, m)
	}
	cur := s.cur
	s.mu.Unlock()
	return cur.SendMsg(m)
}

func (s *retryStream) CloseSend() error {
	s.mu.Lock()
	s.closed = true
	cur := s.cur
	s.mu.Unlock()
	return cur.CloseSend()
}

func (s *retryStream) RecvMsg(m any) error {
	for {
		err := s.stream().RecvMsg(m)
		s.mu.Lock()
		if err == nil {
			s.received, s.sent = true, nil
		}
		retryable := err != nil && err != io.EOF && !s.received && s.ctx.Err() == nil
		s.mu.Unlock()
		if !retryable {
			return err
		}
		s.attempt++
		ev := s.ic.decide(s.ctx, statusRequest(err, s.method), s.attempt, s.ic.idempotent(s.method), s.method)
		if !ev.Retry || s.ic.sleep(s.ctx, ev.Wait) != nil {
			return err
		}
		ns, oerr := s.open()
		if oerr != nil {
			return err
		}
		s.mu.Lock()
		sent, closed := s.sent, s.closed
		s.cur = ns
		s.mu.Unlock()
		for _, msg := range sent {
			if serr := ns.SendMsg(msg); serr != nil {
				break
			}
		}
		if closed {
			_ = ns.CloseSend()
		}
	}
}
