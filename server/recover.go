package server

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"runtime/debug"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// recoverAsInternal turns a panic in the current call into INTERNAL, so one
// bad request cannot take the process down. Deferred directly by the caller,
// which is what lets recover() see the panic.
//
// Only the method, the panic's type and the stack are logged, plus the
// message of a runtime error (an index out of range, a nil dereference),
// which the runtime writes: any other panic value may quote the request or
// upstream text, so its content is left out.
func recoverAsInternal(ctx context.Context, logger *slog.Logger, rpc string, err *error) {
	if p := recover(); p != nil {
		attrs := []slog.Attr{
			slog.String("rpc", rpc),
			slog.String("panic_type", fmt.Sprintf("%T", p)),
		}
		if re, ok := p.(runtime.Error); ok {
			attrs = append(attrs, slog.String("panic", re.Error()))
		}
		attrs = append(attrs, slog.String("stack", string(debug.Stack())))
		logger.LogAttrs(ctx, slog.LevelError, "panic in handler", attrs...)
		if c := callFrom(ctx); c != nil {
			c.panicked = true
		}
		*err = status.Error(codes.Internal, "internal error")
	}
}
