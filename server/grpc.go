package server

import (
	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"google.golang.org/grpc"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/reflection"
)

// NewGRPCServer returns a gRPC server carrying TranslationService, the
// grpc.health.v1 service backed by opts.Health (flip it with
// Health.SetNotServing), and server reflection. Panics become INTERNAL and
// every call is counted in opts.Metrics.
func NewGRPCServer(opts Options) *grpc.Server {
	opts = opts.withDefaults()
	// Metrics is outermost so a recovered panic is counted as INTERNAL.
	s := grpc.NewServer(
		grpc.MaxRecvMsgSize(int(opts.MaxRequestBytes)),
		grpc.ChainUnaryInterceptor(
			unaryMetrics(opts.Metrics),
			unaryRecover(opts.Logger),
		),
		grpc.ChainStreamInterceptor(
			streamMetrics(opts.Metrics),
			streamRecover(opts.Logger),
		),
	)
	errsvcv1.RegisterTranslationServiceServer(s, NewService(opts))
	healthpb.RegisterHealthServer(s, opts.Health.grpc)
	reflection.Register(s)
	return s
}
