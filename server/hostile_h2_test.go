package server

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// The hostile-input suite (hostile_test.go) drives a real errsvc binary
// built from ./cmd/errsvc, so that memory is the server's own (VmRSS and
// VmHWM of its process) and not the test's, and attacks the gRPC port with
// a raw HTTP/2 client that can do what no gRPC library does: declare a large
// message and stop half way, or open streams without waiting for quota.

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// errsvcBinary builds ./cmd/errsvc once per test process.
func errsvcBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "errsvc-hostile-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "errsvc")
		out, err := exec.Command("go", "build", "-o", binPath, "../cmd/errsvc").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build ./cmd/errsvc: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// proc is one errsvc process on loopback ports the kernel chose.
type proc struct {
	cmd      *exec.Cmd
	grpcAddr string
	httpAddr string
	done     chan error
}

func startProc(t *testing.T, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(errsvcBinary(t), append([]string{"--grpc-addr", "127.0.0.1:0", "--http-addr", "127.0.0.1:0"}, args...)...)
	// The defaults cmd/errsvc applies (GOGC 400 when unset) are the ones
	// measured; nothing of the test's environment leaks in.
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &proc{cmd: cmd, done: make(chan error, 1)}
	lines := bufio.NewScanner(stderr)
	for lines.Scan() {
		var l struct {
			Msg      string `json:"msg"`
			GRPCAddr string `json:"grpc_addr"`
			HTTPAddr string `json:"http_addr"`
		}
		if json.Unmarshal(lines.Bytes(), &l) == nil && l.Msg == "errsvc listening" {
			p.grpcAddr, p.httpAddr = l.GRPCAddr, l.HTTPAddr
			break
		}
	}
	if p.grpcAddr == "" {
		_ = cmd.Process.Kill()
		t.Fatal("errsvc printed no listening line")
	}
	go func() {
		_, _ = io.Copy(io.Discard, stderr)
		p.done <- cmd.Wait()
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-p.done
	})
	return p
}

// kib reads a field of /proc/PID/status, in KiB.
func (p *proc) kib(t *testing.T, field string) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		t.Fatalf("read /proc status: %v", err)
	}
	m := regexp.MustCompile(`(?m)^` + field + `:\s+(\d+) kB`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("no %s in /proc status", field)
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

// metric reads one sample of the server's /metrics, by its whole series
// name (labels included), failing when it is absent.
func (p *proc) metric(t *testing.T, name string) float64 {
	t.Helper()
	v, ok := p.sample(t, name)
	if !ok {
		t.Fatalf("no %s in /metrics", name)
	}
	return v
}

// metricOr is metric with a value for an absent series.
func (p *proc) metricOr(t *testing.T, name string, def float64) float64 {
	t.Helper()
	if v, ok := p.sample(t, name); ok {
		return v
	}
	return def
}

func (p *proc) sample(t *testing.T, name string) (float64, bool) {
	t.Helper()
	resp, err := http.Get("http://" + p.httpAddr + "/metrics")
	if err != nil {
		t.Fatalf("/metrics: %v", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + ` (\S+)$`).FindSubmatch(body)
	if m == nil {
		return 0, false
	}
	v, _ := strconv.ParseFloat(string(m[1]), 64)
	return v, true
}

func (p *proc) sigterm(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
}

// h2 is a raw HTTP/2 client connection: it follows flow control (so what it
// sends is what a conforming peer may send) but nothing else a gRPC client
// would do for the server's sake.
type h2 struct {
	conn net.Conn
	fr   *http2.Framer
	wmu  sync.Mutex // framer writes
	enc  *hpack.Encoder
	hbuf bytes.Buffer

	mu        sync.Mutex
	cond      *sync.Cond
	connWin   int64
	initWin   int64
	streamWin map[uint32]int64
	// What came back, per stream.
	refused  map[uint32]bool // RST_STREAM REFUSED_STREAM
	reset    map[uint32]bool // any RST_STREAM
	status   map[uint32]string
	answered map[uint32]bool // response HEADERS seen
	closed   bool
	nextID   uint32
}

func dialH2(t *testing.T, addr string) *h2 {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	h := &h2{conn: c, fr: http2.NewFramer(c, c), connWin: 65535, initWin: 65535, streamWin: map[uint32]int64{},
		refused: map[uint32]bool{}, reset: map[uint32]bool{}, status: map[uint32]string{}, answered: map[uint32]bool{}, nextID: 1}
	h.cond = sync.NewCond(&h.mu)
	h.enc = hpack.NewEncoder(&h.hbuf)
	h.fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	h.fr.MaxHeaderListSize = 1 << 20
	if _, err := io.WriteString(c, http2.ClientPreface); err != nil {
		t.Fatal(err)
	}
	if err := h.fr.WriteSettings(); err != nil {
		t.Fatal(err)
	}
	go h.read()
	t.Cleanup(func() { _ = c.Close() })
	return h
}

func (h *h2) read() {
	defer func() {
		h.mu.Lock()
		h.closed = true
		h.cond.Broadcast()
		h.mu.Unlock()
	}()
	for {
		f, err := h.fr.ReadFrame()
		if err != nil {
			return
		}
		h.mu.Lock()
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if !f.IsAck() {
				if v, ok := f.Value(http2.SettingInitialWindowSize); ok {
					delta := int64(v) - h.initWin
					h.initWin = int64(v)
					for id := range h.streamWin {
						h.streamWin[id] += delta
					}
				}
				h.mu.Unlock()
				h.write(func() error { return h.fr.WriteSettingsAck() })
				h.mu.Lock()
			}
		case *http2.WindowUpdateFrame:
			if f.StreamID == 0 {
				h.connWin += int64(f.Increment)
			} else {
				h.streamWin[f.StreamID] += int64(f.Increment)
			}
		case *http2.RSTStreamFrame:
			h.reset[f.StreamID] = true
			if f.ErrCode == http2.ErrCodeRefusedStream {
				h.refused[f.StreamID] = true
			}
		case *http2.MetaHeadersFrame:
			h.answered[f.StreamID] = true
			if v := f.PseudoValue("status"); v != "" && v != "200" {
				h.status[f.StreamID] = "http " + v
			}
			for _, hf := range f.RegularFields() {
				if hf.Name == "grpc-status" {
					h.status[f.StreamID] = hf.Value
				}
			}
		case *http2.PingFrame:
			if !f.IsAck() {
				data := f.Data
				h.mu.Unlock()
				h.write(func() error { return h.fr.WritePing(true, data) })
				h.mu.Lock()
			}
		case *http2.GoAwayFrame:
			h.closed = true
		}
		h.cond.Broadcast()
		h.mu.Unlock()
	}
}

func (h *h2) write(fn func() error) error {
	h.wmu.Lock()
	defer h.wmu.Unlock()
	return fn()
}

// open starts a gRPC call to method and returns its stream id.
func (h *h2) open(t *testing.T, method string, endStream bool, extra ...[2]string) uint32 {
	t.Helper()
	h.mu.Lock()
	id := h.nextID
	h.nextID += 2
	h.streamWin[id] = h.initWin
	h.mu.Unlock()
	err := h.write(func() error {
		h.hbuf.Reset()
		for _, f := range [][2]string{{":method", "POST"}, {":scheme", "http"}, {":path", method}, {":authority", "errsvc"},
			{"content-type", "application/grpc"}, {"te", "trailers"}} {
			_ = h.enc.WriteField(hpack.HeaderField{Name: f[0], Value: f[1]})
		}
		for _, f := range extra {
			_ = h.enc.WriteField(hpack.HeaderField{Name: f[0], Value: f[1]})
		}
		return h.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: h.hbuf.Bytes(), EndHeaders: true, EndStream: endStream})
	})
	if err != nil {
		t.Fatalf("write HEADERS: %v", err)
	}
	return id
}

