package errsvcclient

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/stats"
	"google.golang.org/grpc/status"
)

// serviceName is the fully-qualified errsvc service the retry policy covers.
const serviceName = "errsvc.v1.TranslationService"

// serviceConfig renders the gRPC service config that retries UNAVAILABLE on
// every method of errsvc (all of them are pure, hence safe to repeat).
func serviceConfig(maxAttempts int, initialBackoff, maxBackoff time.Duration) string {
	if initialBackoff <= 0 {
		initialBackoff = DefaultInitialBackoff
	}
	if maxBackoff < initialBackoff {
		maxBackoff = initialBackoff
	}
	type retryPolicy struct {
		MaxAttempts          int      `json:"maxAttempts"`
		InitialBackoff       string   `json:"initialBackoff"`
		MaxBackoff           string   `json:"maxBackoff"`
		BackoffMultiplier    float64  `json:"backoffMultiplier"`
		RetryableStatusCodes []string `json:"retryableStatusCodes"`
	}
	type name struct {
		Service string `json:"service"`
	}
	type methodConfig struct {
		Name        []name      `json:"name"`
		RetryPolicy retryPolicy `json:"retryPolicy"`
	}
	cfg := struct {
		LoadBalancingConfig []map[string]struct{} `json:"loadBalancingConfig"`
		MethodConfig        []methodConfig        `json:"methodConfig"`
	}{roundRobin, []methodConfig{{
		Name: []name{{Service: serviceName}},
		RetryPolicy: retryPolicy{
			MaxAttempts:          maxAttempts,
			InitialBackoff:       seconds(initialBackoff),
			MaxBackoff:           seconds(maxBackoff),
			BackoffMultiplier:    2,
			RetryableStatusCodes: []string{"UNAVAILABLE"},
		},
	}}}
	b, err := json.Marshal(cfg)
	if err != nil {
		// Unreachable: the struct above always marshals.
		panic(fmt.Sprintf("errsvcclient: service config: %v", err))
	}
	return string(b)
}

// roundRobin spreads calls over every address the target resolves to (a
// fleet's replicas behind dns:///), where gRPC's default, pick_first, sends
// them all to one.
var roundRobin = []map[string]struct{}{{"round_robin": {}}}

// balanceOnly is the service config when retries are off.
const balanceOnly = `{"loadBalancingConfig":[{"round_robin":{}}]}`

// seconds renders d as a proto3 JSON Duration ("0.1s").
func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"
}

// retryInfoCodes are the codes after which a server's RetryInfo is honoured
// (AIP-194: the request may succeed unchanged later).
var retryInfoCodes = map[codes.Code]bool{
	codes.Unavailable:       true,
	codes.ResourceExhausted: true,
	codes.Aborted:           true,
}

// retryDelay returns the wait a retryable error's google.rpc.RetryInfo asks
// for, and whether it carries one.
func retryDelay(err error) (time.Duration, bool) {
	st, ok := status.FromError(err)
	if !ok || !retryInfoCodes[st.Code()] {
		return 0, false
	}
	for _, d := range st.Details() {
		if ri, ok := d.(*errdetails.RetryInfo); ok {
			delay := ri.GetRetryDelay().AsDuration()
			if delay < 0 {
				delay = 0
			}
			return delay, true
		}
	}
	return 0, false
}

// retryInfoInterceptor makes a unary call again after an error that carries
// google.rpc.RetryInfo, waiting the delay the server asks for; at most
// retries more times, and never past the call's deadline. A delay over
// maxDelay is not shortened: the error is returned at once (fail fast, as
// RetryAfter and the other SDKs do), since retrying sooner than the server
// asked only earns another refusal.
// It sits outside the service config's retries, which handle UNAVAILABLE
// without RetryInfo (a connection refused, a server restarting).
func retryInfoInterceptor(retries int, maxDelay time.Duration) grpc.UnaryClientInterceptor {
	return func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		err := invoker(ctx, method, req, reply, cc, opts...)
		for attempt := 0; attempt < retries && err != nil; attempt++ {
			delay, ok := retryDelay(err)
			if !ok {
				return err
			}
			if delay > maxDelay {
				return err
			}
			if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) <= delay {
				// Waiting would outlive the call: the server's answer stands.
				return err
			}
			t := time.NewTimer(delay)
			select {
			case <-ctx.Done():
				t.Stop()
				return err
			case <-t.C:
			}
			err = invoker(ctx, method, req, reply, cc, opts...)
		}
		return err
	}
}

// answerBegan is a stats handler that marks a call (the flag
// retryCutAnswers puts in its context) once response headers reach it.
type answerBegan struct{}

type answerBeganKey struct{}

func (answerBegan) TagRPC(ctx context.Context, _ *stats.RPCTagInfo) context.Context { return ctx }

func (answerBegan) HandleRPC(ctx context.Context, s stats.RPCStats) {
	if _, ok := s.(*stats.InHeader); ok {
		if began, ok := ctx.Value(answerBeganKey{}).(*atomic.Bool); ok {
			began.Store(true)
		}
	}
}

func (answerBegan) TagConn(ctx context.Context, _ *stats.ConnTagInfo) context.Context { return ctx }
func (answerBegan) HandleConn(context.Context, stats.ConnStats)                       {}

// retryCutAnswers makes a unary call once more when its connection broke
// after the answer had begun (UNAVAILABLE with response headers received).
// The service config's retries cannot: gRPC commits a call once headers
// arrive (gRFC A6), because the server may have acted on it. An errsvc call
// has no side effects, so a replica that crashes mid-answer costs the
// caller one more call, not an error. Nothing else is retried here.
func retryCutAnswers(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
	began := new(atomic.Bool)
	err := invoker(context.WithValue(ctx, answerBeganKey{}, began), method, req, reply, cc, opts...)
	if status.Code(err) != codes.Unavailable || !began.Load() {
		return err
	}
	return invoker(ctx, method, req, reply, cc, opts...)
}
