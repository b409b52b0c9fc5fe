package server

import (
	"github.com/errsvc/errsvc/codec"
	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/reflection"
)

// NewGRPCServer returns a gRPC server carrying TranslationService, the
// grpc.health.v1 service backed by opts.Health (flip it with
// Health.SetNotServing), and server reflection. Panics become INTERNAL,
// every call is counted in opts.Metrics and a failed one logged, and the
// limits of opts apply. With opts.TLS it serves TLS only.
func NewGRPCServer(opts Options) *grpc.Server {
	opts = opts.withDefaults()
	// Observe is outermost so a recovered panic and a refusal by a limit are
	// counted and logged like any other outcome; grpcStats catches the calls
	// grpc-go refuses before the interceptors. The limits release their
	// slots on the way out, panic or not.
	serverOpts := []grpc.ServerOption{
		grpc.MaxRecvMsgSize(grpcTransportLimit(opts.MaxRequestBytes)),
		// Messages are encoded and decoded by generated code (package
		// codec), requests after a walk that refuses invalid UTF-8 and
		// excessive nesting, as protobuf-go would.
		grpc.ForceServerCodecV2(codec.Server),
		// Calls run on a fixed set of goroutines whose stacks have already
		// grown, instead of a fresh goroutine per call that grows its stack
		// (copystack) on the way down to the translator.
		grpc.NumStreamWorkers(64),
		grpcTracing(opts), // before grpcStats, which reads its span
		grpc.StatsHandler(grpcStats{metrics: opts.Metrics, logger: opts.Logger}),
		grpc.ChainUnaryInterceptor(
			unaryObserve(opts.Metrics, opts.Logger),
			unaryRecover(opts.Logger),
			unaryLimits(opts.limiter, opts.MaxRequestBytes),
		),
		grpc.ChainStreamInterceptor(
			streamObserve(opts.Metrics, opts.Logger),
			streamRecover(opts.Logger),
			streamLimits(opts.limiter),
		),
	}
	if opts.TLS != nil {
		serverOpts = append(serverOpts, grpc.Creds(credentials.NewTLS(opts.TLS)))
	}
	if opts.MaxConnectionAge > 0 {
		serverOpts = append(serverOpts, grpc.KeepaliveParams(keepalive.ServerParameters{
			MaxConnectionAge:      opts.MaxConnectionAge,
			MaxConnectionAgeGrace: opts.ShutdownTimeout,
		}))
	}
	s := grpc.NewServer(serverOpts...)
	errsvcv1.RegisterTranslationServiceServer(s, NewService(opts))
	healthpb.RegisterHealthServer(s, opts.Health.grpc)
	reflection.Register(s)
	if opts.RegisterGRPC != nil {
		opts.RegisterGRPC(s)
	}
	return s
}
