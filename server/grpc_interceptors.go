package server

import (
	"context"
	"log/slog"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/stats"
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

// gRPC calls are counted and logged once each, by whichever of two hooks
// sees them end first. Calls that reach the interceptors end in
// unaryObserve/streamObserve, before the status goes out, so /metrics and
// the log already show a call when its client sees the answer. grpc-go
// refuses some calls before any interceptor runs (a message over its size
// cap, one that does not decode); grpcStats catches those from the
// transport's side. Its TagRPC also opens the call record, which the
// stream's context then carries to the interceptors and the service.

func unaryObserve(m *Metrics, logger *slog.Logger) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		resp, err := handler(ctx, req)
		endGRPC(ctx, err, logger, m)
		return resp, err
	}
}

func streamObserve(m *Metrics, logger *slog.Logger) grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		err := handler(srv, ss)
		endGRPC(ss.Context(), err, logger, m)
		return err
	}
}

// grpc-go's own wording for the refusals it makes before our code runs.
const (
	grpcTooLargePrefix = "grpc: received message larger than max"
	grpcUndecodable    = "grpc: failed to unmarshal the received message"
)

// endGRPC closes the call record of ctx with err, once.
func endGRPC(ctx context.Context, err error, logger *slog.Logger, m *Metrics) {
	c := callFrom(ctx)
	if c == nil || c.finished {
		return
	}
	c.finished = true
	st := status.Convert(err)
	c.setStatus(st)
	switch {
	case c.code == codes.ResourceExhausted && c.limit == "" && strings.HasPrefix(st.Message(), grpcTooLargePrefix):
		c.limit, c.field = limitRequestBytes, "body"
	case c.code == codes.Internal && strings.HasPrefix(st.Message(), grpcUndecodable):
		// Only for services the guard does not wrap (health, reflection).
		// INTERNAL on the wire, but the caller's fault: logged at WARN.
		c.callerFault, c.field = true, "body"
	}
	c.finish(ctx, logger, m)
}

// grpcStats is the transport-side hook described above.
type grpcStats struct {
	metrics *Metrics
	logger  *slog.Logger
	budget  *recvBudget
}

func (h grpcStats) TagRPC(ctx context.Context, info *stats.RPCTagInfo) context.Context {
	// Only registered methods reach an end (grpc-go answers the others
	// UNIMPLEMENTED on its own), so the rpc label stays bounded.
	ctx, _ = openCall(ctx, transportGRPC, info.FullMethodName)
	return ctx
}

func (h grpcStats) HandleRPC(ctx context.Context, s stats.RPCStats) {
	if end, ok := s.(*stats.End); ok {
		endGRPC(ctx, end.Error, h.logger, h.metrics)
	}
}

// TagConn gives each connection its share of the receive budget.
func (h grpcStats) TagConn(ctx context.Context, _ *stats.ConnTagInfo) context.Context {
	if h.budget == nil {
		return ctx
	}
	return h.budget.tagConn(ctx)
}

func (grpcStats) HandleConn(context.Context, stats.ConnStats) {}
