package server

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"google.golang.org/grpc/grpclog"
)

// GRPCLogger routes grpclog, through which grpc-go and grpc-gateway write
// their own lines (a response that could not be written, a transport
// error), into logger, so every line errsvc writes is JSON. grpclog's INFO
// is chatty connection bookkeeping and goes to DEBUG; WARNING and ERROR
// keep their level, FATAL logs at ERROR and exits as grpclog's contract
// says. Install it with grpclog.SetLoggerV2 before any gRPC use.
func GRPCLogger(logger *slog.Logger) grpclog.LoggerV2 {
	return grpcLogger{logger.With("logger", "grpc")}
}

type grpcLogger struct{ l *slog.Logger }

func (g grpcLogger) log(level slog.Level, msg string) {
	g.l.Log(context.Background(), level, msg)
}

func (g grpcLogger) Info(args ...any)   { g.log(slog.LevelDebug, fmt.Sprint(args...)) }
func (g grpcLogger) Infoln(args ...any) { g.log(slog.LevelDebug, sprintln(args...)) }
func (g grpcLogger) Infof(format string, args ...any) {
	g.log(slog.LevelDebug, fmt.Sprintf(format, args...))
}
func (g grpcLogger) Warning(args ...any)   { g.log(slog.LevelWarn, fmt.Sprint(args...)) }
func (g grpcLogger) Warningln(args ...any) { g.log(slog.LevelWarn, sprintln(args...)) }
func (g grpcLogger) Warningf(format string, args ...any) {
	g.log(slog.LevelWarn, fmt.Sprintf(format, args...))
}
func (g grpcLogger) Error(args ...any)   { g.log(slog.LevelError, fmt.Sprint(args...)) }
func (g grpcLogger) Errorln(args ...any) { g.log(slog.LevelError, sprintln(args...)) }
func (g grpcLogger) Errorf(format string, args ...any) {
	g.log(slog.LevelError, fmt.Sprintf(format, args...))
}
func (g grpcLogger) Fatal(args ...any)                 { g.fatal(fmt.Sprint(args...)) }
func (g grpcLogger) Fatalln(args ...any)               { g.fatal(sprintln(args...)) }
func (g grpcLogger) Fatalf(format string, args ...any) { g.fatal(fmt.Sprintf(format, args...)) }

// V reports whether verbosity level l is on: only 0, as grpc-go's default
// logger without GRPC_GO_LOG_VERBOSITY_LEVEL.
func (g grpcLogger) V(l int) bool { return l <= 0 }

func (g grpcLogger) fatal(msg string) {
	g.log(slog.LevelError, msg)
	exit(1)
}

// exit is os.Exit; a variable so a test can see a Fatal without dying.
var exit = defaultExit

var defaultExit = os.Exit

func sprintln(args ...any) string {
	s := fmt.Sprintln(args...)
	return s[:len(s)-1]
}
