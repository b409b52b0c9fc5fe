package server

import (
	"context"
	"log/slog"
	"runtime/debug"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// recoverAsInternal turns a panic in the current call into INTERNAL, so one
// bad request cannot take the process down. Deferred directly by the caller,
// which is what lets recover() see the panic. Only the method, the panic
// value and the stack are logged: request payloads may carry user data.
func recoverAsInternal(ctx context.Context, logger *slog.Logger, rpc string, err *error) {
	if p := recover(); p != nil {
		logger.ErrorContext(ctx, "panic in handler",
			slog.String("rpc", rpc),
			slog.Any("panic", p),
			slog.String("stack", string(debug.Stack())))
		*err = status.Error(codes.Internal, "internal error")
	}
}
