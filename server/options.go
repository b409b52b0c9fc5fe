// Package server exposes the translate core over gRPC (with health and
// reflection) and over REST through grpc-gateway, plus the operational HTTP
// endpoints (/healthz, /readyz, /metrics, /openapi.json).
package server

import (
	"crypto/tls"
	"log/slog"
	"os"
	"runtime/debug"
	"time"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"
)

// Defaults applied to zero-valued Options fields.
const (
	DefaultGRPCAddr              = "127.0.0.1:9090"
	DefaultHTTPAddr              = "127.0.0.1:8080"
	DefaultMaxRequestBytes       = 4 << 20
	DefaultMaxBatchItems         = 1000
	DefaultMaxConcurrentRequests = 512
	DefaultMaxConcurrentStreams  = 256
	DefaultStreamRate            = 500
	DefaultStreamBurst           = 100
	DefaultStreamByteRate        = 4 << 20
	DefaultShutdownTimeout       = 15 * time.Second

	// Hostile-input bounds (docs/OPERATIONS.md, "Slow and hostile clients").
	DefaultReceiveTimeout        = 10 * time.Second
	DefaultWriteTimeout          = 10 * time.Second
	DefaultStreamIdleTimeout     = 2 * time.Minute
	DefaultMaxStreamsPerConn     = 100
	DefaultMaxHeaderBytes        = 64 << 10
	DefaultMaxReceiveBufferBytes = 64 << 20
	DefaultMaxHealthWatches      = 1000
	DefaultMaxConnectionIdle     = 5 * time.Minute
	DefaultKeepaliveMinTime      = 10 * time.Second
	DefaultDrainDelay            = time.Second
	defaultStreamWindow          = 64 << 10
	defaultConnWindow            = 1 << 20
	defaultReceiveWait           = time.Second
	defaultGRPCConnectionTimeout = 10 * time.Second
	defaultKeepaliveTime         = time.Minute
	defaultKeepaliveTimeout      = 20 * time.Second
	defaultHTTPReadHeaderTimeout = 10 * time.Second
	defaultHTTPIdleTimeout       = 2 * time.Minute
)

// DefaultGCPercent is the garbage collector target (GOGC) cmd/errsvc sets
// when the environment sets no GOGC. Every translation allocates a few KiB
// that die when the answer is written, over a live heap of a few MiB, so
// Go's default of 100 collects very often for little: at 400 the heap may
// grow to about five times the live set (still a few tens of MiB; set
// GOMEMLIMIT, as deploy/kubernetes does, to cap it) and the server spends
// about a quarter less CPU per Translate (docs/BENCHMARKS.md).
const DefaultGCPercent = 400

// DefaultMemoryLimit is the soft memory limit (GOMEMLIMIT) cmd/errsvc sets
// when the environment sets none. At DefaultGCPercent the heap may grow to
// five times the live set, which is about 20 MiB under load (the
// maintained secret rules, RE2's module, the answer caches at their
// default bounds), so without a limit the heap reached 200–300 MiB. Near
// this limit the collector runs more often instead; far below it, GOGC 400
// is untouched. At 96 MiB the process measured about 120 MiB resident
// under the sustained load of docs/BENCHMARKS.md, at 64 MiB about 90 MiB;
// the price is the collector's share of the CPU (about 9 % on the cold
// path, more for large batches in flight: see docs/OPERATIONS.md), which
// GOMEMLIMIT set higher buys back.
const DefaultMemoryLimit = 64 << 20

// ApplyRuntimeDefaults sets DefaultGCPercent and DefaultMemoryLimit
// unless GOGC or GOMEMLIMIT is set.
func ApplyRuntimeDefaults() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(DefaultGCPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(DefaultMemoryLimit)
	}
}