// send writes b on stream id as flow control allows, giving up when no
// window opens for idle; it returns how much was sent.
func (h *h2) send(id uint32, b []byte, end bool, idle time.Duration) int {
	sent := 0
	for sent < len(b) || (end && sent == 0 && len(b) == 0) {
		h.mu.Lock()
		deadline := time.Now().Add(idle)
		for !h.closed && !h.reset[id] && (h.connWin <= 0 || h.streamWin[id] <= 0) && time.Now().Before(deadline) {
			timer := time.AfterFunc(50*time.Millisecond, h.cond.Broadcast)
			h.cond.Wait()
			timer.Stop()
		}
		n := min(int64(len(b)-sent), h.connWin, h.streamWin[id], 16384)
		if h.closed || h.reset[id] || (n <= 0 && len(b) > 0) {
			h.mu.Unlock()
			return sent
		}
		h.connWin -= n
		h.streamWin[id] -= n
		h.mu.Unlock()
		last := end && sent+int(n) == len(b)
		if err := h.write(func() error { return h.fr.WriteData(id, last, b[sent:sent+int(n)]) }); err != nil {
			return sent
		}
		sent += int(n)
		if len(b) == 0 {
			break
		}
	}
	return sent
}

// grpcFrame is a gRPC message prefix declaring n bytes, then body.
func grpcFrame(n int, body []byte) []byte {
	out := make([]byte, 5, 5+len(body))
	binary.BigEndian.PutUint32(out[1:], uint32(n))
	return append(out, body...)
}

// counts reports, under the lock, how many streams got each outcome.
func (h *h2) counts() (refused, reset, answered int, statuses map[string]int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	statuses = map[string]int{}
	for _, s := range h.status {
		statuses[s]++
	}
	return len(h.refused), len(h.reset), len(h.answered), statuses
}

func statusSummary(m map[string]int) string {
	var parts []string
	for k, v := range m {
		parts = append(parts, fmt.Sprintf("grpc-status %s: %d", k, v))
	}
	return strings.Join(parts, ", ")
}
