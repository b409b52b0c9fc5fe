package server

import (
	"context"

	"github.com/errsvc/errsvc/codec"
	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"google.golang.org/grpc"
)

// grpcLookup is one gRPC Translate call's use of the answer cache. The
// guard hands it the request's bytes (codec.Capture.Raw) before they are
// decoded: on a hit the request is never decoded, and the handler returns
// the stored bytes, which the codec sends as they are (codec.Encoded). On a
// miss the service translates; a cacheable answer is encoded here, once,
// stored, and those same bytes are sent.
type grpcLookup struct {
	cache *answerCache
	// key is the request's bytes, a private copy (nil if none arrived).
	key []byte
	hit *answer
}

// Raw is the codec's hook.
func (l *grpcLookup) Raw(b []byte) bool {
	l.key = b
	l.hit = l.cache.get(0, b)
	return l.hit != nil
}

// handle is the method handler, as protoc-gen-go-grpc writes it for
// Translate, with l.translate in place of the service's method.
func (l *grpcLookup) handle(srv any, ctx context.Context, dec func(any) error, in grpc.UnaryServerInterceptor) (any, error) {
	req := new(errsvcv1.TranslateRequest)
	if err := dec(req); err != nil {
		return nil, err
	}
	svc := srv.(*Service)
	if in == nil {
		return l.translate(ctx, svc, req)
	}
	info := &grpc.UnaryServerInfo{Server: srv, FullMethod: errsvcv1.TranslationService_Translate_FullMethodName}
	return in(ctx, req, info, func(ctx context.Context, r any) (any, error) {
		return l.translate(ctx, svc, r.(*errsvcv1.TranslateRequest))
	})
}

func (l *grpcLookup) translate(ctx context.Context, svc *Service, req *errsvcv1.TranslateRequest) (any, error) {
	if a := l.hit; a != nil {
		if err := svc.translateHit(ctx, a); err != nil {
			return nil, err
		}
		return &a.enc, nil
	}
	resp, err := svc.Translate(ctx, req)
	c := callFrom(ctx)
	if err != nil || l.key == nil || c == nil || !c.answer.answered {
		return resp, err
	}
	if !c.answer.cacheable {
		l.cache.uncacheable()
		return resp, nil
	}
	size := resp.SizeVT()
	if !l.cache.fits(len(l.key), size) || !l.cache.admit(0, l.key) {
		return resp, nil
	}
	buf := make([]byte, size)
	if _, err := resp.MarshalToSizedBufferVT(buf); err != nil {
		// The codec reports it when it encodes resp in turn.
		return resp, nil
	}
	a := &answer{key: l.key, enc: codec.Encoded{Bytes: buf}, source: c.answer.source, class: c.answer.class}
	l.cache.put(a)
	return &a.enc, nil
}
