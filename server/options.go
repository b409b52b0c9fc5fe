// Package server exposes the translate core over gRPC (with health and
// reflection) and over REST through grpc-gateway, plus the operational HTTP
// endpoints (/healthz, /readyz, /metrics, /openapi.json).
package server

import (
	"log/slog"
	"time"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// Defaults applied to zero-valued Options fields.
const (
	DefaultGRPCAddr        = "127.0.0.1:9090"
	DefaultHTTPAddr        = "127.0.0.1:8080"
	DefaultMaxRequestBytes = 4 << 20
	DefaultMaxBatchItems   = 1000
	DefaultShutdownTimeout = 15 * time.Second
)

// Options configures the service, its gRPC server, its HTTP handler and the
// Server that runs both. Zero values mean the defaults above.
type Options struct {
	GRPCAddr string
	HTTPAddr string
	// MaxRequestBytes bounds one REST body and one received gRPC message, so
	// both transports refuse the same oversize input.
	MaxRequestBytes int64
	// MaxBatchItems bounds TranslateBatch.requests.
	MaxBatchItems int
	Logger        *slog.Logger
	// ShutdownTimeout bounds the graceful drain; in-flight calls still running
	// after it are cut off.
	ShutdownTimeout time.Duration

	// Health and Metrics are shared state. Give the same values to
	// NewGRPCServer and NewHTTPHandler so /readyz agrees with gRPC health and
	// /metrics shows both transports; nil means a private instance. New fills
	// both.
	Health  *Health
	Metrics *Metrics

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
	return o
}
