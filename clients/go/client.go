// Package errsvcclient is the Go client of errsvc, the error translation
// service. A *Client talks to a running errsvc over gRPC (Dial) or runs the
// translator in the calling process with no network at all (NewInProcess);
// both have the same method set and the same error behaviour: a malformed
// request fails with codes.InvalidArgument and a google.rpc.BadRequest
// naming the field (see FieldViolations).
//
//	c, err := errsvcclient.Dial("127.0.0.1:9090")
//	if err != nil { ... }
//	defer c.Close()
//	resp, err := c.Translate(ctx, &errsvcv1.TranslateRequest{...})
package errsvcclient

import (
	"context"
	"fmt"
	"github.com/errsvc/errsvc/codec"
	"github.com/errsvc/errsvc/internal/clientconn"
	"sync"
	"time"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/policy"
	"github.com/errsvc/errsvc/translate"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
)

// Translator is the method set shared by the network client (Dial) and the
// in-process one (NewInProcess); *Client implements it either way. Programs
// that may run errsvc embedded or remote can depend on it.
type Translator interface {
	Translate(ctx context.Context, req *errsvcv1.TranslateRequest) (*errsvcv1.TranslateResponse, error)
	TranslateBatch(ctx context.Context, reqs []*errsvcv1.TranslateRequest) ([]*errsvcv1.TranslateResponse, error)
	ListVocabularies(ctx context.Context) (*errsvcv1.ListVocabulariesResponse, error)
	Stream(ctx context.Context) (*Stream, error)
	Close() error
}

var _ Translator = (*Client)(nil)

// Defaults of the options.
const (
	// DefaultTimeout is the deadline given to a unary call whose context has none.
	DefaultTimeout = 10 * time.Second
	// DefaultMaxAttempts is the service config's maxAttempts for UNAVAILABLE
	// (the first attempt included).
	DefaultMaxAttempts = 3
	// DefaultInitialBackoff and DefaultMaxBackoff bound the service config's
	// exponential backoff between those attempts.
	DefaultInitialBackoff = 100 * time.Millisecond
	DefaultMaxBackoff     = 2 * time.Second
	// DefaultRetryInfoRetries is how many more times a call is made after an
	// error carrying google.rpc.RetryInfo.
	DefaultRetryInfoRetries = 3
	// DefaultRetryInfoMaxDelay is the longest wait a server's RetryInfo may
	// ask for; a longer one fails the call at once.
	DefaultRetryInfoMaxDelay = 5 * time.Second
)

type options struct {
	creds             credentials.TransportCredentials
	timeout           time.Duration
	maxAttempts       int
	initialBackoff    time.Duration
	maxBackoff        time.Duration
	retryInfoRetries  int
	retryInfoMaxDelay time.Duration
	dialOpts          []grpc.DialOption
}

// Option configures Dial.
type Option func(*options)

// WithTransportCredentials sets the connection's credentials, for example
// credentials.NewTLS(cfg). The default is insecure (plaintext), which suits
// errsvc on loopback or behind a sidecar.
func WithTransportCredentials(creds credentials.TransportCredentials) Option {
	return func(o *options) { o.creds = creds }
}

// WithTimeout sets the deadline given to each unary call whose context has
// none (DefaultTimeout); 0 leaves such calls without a deadline. Streams
// never get one: bound them with their context.
func WithTimeout(d time.Duration) Option {
	return func(o *options) { o.timeout = d }
}

// WithRetry sets the gRPC service config retry policy for UNAVAILABLE:
// at most maxAttempts attempts (the first included), with exponential
// backoff from initialBackoff up to maxBackoff. A unary call whose
// connection broke after its answer began, which the policy cannot retry,
// is made once more. maxAttempts below 2 disables these retries. Every
// errsvc method is safe to retry: a translation has no side effects.
func WithRetry(maxAttempts int, initialBackoff, maxBackoff time.Duration) Option {
	return func(o *options) {
		o.maxAttempts, o.initialBackoff, o.maxBackoff = maxAttempts, initialBackoff, maxBackoff
	}
}

