package server

import (
	"encoding/binary"
	"net"
	"sync"
	"sync/atomic"

	"google.golang.org/grpc/credentials"
)

// Stalled messages on the gRPC port, stream or unary.
//
// The flow-control windows are fixed (64 KiB a stream; see NewGRPCServer),
// but they do not bound what a stalled sender makes the server hold: when a
// handler reads a message larger than its stream's window, grpc-go sends a
// WINDOW_UPDATE for the whole declared message (inFlow.maybeAdjust, up to
// the receive cap), so each stream reading a message can be made to hold
// the cap, 8 MiB at the defaults. The recvGuard counts unary messages
// before they are read; a TranslateStream message cannot be counted there
// without counting each stream waiting between messages as if it held one,
// and no grpc-go hook tells when a message starts to arrive (the stats
// handler sees it only whole).
//
// So the count sits on the connection, under the TLS layer if any, where
// the frames are: every WINDOW_UPDATE grpc-go writes for a stream past the
// stream window (its widening for one message) is held back until the
// receive budget, --max-receive-buffer-bytes, has room for it (one
// connection getting at most half), and charged to it until the message it
// was for has arrived, or the stream ends. Until then the client can send
// only what the stream's window allows. A stream that stalls in a message
// holds at most its charge; messages within the window (every error worth
// translating) need no widening and are never held, so a stalled sender
// cannot make a small request wait. A large message, stream or unary,
// waits for the budget: a unary one up to --receive-timeout, a stream's up
// to --stream-idle-timeout.

// HTTP/2 frame types, flags and sizes (RFC 9113) the connection reads.
const (
	h2FrameHeaderLen   = 9
	h2FrameData        = 0x0
	h2FrameHeaders     = 0x1
	h2FrameRSTStream   = 0x3
	h2FrameWindowUp    = 0x8
	h2FlagEndStream    = 0x1
	h2FlagPadded       = 0x8
	h2ClientPrefaceLen = 24 // "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
	grpcPrefixLen      = 5  // a gRPC message's flag byte and length
)

// windowBudget is the receive budget for window granted past the stream
// window: a count of bytes for the server, and one per connection (held,
// under mu).
type windowBudget struct {
	total   int64
	perConn int64
	window  uint32 // a stream's own window: a WINDOW_UPDATE up to it passes

	mu    sync.Mutex
	used  int64
	queue []*windowGrant // waiting, oldest first
}

func newWindowBudget(o Options) *windowBudget {
	return &windowBudget{total: o.MaxReceiveBufferBytes, perConn: max(1, o.MaxReceiveBufferBytes/2), window: defaultStreamWindow}
}

type grantState uint8

const (
	grantQueued grantState = iota
	grantGiven
	grantReleased
)

// windowGrant is one held WINDOW_UPDATE: n bytes of window for a stream.
type windowGrant struct {
	conn   *stallConn
	stream uint32
	n      int64
	state  grantState // under windowBudget.mu
}

// credentials wraps creds so that every connection it hands grpc-go counts
// its widened windows against b.
func (b *windowBudget) credentials(creds credentials.TransportCredentials) credentials.TransportCredentials {
	return stallCreds{TransportCredentials: creds, budget: b}
}

// enqueue asks for g, which is given at once if the budget allows.
func (b *windowBudget) enqueue(g *windowGrant) {
	b.mu.Lock()
	b.queue = append(b.queue, g)
	b.grantLocked()
	b.mu.Unlock()
}

// release gives back the grants gs (given or still waiting) and lets the
// waiting ones in that now fit.
func (b *windowBudget) release(gs []*windowGrant) {
	if len(gs) == 0 {
		return
	}
	b.mu.Lock()
	for _, g := range gs {
		if g.state == grantGiven {
			b.used -= g.n
			g.conn.held -= g.n
		}
		g.state = grantReleased
	}
	b.grantLocked()
	b.mu.Unlock()
}

