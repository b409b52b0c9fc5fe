// Package server exposes the translate core over gRPC (with health and
// reflection) and over REST through grpc-gateway, plus the operational HTTP
// endpoints (/healthz, /readyz, /metrics, /openapi.json).
package server

import (
	"crypto/tls"
	"log/slog"
	"time"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
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
	DefaultShutdownTimeout       = 15 * time.Second
)

// DefaultGCPercent is the garbage collector target (GOGC) cmd/errsvc sets
// when the environment sets no GOGC. Every translation allocates a few KiB
// that die when the answer is written, over a live heap of a few MiB, so
// Go's default of 100 collects very often for little: at 400 the heap may
// grow to about five times the live set (still a few tens of MiB; set
// GOMEMLIMIT, as deploy/kubernetes does, to cap it) and the server spends
// about a quarter less CPU per Translate (docs/BENCHMARKS.md).
const DefaultGCPercent = 400

// Options configures the service, its gRPC server, its HTTP handler and the
// Server that runs both. Zero values mean the defaults above.
type Options struct {
	GRPCAddr string
	HTTPAddr string
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
	// TLS, when set, serves both ports over TLS with this configuration
	// (see LoadTLSConfig; ClientAuth makes it mutual). Nil serves plaintext,
	// which is meant for loopback: Serve warns on any other address.
	TLS *tls.Config
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
	// turns false, so load balancers that poll /readyz stop sending first.
	// Zero (the default) stops accepting at once; Kubernetes gets the same
	// effect from the Deployment's preStop sleep.
	DrainDelay time.Duration
	// ShutdownTimeout bounds the graceful drain; in-flight calls still running
	// after it are cut off.
	ShutdownTimeout time.Duration

	// Health and Metrics are shared state. Give the same values to
	// NewGRPCServer and NewHTTPHandler so /readyz agrees with gRPC health and
	// /metrics shows both transports; nil means a private instance. New fills
	// both.
	Health  *Health
	Metrics *Metrics

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
	// translate replaces translate.Translate; tests use it to inject faults.
	translate func(*errsvcv1.TranslateRequest) (*errsvcv1.TranslateResponse, error)
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
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.ShutdownTimeout <= 0 {
		o.ShutdownTimeout = DefaultShutdownTimeout
	}
	if o.Health == nil {
		o.Health = NewHealth()
	}
	if o.Metrics == nil {
		o.Metrics = NewMetrics()
	}
	if o.limiter == nil {
		o.limiter = newLimiter(o.MaxConcurrentRequests, o.MaxConcurrentStreams, o.Metrics)
	}
	return o
}
