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
//
// A call's lookup lives in its call record (call.lookup), so that neither
// it nor the handler the interceptors call is allocated per call.
type grpcLookup struct {
	cache *answerCache
	svc   *Service
	info  grpc.UnaryServerInfo
	// key is the request's bytes, a private copy (nil if none arrived).
	key []byte
	// hash is key's (answerCache.find).
	hash uint64
	hit  *answer
}

// Raw is the codec's hook.
func (l *grpcLookup) Raw(b []byte) bool {
	l.key = b
	l.hit, l.hash = l.cache.find(0, b)
	return l.hit != nil
}

// lookupOf is the answer cache lookup of the call of ctx: the one in its
// call record, or a new one for a call without a record.
func lookupOf(ctx context.Context, cache *answerCache) *grpcLookup {
	if c := callFrom(ctx); c != nil {
		c.lookup = grpcLookup{cache: cache}
		return &c.lookup
	}
	return &grpcLookup{cache: cache}
}

// handle is the method handler, as protoc-gen-go-grpc writes it for
// Translate, with l.translate in place of the service's method.
func (l *grpcLookup) handle(srv any, ctx context.Context, dec func(any) error, in grpc.UnaryServerInterceptor) (any, error) {
	req := new(errsvcv1.TranslateRequest)
	if err := dec(req); err != nil {
		return nil, err
	}
	l.svc = srv.(*Service)
	if in == nil {
		return l.translate(ctx, l.svc, req)
	}
	l.info = grpc.UnaryServerInfo{Server: srv, FullMethod: errsvcv1.TranslationService_Translate_FullMethodName}
	if c := callFrom(ctx); c != nil && l == &c.lookup {
		return in(ctx, req, &l.info, translateRecorded)
	}
	return in(ctx, req, &l.info, func(ctx context.Context, r any) (any, error) {
		return l.translate(ctx, l.svc, r.(*errsvcv1.TranslateRequest))
	})
}

// translateRecorded is the handler the interceptors call for a lookup held
// in the call record: a function, where a closure over the lookup would be
// allocated per call.
func translateRecorded(ctx context.Context, r any) (any, error) {
	l := &callFrom(ctx).lookup
	return l.translate(ctx, l.svc, r.(*errsvcv1.TranslateRequest))
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
	// Admission first: on the cold path (every request new) the answer is
	// encoded only once, by the codec that sends it.
	if !l.cache.admitHash(l.hash) {
		return resp, nil
	}
	buf, err := codec.Marshal(resp)
	if err != nil {
		// The codec reports it when it encodes resp in turn.
		return resp, nil
	}
	if !l.cache.fits(len(l.key), len(buf)) {
		return resp, nil
	}
	a := &answer{key: l.key, enc: codec.Encoded{Bytes: buf}, source: c.answer.source, class: c.answer.class}
	l.cache.putHash(a, l.hash)
	return &a.enc, nil
}
