package server

import (
	"context"
	"log/slog"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/status"
)

func unaryRecover(logger *slog.Logger) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (resp any, err error) {
		defer recoverAsInternal(ctx, logger, info.FullMethod, &err)
		return handler(ctx, req)
	}
}

func streamRecover(logger *slog.Logger) grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) (err error) {
		defer recoverAsInternal(ss.Context(), logger, info.FullMethod, &err)
		return handler(srv, ss)
	}
}

func unaryMetrics(m *Metrics) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		start := time.Now()
		resp, err := handler(ctx, req)
		m.observe(transportGRPC, info.FullMethod, status.Code(err), start)
		return resp, err
	}
}

// streamMetrics counts a stream once, with the status it ended on; per-item
// outcomes travel inside the responses.
func streamMetrics(m *Metrics) grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		start := time.Now()
		err := handler(srv, ss)
		m.observe(transportGRPC, info.FullMethod, status.Code(err), start)
		return err
	}
}