// grantLocked gives the waiting grants that fit, oldest first. One that
// does not fit the server's budget stops the rest (so a large message is
// not passed over for ever by smaller ones); one past its connection's
// share waits without holding up other connections. A grant larger than
// a share (or the budget) is given when nothing else is held.
func (b *windowBudget) grantLocked() {
	kept := b.queue[:0]
	full := false
	for _, g := range b.queue {
		if g.state != grantQueued {
			continue
		}
		fitsServer := b.used+g.n <= b.total || b.used == 0
		fitsConn := g.conn.held+g.n <= b.perConn || g.conn.held == 0
		if !full && fitsServer && fitsConn {
			g.state = grantGiven
			b.used += g.n
			g.conn.held += g.n
			g.conn.given(g)
			continue
		}
		full = full || !fitsServer
		kept = append(kept, g)
	}
	clear(b.queue[len(kept):])
	b.queue = kept
}

// stallCreds hands grpc-go each connection wrapped in a stallConn, after
// the handshake (TLS or none), so the frames are read in the clear.
// grpc-go still sets its TCP options on the raw connection.
type stallCreds struct {
	credentials.TransportCredentials
	budget *windowBudget
}

func (s stallCreds) ServerHandshake(raw net.Conn) (net.Conn, credentials.AuthInfo, error) {
	conn, info, err := s.TransportCredentials.ServerHandshake(raw)
	if err != nil {
		return conn, info, err
	}
	return &stallConn{Conn: conn, budget: s.budget, open: map[uint32][]*windowGrant{},
		in: h2Scan{preface: h2ClientPrefaceLen, msgs: map[uint32]msgScan{}}}, info, nil
}

func (s stallCreds) Clone() credentials.TransportCredentials {
	return stallCreds{TransportCredentials: s.TransportCredentials.Clone(), budget: s.budget}
}

// stallConn is a gRPC server connection whose widened stream windows are
// counted (see the top of this file). It reads the client's frames as they
// pass (headers and message prefixes only, nothing is copied), and the
// server's as grpc-go writes them.
type stallConn struct {
	net.Conn
	budget *windowBudget
	held   int64 // bytes given to this connection, under budget.mu

	in h2Scan // the reading goroutine's

	// The streams open, each with what was given for the message arriving
	// on it; gone, those the server ended, for the reading goroutine to
	// forget. Maps of values, so that a call costs no allocation.
	mu      sync.Mutex
	open    map[uint32][]*windowGrant
	gone    []uint32
	hasGone atomic.Bool
	closed  bool

	wmu  sync.Mutex // writes to Conn, whole frames only
	tail []byte     // the start of a frame grpc-go has not finished writing

	qmu      sync.Mutex
	toWrite  []*windowGrant // given, not yet written
	writing  bool           // a Write will write toWrite before it returns
	flushing bool           // flushGrants runs
}

// msgScan is where a stream's message arriving stands: its prefix bytes
// seen, then the bytes of it still to come.
type msgScan struct {
	prefix  [grpcPrefixLen]byte
	prefixN int
	left    int64
}

// h2Scan is where the reading of the client's frames stands.
type h2Scan struct {
	preface  int // bytes of the client preface still to pass
	hdr      [h2FrameHeaderLen]byte
	hdrN     int
	left     int // payload bytes of the current frame still to come
	typ      byte
	flags    byte
	id       uint32
	needPad  bool               // a padded DATA frame's pad length comes next
	dataLeft int                // of the DATA frame's payload, message bytes still to come
	msgs     map[uint32]msgScan // by open stream
	cur      msgScan            // the DATA frame's stream's, while in it
	curOK    bool               // the DATA frame's stream is open
}

func (c *stallConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.scan(p[:n])
	}
	return n, err
}

func (c *stallConn) Close() error {
	c.mu.Lock()
	var gs []*windowGrant
	for _, g := range c.open {
		gs = append(gs, g...)
	}
	c.open = nil
	c.closed = true
	c.mu.Unlock()
	c.budget.release(gs)
	return c.Conn.Close()
}

