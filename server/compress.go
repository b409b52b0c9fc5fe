package server

import (
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"strings"

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

// restInflate reads a REST body sent with Content-Encoding: gzip as what it
// inflates to, stopping at max: one byte past it the read fails as the
// size limit does (http.MaxBytesError, answered 413 naming the body), so a
// bomb costs at most max inflated bytes. Another encoding is refused
// naming it.
func restInflate(r io.Reader, encoding string, max int64) io.Reader {
	if !strings.EqualFold(encoding, "gzip") {
		return errReader{fmt.Errorf("Content-Encoding %q is not supported: send the body as it is, or gzip", encoding)}
	}
	return &inflateLimit{src: r, max: max}
}

// inflateLimit inflates src lazily (the gzip header is read on the first
// Read) and fails past max inflated bytes.
type inflateLimit struct {
	src io.Reader
	zr  *gzip.Reader
	max int64
	n   int64
}

func (l *inflateLimit) Read(p []byte) (int, error) {
	if l.zr == nil {
		zr, err := gzip.NewReader(l.src)
		if err != nil {
			return 0, fmt.Errorf("the body is not valid gzip: %w", err)
		}
		l.zr = zr
	}
	if l.n > l.max {
		return 0, &http.MaxBytesError{Limit: l.max}
	}
	if rest := l.max + 1 - l.n; int64(len(p)) > rest {
		p = p[:rest]
	}
	k, err := l.zr.Read(p)
	l.n += int64(k)
	if l.n > l.max {
		return k, &http.MaxBytesError{Limit: l.max}
	}
	return k, err
}