// WithRetryInfo bounds how google.rpc.RetryInfo is honoured: after an
// UNAVAILABLE, RESOURCE_EXHAUSTED or ABORTED error that carries one, the
// call waits its retry_delay (never past the call's deadline) and is made
// again, at most retries more times; a retry_delay over maxDelay fails the
// call at once with the server's error. retries 0 turns this off.
func WithRetryInfo(retries int, maxDelay time.Duration) Option {
	return func(o *options) { o.retryInfoRetries, o.retryInfoMaxDelay = retries, maxDelay }
}

// WithDialOptions appends raw gRPC dial options (interceptors, a custom
// dialer, keepalive, ...), applied after the client's own.
func WithDialOptions(opts ...grpc.DialOption) Option {
	return func(o *options) { o.dialOpts = append(o.dialOpts, opts...) }
}

// Client calls errsvc. Its methods are safe for concurrent use.
type Client struct {
	conn    *grpc.ClientConn // nil in process
	rpc     errsvcv1.TranslationServiceClient
	timeout time.Duration
}

// Dial returns a client of the errsvc at target ("127.0.0.1:9090", or any
// gRPC target such as "dns:///errsvc.internal:9090"). Calls are spread over
// every address the target resolves to (round_robin), so a fleet's
// replicas behind one DNS name share the load. Like grpc.NewClient, which
// it uses, it does no I/O: the connection is made by the first call.
func Dial(target string, opts ...Option) (*Client, error) {
	o := options{
		creds:             insecure.NewCredentials(),
		timeout:           DefaultTimeout,
		maxAttempts:       DefaultMaxAttempts,
		initialBackoff:    DefaultInitialBackoff,
		maxBackoff:        DefaultMaxBackoff,
		retryInfoRetries:  DefaultRetryInfoRetries,
		retryInfoMaxDelay: DefaultRetryInfoMaxDelay,
	}
	for _, opt := range opts {
		opt(&o)
	}
	// codec.Client decodes answers with generated code instead of
	// reflection: the same bytes on the wire, a fraction of the CPU.
	dialOpts := append([]grpc.DialOption{
		grpc.WithTransportCredentials(o.creds),
		grpc.WithDefaultCallOptions(grpc.ForceCodecV2(codec.Client)),
	}, clientconn.Windows()...)
	if o.maxAttempts >= 2 {
		dialOpts = append(dialOpts,
			grpc.WithDefaultServiceConfig(serviceConfig(o.maxAttempts, o.initialBackoff, o.maxBackoff)),
			grpc.WithStatsHandler(answerBegan{}),
			grpc.WithChainUnaryInterceptor(retryCutAnswers))
	} else {
		dialOpts = append(dialOpts, grpc.WithDefaultServiceConfig(balanceOnly), grpc.WithDisableRetry())
	}
	if o.retryInfoRetries > 0 {
		dialOpts = append(dialOpts, grpc.WithChainUnaryInterceptor(
			retryInfoInterceptor(o.retryInfoRetries, o.retryInfoMaxDelay)))
	}
	dialOpts = append(dialOpts, o.dialOpts...)
	conn, err := grpc.NewClient(target, dialOpts...)
	if err != nil {
		return nil, fmt.Errorf("errsvcclient: %w", err)
	}
	return &Client{conn: conn, rpc: errsvcv1.NewTranslationServiceClient(conn), timeout: o.timeout}, nil
}

// NewInProcess returns a client that runs the translator in this process
// (package translate) with no network: for Go programs that embed errsvc.
// It answers exactly as a server does, errors included.
func NewInProcess() *Client {
	return &Client{rpc: inProcess{}}
}

// NewInProcessWithPolicy is NewInProcess translating under an operator
// policy (docs/POLICY.md), as a server started with --policy does.
func NewInProcessWithPolicy(p *translate.Policy) *Client {
	return &Client{rpc: inProcess{policy: p}}
}

