package server

import (
	"net/http"

	"github.com/klauspost/compress/gzhttp"
	// Registers the gzip compressor with grpc-go, so a client that
	// compresses its messages (grpc.UseCompressor(gzip.Name)) is answered,
	// compressed in turn, instead of UNIMPLEMENTED.
	_ "google.golang.org/grpc/encoding/gzip"
)

// gzipREST compresses REST answers (and the documents and playground
// served beside them) for clients that send Accept-Encoding: gzip. Answers
// under gzhttp's default minimum (1 KiB) go out as they are: a gzip frame
// would not pay for itself. Connect and gRPC-Web negotiate compression
// themselves and /metrics is compressed by promhttp, so neither goes
// through here.
func gzipREST(h http.Handler) http.Handler {
	return gzhttp.GzipHandler(h)
}
