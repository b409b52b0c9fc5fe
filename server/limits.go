package server

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync/atomic"
	"time"

	"github.com/errsvc/errsvc/codec"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"
)

// QuotaFailure subjects: what a caller ran out of.
const (
	quotaConcurrentRequests = "concurrent_requests"
	quotaConcurrentStreams  = "concurrent_streams"
	quotaStreamMessages     = "stream_messages"
)

// limiter holds the process-wide concurrency limits, shared by both
// transports (New gives the same one to the gRPC server and the HTTP
// handler). It refuses at once instead of queueing: a full server answers
// RESOURCE_EXHAUSTED (REST 429) in microseconds and the caller, or its load
// balancer, goes elsewhere or backs off.
type limiter struct {
	maxRequests int64
	maxStreams  int64
	requests    atomic.Int64
	streams     atomic.Int64
	metrics     *Metrics
}

func newLimiter(maxRequests, maxStreams int, m *Metrics) *limiter {
	return &limiter{maxRequests: int64(maxRequests), maxStreams: int64(maxStreams), metrics: m}
}

// acquireRequest takes a unary-call slot; release it with releaseRequest.
func (l *limiter) acquireRequest() bool {
	if l.requests.Add(1) > l.maxRequests {
		l.requests.Add(-1)
		return false
	}
	l.metrics.inFlight.Inc()
	return true
}

func (l *limiter) releaseRequest() {
	l.requests.Add(-1)
	l.metrics.inFlight.Dec()
}

func (l *limiter) acquireStream() bool {
	if l.streams.Add(1) > l.maxStreams {
		l.streams.Add(-1)
		return false
	}
	l.metrics.streams.Inc()
	return true
}

func (l *limiter) releaseStream() {
	l.streams.Add(-1)
	l.metrics.streams.Dec()
}

func (l *limiter) requestsExhausted() *status.Status {
	return quotaExceeded(quotaConcurrentRequests,
		fmt.Sprintf("the server is handling its limit of %d concurrent requests; retry shortly", l.maxRequests), time.Second)
}

func (l *limiter) streamsExhausted() *status.Status {
	return quotaExceeded(quotaConcurrentStreams,
		fmt.Sprintf("the server holds its limit of %d concurrent streams; retry shortly", l.maxStreams), time.Second)
}

// quotaExceeded is RESOURCE_EXHAUSTED with a google.rpc.QuotaFailure naming
// what ran out and, when there is a sensible wait, a google.rpc.RetryInfo.
// REST answers it with 429 (see restError).
func quotaExceeded(subject, description string, retryAfter time.Duration) *status.Status {
	st := status.New(codes.ResourceExhausted, subject+": "+description)
	qf := &errdetails.QuotaFailure{
		Violations: []*errdetails.QuotaFailure_Violation{{Subject: subject, Description: description}},
	}
	var withDetails *status.Status
	var err error
	if retryAfter > 0 {
		withDetails, err = st.WithDetails(qf, &errdetails.RetryInfo{RetryDelay: durationpb.New(retryAfter)})
	} else {
		withDetails, err = st.WithDetails(qf)
	}
	if err != nil {
		// Only reachable if a well-formed detail cannot be marshalled.
		return st
	}
	return withDetails
}

// isTranslationService tells the errsvc RPCs apart from the unary health
// check, which no limit refuses: a probe must answer even when the server is
// full.
func isTranslationService(fullMethod string) bool {
	return strings.HasPrefix(fullMethod, "/errsvc.v1.TranslationService/")
}

func isHealth(fullMethod string) bool {
	return strings.HasPrefix(fullMethod, "/grpc.health.v1.Health/")
}

// unaryLimits bounds every unary errsvc call: the decoded message size (see
// grpcTransportLimit for why the transport's own cap sits above it) and the
// number of calls in flight.
func unaryLimits(l *limiter, maxBytes int64) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		if !isTranslationService(info.FullMethod) {
			return handler(ctx, req)
		}
		if m, ok := req.(proto.Message); ok && int64(codec.Size(m)) > maxBytes {
			if c := callFrom(ctx); c != nil {
				c.limit = limitRequestBytes
			}
			return nil, tooLarge(maxBytes).Err()
		}
		if !l.acquireRequest() {
			if c := callFrom(ctx); c != nil {
				c.limit = limitConcurrentRequests
			}
			return nil, l.requestsExhausted().Err()
		}
		defer l.releaseRequest()
		return handler(ctx, req)
	}
}

// streamLimits bounds the streams open at once (all but health watches).
func streamLimits(l *limiter) grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		if isHealth(info.FullMethod) {
			return handler(srv, ss)
		}
		if !l.acquireStream() {
			if c := callFrom(ss.Context()); c != nil {
				c.limit = limitConcurrentStreams
			}
			return l.streamsExhausted().Err()
		}
		defer l.releaseStream()
		return handler(srv, ss)
	}
}

// tooLarge is the answer to a request over MaxRequestBytes, on both
// transports: RESOURCE_EXHAUSTED (REST 413) naming the body.
func tooLarge(maxBytes int64) *status.Status {
	return resourceExhausted("body", fmt.Sprintf("request body exceeds %d bytes", maxBytes))
}

// grpcTransportLimit is the receive cap handed to grpc-go. grpc-go refuses a
// larger message itself with a bare RESOURCE_EXHAUSTED, before any
// interceptor runs and without a way to add details; so the transport cap is
// twice MaxRequestBytes and the interceptors refuse anything over
// MaxRequestBytes with the BadRequest detail every limit carries. Only a
// message over twice the limit gets grpc-go's bare status.
func grpcTransportLimit(maxBytes int64) int {
	if maxBytes > math.MaxInt32/2 {
		return math.MaxInt32
	}
	return int(2 * maxBytes)
}
