package server

import (
	"math"

	"github.com/errsvc/errsvc/codec"
	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
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
	budget := newRecvBudget(opts)
	serverOpts := []grpc.ServerOption{
		// Twice the limit (see grpcRecvCap): a larger declared message is
		// refused from its 5-byte prefix, before a byte of it is buffered;
		// the guard (grpc_recv.go) refuses the rest over the limit with the
		// BadRequest on "body".
		grpc.MaxRecvMsgSize(grpcRecvCap(opts.MaxRequestBytes)),
		grpc.InTapHandle(tapReceive(opts.ReceiveTimeout)),
		// Static windows: without them grpc-go grows a stream's window up
		// to 16 MiB on fast links, which a client could fill on stream after
		// stream before any handler reads.
		grpc.InitialWindowSize(defaultStreamWindow),
		grpc.InitialConnWindowSize(defaultConnWindow),
		grpc.MaxConcurrentStreams(uint32(opts.MaxStreamsPerConnection)),
		grpc.MaxHeaderListSize(uint32(opts.MaxHeaderBytes)),
		grpc.ConnectionTimeout(defaultGRPCConnectionTimeout),
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{
			MinTime: opts.KeepaliveMinTime, PermitWithoutStream: true,
		}),
		grpc.KeepaliveParams(keepalive.ServerParameters{
			MaxConnectionIdle:     opts.MaxConnectionIdle,
			MaxConnectionAge:      opts.MaxConnectionAge, // 0: never
			MaxConnectionAgeGrace: opts.ShutdownTimeout,
			Time:                  defaultKeepaliveTime,
			Timeout:               defaultKeepaliveTimeout,
		}),
		// Messages are encoded and decoded by generated code (package
		// codec), requests after a walk that refuses invalid UTF-8 and
		// excessive nesting, as protobuf-go would.
		grpc.ForceServerCodecV2(codec.Server),
		// Calls run on a fixed set of goroutines whose stacks have already
		// grown, instead of a fresh goroutine per call that grows its stack
		// (copystack) on the way down to the translator.
		grpc.NumStreamWorkers(64),
		grpcTracing(opts), // before grpcStats, which reads its span
		grpc.StatsHandler(grpcStats{metrics: opts.Metrics, logger: opts.Logger, budget: budget}),
		grpc.ChainUnaryInterceptor(
			unaryObserve(opts.Metrics, opts.Logger),
			unaryRecover(opts.Logger),
		),
		grpc.ChainStreamInterceptor(
			streamObserve(opts.Metrics, opts.Logger),
			streamRecover(opts.Logger),
			streamLimits(opts.limiter),
		),
	}
	// Every connection counts the windows grpc-go widens for large
	// messages against the receive budget (grpc_stall.go), under TLS or not.
	var creds credentials.TransportCredentials = insecure.NewCredentials()
	if opts.TLS != nil {
		creds = credentials.NewTLS(opts.TLS)
	}
	serverOpts = append(serverOpts, grpc.Creds(opts.windows.credentials(creds)))
	s := grpc.NewServer(serverOpts...)
	guard := &recvGuard{limiter: opts.limiter, budget: budget, maxBytes: opts.MaxRequestBytes, maxItems: opts.MaxBatchItems,
		receiveTimeout: opts.ReceiveTimeout, idleTimeout: opts.StreamIdleTimeout, writeTimeout: opts.WriteTimeout,
		streamBytes: opts.StreamByteRate, streamBurst: grpcRecvCap(opts.MaxRequestBytes)}
	s.RegisterService(guardedService(errsvcv1.TranslationService_ServiceDesc, guard, newAnswerCache(opts, transportGRPC)), NewService(opts))
	healthpb.RegisterHealthServer(s, opts.Health.grpc)
	reflection.Register(s)
	if opts.RegisterGRPC != nil {
		opts.RegisterGRPC(s)
	}
	return s
}

// grpcRecvCap is the receive cap handed to grpc-go: twice MaxRequestBytes.
// grpc-go answers a message over its cap with a bare RESOURCE_EXHAUSTED it
// writes itself, which no errsvc code can give the BadRequest API.md
// promises; so the cap sits above the limit, and the guard refuses every
// message between the two with the detail. The receive budget counts each
// message at this cap.
func grpcRecvCap(maxBytes int64) int {
	if maxBytes > math.MaxInt32/2 {
		return math.MaxInt32
	}
	return int(2 * maxBytes)
}
