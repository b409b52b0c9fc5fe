package server

import (
	"sync/atomic"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// Health is the one serving flag behind both gRPC health and /readyz, so the
// two probes can never disagree during shutdown.
type Health struct {
	ready atomic.Bool
	grpc  *health.Server
}

// NewHealth returns a Health that reports SERVING.
func NewHealth() *Health {
	h := &Health{grpc: health.NewServer()}
	h.ready.Store(true)
	h.grpc.SetServingStatus("", healthpb.HealthCheckResponse_SERVING)
	h.grpc.SetServingStatus(errsvcv1.TranslationService_ServiceDesc.ServiceName, healthpb.HealthCheckResponse_SERVING)
	return h
}

// Ready reports whether the process still takes new work.
func (h *Health) Ready() bool { return h.ready.Load() }

// SetNotServing marks the process as draining: /readyz answers 503 and every
// gRPC health service NOT_SERVING. It is one-way, as shutdown is.
func (h *Health) SetNotServing() {
	h.ready.Store(false)
	h.grpc.Shutdown()
}
