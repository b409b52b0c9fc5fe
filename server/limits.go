package server

import (
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"
)

// QuotaFailure subjects: what a caller ran out of.
const (
	quotaConcurrentRequests = "concurrent_requests"
	quotaConcurrentStreams  = "concurrent_streams"
	quotaStreamMessages     = "stream_messages"
	quotaHealthWatches      = "health_watches"
	quotaReceiveBuffer      = "receive_buffer"
)

// limiter holds the process-wide concurrency limits, shared by both
// transports (New gives the same one to the gRPC server and the HTTP
// handler). It refuses at once instead of queueing: a full server answers
// RESOURCE_EXHAUSTED (REST 429) in microseconds and the caller, or its load
// balancer, goes elsewhere or backs off.
type limiter struct {
	maxRequests int64
	maxStreams  int64
	maxWatches  int64
	requests    atomic.Int64
	streams     atomic.Int64
	watches     atomic.Int64
	metrics     *Metrics
}

func newLimiter(maxRequests, maxStreams, maxWatches int, m *Metrics) *limiter {
	return &limiter{maxRequests: int64(maxRequests), maxStreams: int64(maxStreams), maxWatches: int64(maxWatches), metrics: m}
}

// acquireWatch takes a health Watch slot; release it with releaseWatch.
func (l *limiter) acquireWatch() bool {
	if l.watches.Add(1) > l.maxWatches {
		l.watches.Add(-1)
		return false
	}
	l.metrics.watches.Inc()
	return true
}

func (l *limiter) releaseWatch() {
	l.watches.Add(-1)
	l.metrics.watches.Dec()
}

func (l *limiter) watchesExhausted() *status.Status {
	return quotaExceeded(quotaHealthWatches,
		fmt.Sprintf("the server holds its limit of %d health watches; retry shortly", l.maxWatches), time.Second)
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

// streamLimits bounds the streams open at once: health watches on their
// own count, all other streams on theirs.
func streamLimits(l *limiter) grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		if isHealth(info.FullMethod) {
			if !l.acquireWatch() {
				if c := callFrom(ss.Context()); c != nil {
					c.limit = limitHealthWatches
				}
				return l.watchesExhausted().Err()
			}
			defer l.releaseWatch()
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
