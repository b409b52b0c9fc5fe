package server

import (
	"compress/gzip"
	"fmt"
	"io"
	"net/http"

	"connectrpc.com/connect"
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

// boundedGzip is the gzip decompressor of Connect and gRPC-Web requests: it
// stops inflating once a message passes the cap, where connect-go's own
// reads the whole of what is left to report its size, so a 1 MiB body that
// inflates to 1 GiB cost a gigabyte of inflation (0.2 s of CPU) before its
// refusal. Past the cap a Read fails at once with resource_exhausted.
type boundedGzip struct {
	gzip.Reader
	cap, n int64
	fresh  bool // Reset has not been called yet: the embedded reader is unset
}

func newBoundedGzip(cap int64) func() connect.Decompressor {
	return func() connect.Decompressor { return &boundedGzip{cap: cap, fresh: true} }
}

func (g *boundedGzip) Read(p []byte) (int, error) {
	if g.fresh {
		return 0, io.ErrUnexpectedEOF
	}
	k, err := g.Reader.Read(p)
	g.n += int64(k)
	if g.n > g.cap {
		return k, connect.NewError(connect.CodeResourceExhausted, fmt.Errorf("the message inflates past %d bytes: refused without inflating the rest", g.cap))
	}
	return k, err
}

func (g *boundedGzip) Reset(r io.Reader) error {
	g.n, g.fresh = 0, false
	return g.Reader.Reset(r)
}

func (g *boundedGzip) Close() error {
	if g.fresh {
		return nil
	}
	return g.Reader.Close()
}
