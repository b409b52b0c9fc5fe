package server

import (
	"context"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Draining the HTTP port without losing a call. net/http's Shutdown
// closes the listener first, which resets the connections the kernel had
// accepted for the server (the client sent its request on them), and it
// drops a request read after it began (the connection closes with no
// answer): a call lost after it was sent either way, which a client cannot
// safely retry. (A socket filter that stops new handshakes would close the
// first gap at the kernel; the sandboxes errsvc is tested in refuse
// SO_ATTACH_FILTER, so the drain does not depend on it.) So once the drain
// delay has passed, the port goes on accepting, and answers every request
// that is not already in progress with 503 UNAVAILABLE, Retry-After: 1 and
// Connection: close (a Status of code 14 over REST; Connect and gRPC-Web
// clients read 503 as unavailable): the HTTP form of gRPC's GOAWAY, which
// every client retries elsewhere. Once no request is in progress and none
// has come for drainQuiet, Shutdown closes the listener with nothing left
// to cut off.

// drainQuiet is how long the port must have had no request for the drain
// to close it.
const drainQuiet = 100 * time.Millisecond

// drainIdleGrace is how long a kept-alive connection must have been idle
// for the drain to close it under its client. Shutdown closes idle
// connections at once, and a client that sends on one just then (its
// pool handed it out) loses the call: HTTP/1.1 cannot tell it apart from
// a request the server dropped (RFC 9112, section 9.6). A connection in
// use gets its 503 and Connection: close instead, so the drain waits for
// every connection idle less than this to be used (and closed by that
// answer) or to age past it; a client descheduled for longer than the
// quiet period on a loaded machine (the race this closes) comes back
// within it. Bounded by the shutdown timeout like the rest of the drain.
const drainIdleGrace = time.Second

// drainGate is the HTTP handler's front: it counts requests in progress and
// notes the last one, and once closing answers new ones 503.
type drainGate struct {
	next     http.Handler
	closing  atomic.Bool
	inFlight atomic.Int64
	last     atomic.Int64 // unix nanoseconds of the last request's start
	// idle are the kept-alive connections between requests.
	idle idleConns
}

// idleConns tracks, through http.Server.ConnState, when each connection
// between requests went idle.
type idleConns struct {
	mu    sync.Mutex
	since map[net.Conn]time.Time
}

func (c *idleConns) track(conn net.Conn, st http.ConnState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if st == http.StateIdle {
		if c.since == nil {
			c.since = map[net.Conn]time.Time{}
		}
		c.since[conn] = time.Now()
		return
	}
	delete(c.since, conn)
}

// youngest is how long the most recently idled connection has been idle;
// false when none is idle.
func (c *idleConns) youngest() (time.Duration, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var newest time.Time
	for _, t := range c.since {
		if t.After(newest) {
			newest = t
		}
	}
	if newest.IsZero() {
		return 0, false
	}
	return time.Since(newest), true
}

// drainExempt are the probe and scrape paths: they keep their own answers.
func drainExempt(path string) bool {
	for _, p := range []string{"/healthz", "/readyz", "/livez", "/metrics"} {
		if strings.HasPrefix(path, p) {
			return true
		}
	}
	return false
}

func (g *drainGate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	g.last.Store(time.Now().UnixNano())
	if g.closing.Load() && !drainExempt(r.URL.Path) {
		h := w.Header()
		h.Set("Connection", "close")
		h.Set("Retry-After", "1")
		h.Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte(`{"code":14,"message":"errsvc is shutting down; retry on another replica","details":[]}`))
		return
	}
	g.inFlight.Add(1)
	defer g.inFlight.Add(-1)
	if g.closing.Load() {
		w.Header().Set("Connection", "close")
	}
	g.next.ServeHTTP(w, r)
}

// drainListener notes when it last handed over a connection.
type drainListener struct {
	net.Listener
	last atomic.Int64 // unix nanoseconds
}

func (l *drainListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.last.Store(time.Now().UnixNano())
	}
	return c, err
}

// drainHTTP closes the port to new requests (503) and waits, until ctx
// ends, for the requests in progress to finish and the callers to stop
// coming; Shutdown follows.
func (s *Server) drainHTTP(ctx context.Context) {
	g := s.httpGate
	g.closing.Store(true)
	quietSince := func() time.Duration {
		last := max(g.last.Load(), s.httpDrain.last.Load())
		return time.Since(time.Unix(0, last))
	}
	idleYoung := func() bool {
		age, ok := g.idle.youngest()
		return ok && age < drainIdleGrace
	}
	for g.inFlight.Load() > 0 || quietSince() < drainQuiet || idleYoung() {
		if !sleepCtx(ctx, drainQuiet/10) {
			return
		}
	}
}

func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
