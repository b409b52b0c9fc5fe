package server

import (
	"errors"
	"fmt"
	"io"
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

// streamsPerConn is one connection's share of the stream slots.
func (l *limiter) streamsPerConn() int64 { return max(2, l.maxStreams/4) }

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

// bodyBudget is an HTTP transport's receive budget (REST's, and Connect's
// with gRPC-Web's): the bytes of request bodies read and not yet answered,
// at most max. Bytes are reserved as they arrive (budgetReader), so a
// trickler holds what it sent, never more than the budget in all, and no
// concurrency slot.
type bodyBudget struct {
	held atomic.Int64
	max  int64
	// bodies names them in the refusal ("REST bodies").
	bodies string
}

func newBodyBudget(opts Options, bodies string) *bodyBudget {
	return &bodyBudget{max: max(opts.MaxReceiveBufferBytes, opts.MaxRequestBytes), bodies: bodies}
}

// refusal is the answer to a body the budget refused: RESOURCE_EXHAUSTED
// with a QuotaFailure on receive_buffer and a RetryInfo of a second.
func (b *bodyBudget) refusal() *status.Status {
	return quotaExceeded(quotaReceiveBuffer, fmt.Sprintf(
		"the server is receiving its limit of %d bytes of %s at once; retry shortly", b.max, b.bodies), time.Second)
}

// errBodyBudget fails a body read when the receive budget is spent.
var errBodyBudget = errors.New("receive budget spent")

// budgetReader reserves each chunk it reads from budget; release gives
// them back once the call is answered.
type budgetReader struct {
	r        io.Reader
	budget   *bodyBudget
	reserved int64
}

func (b *budgetReader) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if n > 0 {
		b.reserved += int64(n)
		if b.budget.held.Add(int64(n)) > b.budget.max {
			return n, errBodyBudget
		}
	}
	return n, err
}

func (b *budgetReader) release() { b.budget.held.Add(-b.reserved) }

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
		// One connection gets at most a quarter of the stream slots, so
		// no client holds them all (streams that take no answer end at
		// the write timeout, see guardedStream.SendMsg).
		conn, _ := ss.Context().Value(connKey{}).(*connRecv)
		if conn != nil {
			if conn.streams.Add(1) > l.streamsPerConn() {
				conn.streams.Add(-1)
				if c := callFrom(ss.Context()); c != nil {
					c.limit = limitConcurrentStreams
				}
				return quotaExceeded(quotaConcurrentStreams, fmt.Sprintf(
					"one connection may hold at most %d of the server's %d concurrent streams; open another connection or retry shortly",
					l.streamsPerConn(), l.maxStreams), time.Second).Err()
			}
			defer conn.streams.Add(-1)
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
