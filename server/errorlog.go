package server

import (
	"log"
	"log/slog"
)

// slogErrorLog routes net/http's own complaints (TLS handshakes, recovered
// handler panics) into the structured log instead of stderr.
func slogErrorLog(logger *slog.Logger) *log.Logger {
	return slog.NewLogLogger(logger.Handler(), slog.LevelWarn)
}
