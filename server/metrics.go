package server

import (
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"google.golang.org/grpc/codes"
)

// Transport label values.
const (
	transportGRPC = "grpc"
	transportHTTP = "http"
)

// Metrics is a private Prometheus registry rather than the global one, so
// several servers in one process (tests, embedders) never collide on
// registration.
//
// Every call is counted exactly once: REST calls reach the service in
// process (see gateway.go), never through the gRPC port, so the gRPC
// interceptors see only gRPC calls and the gateway middleware only REST
// calls. The transport label tells them apart; rpc is the full gRPC method
// name on both, so they can be summed.
type Metrics struct {
	registry *prometheus.Registry
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
}

// NewMetrics returns an empty registry with errsvc's collectors and the Go
// runtime collector.
func NewMetrics() *Metrics {
	m := &Metrics{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "errsvc_requests_total",
			Help: "Calls handled, by transport, full RPC method and gRPC status code.",
		}, []string{"transport", "rpc", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "errsvc_request_duration_seconds",
			Help:    "Call latency, by transport and full RPC method.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 4, 8),
		}, []string{"transport", "rpc"}),
	}
	m.registry.MustRegister(m.requests, m.latency, collectors.NewGoCollector())
	return m
}

// Handler serves the registry in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{Registry: m.registry})
}

func (m *Metrics) observe(transport, rpc string, code codes.Code, start time.Time) {
	m.requests.WithLabelValues(transport, rpc, code.String()).Inc()
	m.latency.WithLabelValues(transport, rpc).Observe(time.Since(start).Seconds())
}