// Options configures the service, its gRPC server, its HTTP handler and the
// Server that runs both. Zero values mean the defaults above.
type Options struct {
	// Policy holds the operator policy every transport translates under
	// (docs/POLICY.md); nil translates with the built-in matrix alone.
	Policy *PolicyHolder
	// PolicyPath is the file or folder Policy is loaded from (the
	// --policy flag), which the command reloads on SIGHUP and on change.
	PolicyPath string
	GRPCAddr   string
	HTTPAddr   string
	// MaxRequestBytes bounds one REST body and one received gRPC message
	// (each stream message on its own), so both transports refuse the same
	// oversize input: RESOURCE_EXHAUSTED with a BadRequest on "body", REST 413.
	MaxRequestBytes int64
	// MaxBatchItems bounds TranslateBatch.requests: RESOURCE_EXHAUSTED with
	// a BadRequest on "requests", REST 413.
	MaxBatchItems int
	// MaxConcurrentRequests bounds the unary calls (gRPC and REST together)
	// handled at once; one more is refused with RESOURCE_EXHAUSTED and a
	// QuotaFailure, REST 429. Health, probes and /metrics are never refused.
	// A gRPC call holds its slot from its headers on (while its message
	// arrives); a REST call only once its body is in, and not while its
	// answer is written, so slow REST clients cannot take slots from gRPC.
	MaxConcurrentRequests int
	// MaxConcurrentStreams bounds the streaming gRPC calls open at once
	// (health watches aside); one more is refused with RESOURCE_EXHAUSTED
	// and a QuotaFailure.
	MaxConcurrentStreams int
	// StreamRate is the sustained messages per second one TranslateStream
	// may send, with bursts of StreamBurst; a message over the rate is
	// answered, in order, by a response whose error is RESOURCE_EXHAUSTED
	// with a QuotaFailure and a RetryInfo, and the stream goes on. Negative
	// means unlimited.
	StreamRate  float64
	StreamBurst int
	// StreamByteRate is the sustained bytes per second, counted after
	// decompression, one TranslateStream may send, with bursts of twice
	// MaxRequestBytes: past it the stream's next message is read only once
	// the rate allows (HTTP/2 flow control holds the client back), so a
	// stream of gzip bombs inflates at most this fast. Negative means
	// unlimited.
	StreamByteRate float64
	// TLS, when set, serves both ports over TLS with this configuration
	// (see LoadTLSConfig; ClientAuth makes it mutual). Nil serves plaintext,
	// which is meant for loopback: Serve warns on any other address unless
	// AllowPlaintext says the plaintext is intended (a service mesh or a
	// private network encrypts it, as in deploy/kubernetes).
	TLS            *tls.Config
	AllowPlaintext bool
	// MaxConnectionAge, when positive, makes the gRPC server close each
	// connection gracefully after about this long, so long-lived clients
	// spread onto replicas added since they connected.
	MaxConnectionAge time.Duration
	// CORSOrigins lists the browser origins allowed to call the HTTP port
	// (REST, Connect, gRPC-Web) from another origin, e.g.
	// "https://app.example.com" or "https://*.example.com". Empty, the
	// default, sends no CORS header.
	CORSOrigins []string
	Logger      *slog.Logger
	// DrainDelay is how long shutdown keeps serving normally after readiness
	// turns false, so load balancers that poll /readyz stop sending first;
	// meanwhile every HTTP response carries "Connection: close", so each
	// keep-alive client finishes its call and reconnects elsewhere instead of
	// sending its next POST on a connection the drain then closes. Zero stops
	// accepting at once (the library's default; cmd/errsvc defaults to
	// DefaultDrainDelay, Kubernetes adds the Deployment's preStop sleep).
	DrainDelay time.Duration

	// ReceiveTimeout bounds how long a request may take to arrive once its
	// headers are in: a REST, Connect or gRPC-Web body, a unary gRPC
	// message. Past it the call is refused (REST 408, Connect 504
	// deadline_exceeded, gRPC and gRPC-Web DEADLINE_EXCEEDED, with a
	// BadRequest on "body"), so a client that stops sending cannot pin the
	// bytes it sent.
	ReceiveTimeout time.Duration
	// WriteTimeout bounds how long a REST client may take to read its
	// answer, and a TranslateStream client to take each answer (to grant
	// the flow-control window it needs): a stream that does not is ended,
	// and its slot freed, so clients that never read cannot hold the
	// stream slots. The answer is produced, and the concurrency slot released,
	// before it is written, so a client that does not read holds only its
	// connection, for at most this long.
	WriteTimeout time.Duration
	// StreamIdleTimeout ends a TranslateStream (DEADLINE_EXCEEDED) that has
	// not delivered a complete message for this long: a stream whose
	// message stalls half sent cannot pin it for ever.
	StreamIdleTimeout time.Duration
	// MaxStreamsPerConnection is HTTP/2 MAX_CONCURRENT_STREAMS on the gRPC
	// port: streams beyond it on one connection are refused (REFUSED_STREAM,
	// which gRPC clients retry or queue).
	MaxStreamsPerConnection int
	// MaxHeaderBytes bounds the request headers (gRPC metadata, HTTP headers).
	MaxHeaderBytes int
	// MaxReceiveBufferBytes bounds what the server holds of requests being
	// received, on each transport. REST, and Connect and gRPC-Web apart: the
	// bytes of bodies read and not yet answered; one more byte is refused
	// (429 or resource_exhausted, QuotaFailure on "receive_buffer"). gRPC: the unary messages being received at once,
	// counted at grpc-go's receive cap (twice MaxRequestBytes) each, since
	// grpc-go lets a message arrive in full once its handler starts reading
	// it. A call that finds the budget (or its connection's half of it)
	// spent waits up to a second, then is refused with RESOURCE_EXHAUSTED
	// and a QuotaFailure on "receive_buffer". And on the gRPC port, apart,
	// the bytes of every message larger than a stream's 64 KiB window,
	// unary or on a TranslateStream, counted at its declared size from when
	// its handler reads it until it has arrived: its sender may send past
	// the window only once the budget (one connection: half of it) has room
	// (grpc_stall.go).
	MaxReceiveBufferBytes int64
	// MaxHealthWatches bounds the grpc.health.v1 Watch streams open at once;
	// one more is refused with RESOURCE_EXHAUSTED and a QuotaFailure.
	MaxHealthWatches int
	// MaxConnectionIdle closes a gRPC connection with no call for this long.
	MaxConnectionIdle time.Duration
	// KeepaliveMinTime is the shortest interval at which a gRPC client may
	// ping; a client pinging faster is disconnected (GOAWAY
	// too_many_pings).
	KeepaliveMinTime time.Duration
	// ShutdownTimeout bounds the graceful drain; in-flight calls still running
	// after it are cut off.
	ShutdownTimeout time.Duration

	// AnswerCacheEntries and AnswerCacheBytes bound each transport's cache
	// of Translate answers (gRPC Translate, REST POST /v1/translate,
	// Connect's Translate; see answer_cache.go): repeated identical requests are answered with the
	// bytes of the first answer. Zero means DefaultAnswerCacheEntries,
	// DefaultAnswerCacheBytes; a negative value in either disables the
	// caches.
	AnswerCacheEntries int
	AnswerCacheBytes   int64

	// Health and Metrics are shared state. Give the same values to
	// NewGRPCServer and NewHTTPHandler so /readyz agrees with gRPC health and
	// /metrics shows both transports; nil means a private instance. New fills
	// both.
	Health  *Health
	Metrics *Metrics

	// TracerProvider makes each call's server span (see tracing.go); nil
	// is OpenTelemetry's no-op, which records nothing but still carries
	// the caller's trace context into logs. Propagator reads and writes
	// that context; nil is W3C trace context plus baggage.
	TracerProvider trace.TracerProvider
	Propagator     propagation.TextMapPropagator

	// RegisterGRPC, when set, is called by NewGRPCServer after errsvc's own
	// services are registered and before the server is returned (so before
	// it serves), to register more services on the same server: they get
	// the same interceptors, stats handler and transport options. The
	// benchmark server (bench/cmd/benchserver) uses it for its empty RPC.
	RegisterGRPC func(*grpc.Server)
	// RegisterGateway, when set, is called by NewHTTPHandler on the
	// grpc-gateway mux after the TranslationService routes are registered,
	// to add routes (e.g. with runtime.ServeMux.HandlePath) behind the same
	// REST middleware: body limit, concurrency limit, metrics, logging. An
	// error fails NewHTTPHandler (and New). The benchmark server uses it
	// for its empty REST route.
	RegisterGateway func(*runtime.ServeMux) error

	// limiter holds the concurrency limits; New shares one between both
	// transports, like Health and Metrics.
	limiter *limiter
	// windows is the gRPC port's count of widened stream windows against
	// MaxReceiveBufferBytes (grpc_stall.go).
	windows *windowBudget
	// uninstrumented leaves OpenTelemetry out entirely: the baseline of
	// BenchmarkTracing, which shows tracing off costs nothing measurable.
	uninstrumented bool
	// translate replaces translate.Translate; tests use it to inject faults.
	// Its answers are never cached.
	translate func(*errsvcv1.TranslateRequest) (*errsvcv1.TranslateResponse, error)
	// translateCacheable replaces translate.TranslateCacheable, for the
	// answer cache's tests.
	translateCacheable func(*errsvcv1.TranslateRequest) (*errsvcv1.TranslateResponse, bool, error)
}