// NewInProcessWithPolicyFile loads the policy file or folder a server's
// --policy reads (policy.Load: validated, errors at file:line:column) and
// returns NewInProcessWithPolicy of it.
func NewInProcessWithPolicyFile(path string) (*Client, error) {
	p, err := policy.Load(path)
	if err != nil {
		return nil, fmt.Errorf("errsvcclient: %w", err)
	}
	return NewInProcessWithPolicy(p), nil
}

// Close releases the connection; a no-op in process.
func (c *Client) Close() error {
	if c.conn == nil {
		return nil
	}
	return c.conn.Close()
}

func (c *Client) callContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok || c.timeout <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, c.timeout)
}

// Translate translates one error into every requested vocabulary. A
// malformed request fails with codes.InvalidArgument; FieldViolations names
// the field.
func (c *Client) Translate(ctx context.Context, req *errsvcv1.TranslateRequest) (*errsvcv1.TranslateResponse, error) {
	ctx, cancel := c.callContext(ctx)
	defer cancel()
	return c.rpc.Translate(ctx, req)
}

// TranslateBatch translates many errors in one call and answers in the same
// order. A malformed item does not fail the call: its response carries the
// item's own Error (a google.rpc.Status) and nothing else.
func (c *Client) TranslateBatch(ctx context.Context, reqs []*errsvcv1.TranslateRequest) ([]*errsvcv1.TranslateResponse, error) {
	ctx, cancel := c.callContext(ctx)
	defer cancel()
	resp, err := c.rpc.TranslateBatch(ctx, &errsvcv1.TranslateBatchRequest{Requests: reqs})
	if err != nil {
		return nil, err
	}
	return resp.GetResponses(), nil
}

// ListVocabularies returns every vocabulary with its terms, meanings and
// matrix rows.
func (c *Client) ListVocabularies(ctx context.Context) (*errsvcv1.ListVocabulariesResponse, error) {
	ctx, cancel := c.callContext(ctx)
	defer cancel()
	return c.rpc.ListVocabularies(ctx, &errsvcv1.ListVocabulariesRequest{})
}

// Stream opens a TranslateStream: each request sent is answered, in order,
// by one response; a malformed request gets a response carrying its own
// Error and the stream goes on. Cancel ctx to abandon the stream.
func (c *Client) Stream(ctx context.Context) (*Stream, error) {
	s, err := c.rpc.TranslateStream(ctx)
	if err != nil {
		return nil, err
	}
	return &Stream{s: s}, nil
}

// Stream is an open TranslateStream. Send and Recv may run in two
// goroutines; neither may be called from more than one at a time.
type Stream struct {
	s        grpc.BidiStreamingClient[errsvcv1.TranslateRequest, errsvcv1.TranslateResponse]
	sendOnce sync.Once
}

// Send queues one request.
func (s *Stream) Send(req *errsvcv1.TranslateRequest) error { return s.s.Send(req) }

// Recv returns the next response, or io.EOF once every response of a
// stream whose sending side is closed has been received.
func (s *Stream) Recv() (*errsvcv1.TranslateResponse, error) { return s.s.Recv() }

// CloseSend says no more requests follow; it is safe to call more than once.
func (s *Stream) CloseSend() error {
	var err error
	s.sendOnce.Do(func() { err = s.s.CloseSend() })
	return err
}

// FieldViolations returns the google.rpc.BadRequest field violations an
// error carries: for a malformed request, the fields it names (such as
// "labby_error.kind" or "source"). It returns nil for other errors.
func FieldViolations(err error) []*errdetails.BadRequest_FieldViolation {
	st, ok := status.FromError(err)
	if !ok {
		return nil
	}
	return StatusFieldViolations(st)
}

// StatusFieldViolations is FieldViolations of a status, such as
// status.FromProto(resp.GetError()) of a batch or stream item.
func StatusFieldViolations(st *status.Status) []*errdetails.BadRequest_FieldViolation {
	var out []*errdetails.BadRequest_FieldViolation
	for _, d := range st.Details() {
		if br, ok := d.(*errdetails.BadRequest); ok {
			out = append(out, br.GetFieldViolations()...)
		}
	}
	return out
}