// scan follows the client's frames through b.
func (c *stallConn) scan(b []byte) {
	s := &c.in
	if c.hasGone.Load() {
		c.mu.Lock()
		for _, id := range c.gone {
			delete(s.msgs, id)
		}
		c.gone = c.gone[:0]
		c.hasGone.Store(false)
		c.mu.Unlock()
	}
	for len(b) > 0 {
		if s.preface > 0 {
			k := min(len(b), s.preface)
			s.preface -= k
			b = b[k:]
			continue
		}
		if s.left == 0 {
			k := copy(s.hdr[s.hdrN:], b)
			s.hdrN += k
			b = b[k:]
			if s.hdrN < h2FrameHeaderLen {
				return
			}
			s.hdrN = 0
			s.left = int(s.hdr[0])<<16 | int(s.hdr[1])<<8 | int(s.hdr[2])
			s.typ, s.flags = s.hdr[3], s.hdr[4]
			s.id = binary.BigEndian.Uint32(s.hdr[5:]) & 0x7fffffff
			c.frameStart()
			if s.left == 0 {
				c.frameEnd()
			}
			continue
		}
		k := min(len(b), s.left)
		if s.typ == h2FrameData {
			c.data(b[:k])
		}
		s.left -= k
		b = b[k:]
		if s.left == 0 {
			c.frameEnd()
		}
	}
}

func (c *stallConn) frameStart() {
	s := &c.in
	switch s.typ {
	case h2FrameHeaders:
		if s.flags&h2FlagEndStream != 0 {
			c.clientEnded(s.id)
			return
		}
		if _, ok := s.msgs[s.id]; ok {
			return // trailers, or a broken client: grpc-go answers it
		}
		c.mu.Lock()
		if !c.closed {
			c.open[s.id] = nil
			s.msgs[s.id] = msgScan{}
		}
		c.mu.Unlock()
	case h2FrameRSTStream:
		c.clientEnded(s.id)
	case h2FrameData:
		s.cur, s.curOK = s.msgs[s.id]
		s.needPad = s.flags&h2FlagPadded != 0
		s.dataLeft = s.left
	}
}

func (c *stallConn) frameEnd() {
	s := &c.in
	if s.typ == h2FrameData && s.curOK {
		s.curOK = false
		if _, ok := s.msgs[s.id]; ok { // not ended by the server meanwhile
			s.msgs[s.id] = s.cur
		}
		if s.flags&h2FlagEndStream != 0 {
			c.clientEnded(s.id)
		}
	}
}

// data follows the gRPC messages through b, part of a DATA frame's
// payload: a message that has arrived frees what was given for it.
func (c *stallConn) data(b []byte) {
	s := &c.in
	if s.needPad {
		s.needPad = false
		s.dataLeft -= 1 + int(b[0])
		b = b[1:]
	}
	b = b[:max(0, min(len(b), s.dataLeft))] // the padding is no message's
	s.dataLeft -= len(b)
	if !s.curOK {
		return
	}
	st := &s.cur
	for len(b) > 0 {
		if st.left > 0 {
			k := min(int64(len(b)), st.left)
			st.left -= k
			b = b[k:]
			if st.left == 0 {
				c.arrived(s.id)
			}
			continue
		}
		k := copy(st.prefix[st.prefixN:], b)
		st.prefixN += k
		b = b[k:]
		if st.prefixN == grpcPrefixLen {
			st.prefixN = 0
			if st.left = int64(binary.BigEndian.Uint32(st.prefix[1:])); st.left == 0 {
				c.arrived(s.id)
			}
		}
	}
}

// arrived releases what was given for st's message, which is in: grpc-go
// hands it to the handler, reading it is the handler's. The grants of a
// stream are all for its message arriving (grpc-go widens a window only
// for the message a handler is reading, and it reads them in order).
func (c *stallConn) arrived(id uint32) {
	c.mu.Lock()
	gs := c.open[id]
	if gs != nil {
		c.open[id] = nil
	}
	c.mu.Unlock()
	c.budget.release(gs)
}

// clientEnded is ended for the client's end of a stream (its last byte, or
// a reset), seen by the reading goroutine.
func (c *stallConn) clientEnded(id uint32) {
	delete(c.in.msgs, id)
	c.ended(id, false)
}

// ended forgets stream id and releases its grants: what grpc-go holds of
// a stream is freed when it ends. byServer: the reading goroutine forgets
// it when it next reads.
func (c *stallConn) ended(id uint32, byServer bool) {
	c.mu.Lock()
	gs, ok := c.open[id]
	if ok {
		delete(c.open, id)
		if byServer {
			c.gone = append(c.gone, id)
			c.hasGone.Store(true)
		}
	}
	c.mu.Unlock()
	c.budget.release(gs)
}