func (o Options) withDefaults() Options {
	if o.GRPCAddr == "" {
		o.GRPCAddr = DefaultGRPCAddr
	}
	if o.HTTPAddr == "" {
		o.HTTPAddr = DefaultHTTPAddr
	}
	if o.MaxRequestBytes <= 0 {
		o.MaxRequestBytes = DefaultMaxRequestBytes
	}
	if o.MaxBatchItems <= 0 {
		o.MaxBatchItems = DefaultMaxBatchItems
	}
	if o.MaxConcurrentRequests <= 0 {
		o.MaxConcurrentRequests = DefaultMaxConcurrentRequests
	}
	if o.MaxConcurrentStreams <= 0 {
		o.MaxConcurrentStreams = DefaultMaxConcurrentStreams
	}
	if o.StreamRate == 0 {
		o.StreamRate = DefaultStreamRate
	}
	if o.StreamBurst <= 0 {
		o.StreamBurst = DefaultStreamBurst
	}
	if o.StreamByteRate == 0 {
		o.StreamByteRate = DefaultStreamByteRate
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.ShutdownTimeout <= 0 {
		o.ShutdownTimeout = DefaultShutdownTimeout
	}
	if o.ReceiveTimeout <= 0 {
		o.ReceiveTimeout = DefaultReceiveTimeout
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = DefaultWriteTimeout
	}
	if o.StreamIdleTimeout <= 0 {
		o.StreamIdleTimeout = DefaultStreamIdleTimeout
	}
	if o.MaxStreamsPerConnection <= 0 {
		o.MaxStreamsPerConnection = DefaultMaxStreamsPerConn
	}
	if o.MaxHeaderBytes <= 0 {
		o.MaxHeaderBytes = DefaultMaxHeaderBytes
	}
	if o.MaxReceiveBufferBytes <= 0 {
		o.MaxReceiveBufferBytes = DefaultMaxReceiveBufferBytes
	}
	if o.MaxHealthWatches <= 0 {
		o.MaxHealthWatches = DefaultMaxHealthWatches
	}
	if o.MaxConnectionIdle <= 0 {
		o.MaxConnectionIdle = DefaultMaxConnectionIdle
	}
	if o.KeepaliveMinTime <= 0 {
		o.KeepaliveMinTime = DefaultKeepaliveMinTime
	}
	if o.Health == nil {
		o.Health = NewHealth()
	}
	if o.Metrics == nil {
		o.Metrics = NewMetrics()
	}
	if o.limiter == nil {
		o.limiter = newLimiter(o.MaxConcurrentRequests, o.MaxConcurrentStreams, o.MaxHealthWatches, o.Metrics)
	}
	if o.windows == nil {
		o.windows = newWindowBudget(o)
	}
	return o
}