// Write passes grpc-go's frames on, whole, except the WINDOW_UPDATEs that
// widen a stream's window past its own, which wait for the budget
// (flushGrants writes them). The end of a frame grpc-go has not finished
// writing waits in tail, so that a held frame can be written between two
// whole ones.
func (c *stallConn) Write(p []byte) (int, error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.qmu.Lock()
	c.writing = true
	c.qmu.Unlock()
	data := p
	if len(c.tail) > 0 {
		c.tail = append(c.tail, p...)
		data = c.tail
	}
	var out []byte // nil while nothing is held back: data[:i] goes as it is
	i := 0
	for len(data)-i >= h2FrameHeaderLen {
		n := int(data[i])<<16 | int(data[i+1])<<8 | int(data[i+2])
		next := i + h2FrameHeaderLen + n
		if next > len(data) {
			break
		}
		typ, flags := data[i+3], data[i+4]
		id := binary.BigEndian.Uint32(data[i+5:]) & 0x7fffffff
		hold := false
		switch typ {
		case h2FrameWindowUp:
			if id != 0 && n == 4 {
				if inc := binary.BigEndian.Uint32(data[i+h2FrameHeaderLen:]) & 0x7fffffff; inc > c.budget.window {
					hold = c.hold(id, inc)
				}
			}
		case h2FrameRSTStream:
			c.ended(id, true)
		case h2FrameHeaders:
			if flags&h2FlagEndStream != 0 {
				c.ended(id, true)
			}
		}
		switch {
		case hold && out == nil:
			out = append(make([]byte, 0, len(data)), data[:i]...)
		case !hold && out != nil:
			out = append(out, data[i:next]...)
		}
		i = next
	}
	if out == nil {
		out = data[:i]
	}
	var err error
	if len(out) > 0 {
		_, err = c.Conn.Write(out)
	}
	c.tail = append(c.tail[:0], data[i:]...)
	c.qmu.Lock()
	gs := c.toWrite
	c.toWrite = nil
	c.writing = false
	c.qmu.Unlock()
	if err == nil {
		err = c.writeGrants(gs)
	}
	if err != nil {
		return 0, err
	}
	return len(p), nil
}

// hold charges a widening of stream id's window by inc to the budget and
// reports whether the frame waits for it. A stream the connection no
// longer knows has ended (or its client has sent its last byte): its
// window is moot, and the frame goes.
func (c *stallConn) hold(id, inc uint32) bool {
	c.mu.Lock()
	gs, ok := c.open[id]
	if !ok || c.closed {
		c.mu.Unlock()
		return false
	}
	g := &windowGrant{conn: c, stream: id, n: int64(inc)}
	c.open[id] = append(gs, g)
	c.mu.Unlock()
	c.budget.enqueue(g)
	return true
}

// given queues g's frame for writing, by the Write under way or else by
// flushGrants (called under budget.mu).
func (c *stallConn) given(g *windowGrant) {
	c.qmu.Lock()
	c.toWrite = append(c.toWrite, g)
	start := !c.writing && !c.flushing
	if start {
		c.flushing = true
	}
	c.qmu.Unlock()
	if start {
		go c.flushGrants()
	}
}

func (c *stallConn) flushGrants() {
	for {
		c.qmu.Lock()
		gs := c.toWrite
		c.toWrite = nil
		if len(gs) == 0 {
			c.flushing = false
			c.qmu.Unlock()
			return
		}
		c.qmu.Unlock()
		c.wmu.Lock()
		_ = c.writeGrants(gs) // a failed write ends the connection; grpc-go sees it
		c.wmu.Unlock()
	}
}

// writeGrants writes the WINDOW_UPDATEs of gs still wanted, between whole
// frames (under wmu).
func (c *stallConn) writeGrants(gs []*windowGrant) error {
	if len(gs) == 0 {
		return nil
	}
	buf := make([]byte, 0, len(gs)*(h2FrameHeaderLen+4))
	c.budget.mu.Lock()
	for _, g := range gs {
		if g.state != grantGiven {
			continue // released before it was written: the stream ended or its message arrived
		}
		buf = append(buf, 0, 0, 4, h2FrameWindowUp, 0)
		buf = binary.BigEndian.AppendUint32(buf, g.stream)
		buf = binary.BigEndian.AppendUint32(buf, uint32(g.n))
	}
	c.budget.mu.Unlock()
	if len(buf) == 0 {
		return nil
	}
	_, err := c.Conn.Write(buf)
	return err
}
