package server

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"
)

// The hostile-input suite: each test starts its own errsvc process (see
// hostile_h2_test.go) on loopback, attacks it in a bounded way, prints its
// figures with t.Logf and asserts bounds with margin. Latency bounds are
// about who holds a slot, not about CPU, so a loaded machine does not make
// them flaky.

const translateMethod = "/errsvc.v1.TranslationService/Translate"

// 64 gRPC messages each declaring the largest message grpc-go lets in (its
// cap, twice --max-request-bytes), sending 7/8 of it, then stalling. Before
// the bounds, 64 such streams pinned 490 MB with errsvc_in_flight_requests
// at 0.
func TestHostileStalledGRPCMessages(t *testing.T) {
	p := startProc(t)
	warm(t, p)
	base := p.kib(t, "VmRSS")

	const conns, perConn = 8, 8
	declared := 2 * DefaultMaxRequestBytes
	body := make([]byte, declared*7/8)
	var sent atomic.Int64
	var wg sync.WaitGroup
	var clients []*h2
	for range conns {
		h := dialH2(t, p.grpcAddr)
		clients = append(clients, h)
		for range perConn {
			id := h.open(t, translateMethod, false)
			wg.Go(func() { sent.Add(int64(h.send(id, grpcFrame(declared, body), false, 2*time.Second))) })
		}
	}
	wg.Wait() // every stream sent what it was allowed to, then stalled for 2 s
	time.Sleep(500 * time.Millisecond)
	inFlight := p.metric(t, "errsvc_in_flight_requests")
	receiving := p.metric(t, "errsvc_receiving_messages")
	peak := p.kib(t, "VmHWM")
	var refused int
	var statuses = map[string]int{}
	for _, h := range clients {
		_, _, _, st := h.counts()
		for k, v := range st {
			statuses[k] += v
			if k == fmt.Sprint(int(codes.ResourceExhausted)) {
				refused += v
			}
		}
	}
	growth := (peak - base) / 1024
	t.Logf("64 stalled messages (declared %d MiB, %d MiB each meant to arrive): client sent %d MiB in all; server RSS %d MiB before, peak %d MiB (growth %d MiB); in flight %v, receiving %v; answers so far: %s",
		declared>>20, len(body)>>20, sent.Load()>>20, base/1024, peak/1024, growth, inFlight, receiving, statusSummary(statuses))
	if growth >= 100 {
		t.Errorf("RSS grew by %d MiB under 64 stalled messages, want < 100 MiB", growth)
	}
	if sent.Load() > 100<<20 {
		t.Errorf("the server let %d MiB in, want at most its receive budget", sent.Load()>>20)
	}
	if inFlight < 1 || receiving < 1 {
		t.Errorf("stalled calls not counted: in flight %v, receiving %v", inFlight, receiving)
	}
	if refused == 0 {
		t.Error("no stalled call was refused by the receive budget")
	}
	// A well-behaved call from a fresh connection is answered within about
	// a second: OK if a receive slot is free, else a RESOURCE_EXHAUSTED
	// naming the receive budget, which a client retries after RetryInfo;
	// never a hang. (An attack spread over two or more connections can
	// hold the whole budget until --receive-timeout cuts it.)
	client := errsvcv1.NewTranslationServiceClient(dialGRPC(t, p))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	began := time.Now()
	_, err := client.Translate(ctx, validRequest())
	took := time.Since(began)
	t.Logf("a well-behaved call during the stall: %v after %v", status.Code(err), took.Round(time.Millisecond))
	if err != nil && (status.Code(err) != codes.ResourceExhausted || !strings.Contains(err.Error(), quotaReceiveBuffer)) {
		t.Errorf("a well-behaved call during the stall: %v", err)
	}
	if took > 3*time.Second {
		t.Errorf("a well-behaved call during the stall took %v", took)
	}
}

// A message that stops arriving is cut after --receive-timeout with
// DEADLINE_EXCEEDED (grpc-go's own status: it answers a failed receive
// itself), counted as receive_timeout, and its slot is freed.
func TestHostileReceiveTimeout(t *testing.T) {
	p := startProc(t, "--receive-timeout", "700ms")
	h := dialH2(t, p.grpcAddr)
	id := h.open(t, translateMethod, false)
	h.send(id, grpcFrame(1000, []byte("partial")), false, time.Second)
	began := time.Now()
	deadline := time.Now().Add(5 * time.Second)
	for {
		_, _, _, st := h.counts()
		if st[fmt.Sprint(int(codes.DeadlineExceeded))] == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no DEADLINE_EXCEEDED for a stalled message: %v", st)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("a message stalled after 7 of 1000 bytes was cut after %v", time.Since(began).Round(10*time.Millisecond))
	// grpc-go answers the failed receive itself, before the handler has
	// returned: the slot and the count follow within moments.
	settle := time.Now().Add(3 * time.Second)
	for time.Now().Before(settle) && (p.metric(t, "errsvc_in_flight_requests") != 0 ||
		p.metric(t, `errsvc_limit_exceeded_total{limit="receive_timeout"}`) != 1) {
		time.Sleep(20 * time.Millisecond)
	}
	if v := p.metric(t, "errsvc_in_flight_requests"); v != 0 {
		t.Errorf("in flight %v after the cut, want 0", v)
	}
	if v := p.metric(t, `errsvc_limit_exceeded_total{limit="receive_timeout"}`); v != 1 {
		t.Errorf("receive_timeout refusals %v, want 1", v)
	}
}

// A caller's own deadline bounds its message when it comes first (errsvc
// adds no timer then): a stalled message with grpc-timeout 300 ms is reset
// by grpc-go at the caller's deadline, which is not counted as errsvc's
// receive_timeout; one with grpc-timeout 30 s is still cut at
// --receive-timeout with DEADLINE_EXCEEDED.
func TestHostileReceiveTimeoutCallerDeadline(t *testing.T) {
	p := startProc(t, "--receive-timeout", "1500ms")
	h := dialH2(t, p.grpcAddr)
	began := time.Now()
	short := h.open(t, translateMethod, false, [2]string{"grpc-timeout", "300m"})
	long := h.open(t, translateMethod, false, [2]string{"grpc-timeout", "30S"})
	for _, id := range []uint32{short, long} {
		h.send(id, grpcFrame(1000, []byte("partial")), false, time.Second)
	}
	ended := func(id uint32) bool {
		h.mu.Lock()
		defer h.mu.Unlock()
		return h.reset[id] || h.status[id] != ""
	}
	waitFor := func(id uint32) time.Duration {
		deadline := time.Now().Add(5 * time.Second)
		for !ended(id) {
			if time.Now().After(deadline) {
				t.Fatalf("stream %d never ended", id)
			}
			time.Sleep(10 * time.Millisecond)
		}
		return time.Since(began)
	}
	if took := waitFor(short); took > time.Second {
		t.Errorf("the call with a 300 ms deadline ended after %v", took)
	}
	if took := waitFor(long); took < 1400*time.Millisecond || took > 4*time.Second {
		t.Errorf("the call with a 30 s deadline ended after %v, want --receive-timeout (1.5 s)", took)
	}
	h.mu.Lock()
	longStatus := h.status[long]
	h.mu.Unlock()
	if longStatus != fmt.Sprint(int(codes.DeadlineExceeded)) {
		t.Errorf("the call cut at --receive-timeout ended with grpc-status %q", longStatus)
	}
	settle := time.Now().Add(3 * time.Second)
	for time.Now().Before(settle) && p.metric(t, `errsvc_limit_exceeded_total{limit="receive_timeout"}`) != 1 {
		time.Sleep(20 * time.Millisecond)
	}
	if v := p.metric(t, `errsvc_limit_exceeded_total{limit="receive_timeout"}`); v != 1 {
		t.Errorf("receive_timeout refusals %v, want 1 (the caller's own deadline is not one)", v)
	}
}

// 32 parallel bodies of 60 KB nested 9,990 deep, over REST and over gRPC
// (a google.protobuf.Value tree): refused with a field violation before any
// decoder recurses. Before, they raised RSS by over 1 GiB.
func TestHostileDeepNesting(t *testing.T) {
	p := startProc(t)
	warm(t, p)
	base := p.kib(t, "VmRSS")
	const depth, parallel = 9990, 32
	rest := `{"agent_error":{"code":"TIMEOUT","details":{"a":` + strings.Repeat(`[`, depth) + strings.Repeat(`]`, depth) + `}}}`
	rest = rest + strings.Repeat(" ", max(0, 60000-len(rest)))
	var wire []byte // Value{list_value: ListValue{values: [Value{...}]}}
	for range depth {
		lv := append([]byte{0x0a}, protowire.AppendVarint(nil, uint64(len(wire)))...)
		lv = append(lv, wire...)
		wire = append([]byte{0x32}, protowire.AppendVarint(nil, uint64(len(lv)))...)
		wire = append(wire, lv...)
	}
	// agent_error (2) { code (1) = "TIMEOUT", details (4) = Struct{fields: {"a": wire}} }
	entry := append([]byte{0x0a, 0x01, 'a', 0x12}, protowire.AppendVarint(nil, uint64(len(wire)))...)
	entry = append(entry, wire...)
	st := append([]byte{0x0a}, protowire.AppendVarint(nil, uint64(len(entry)))...)
	st = append(st, entry...)
	ae := append([]byte{0x0a, 0x07}, "TIMEOUT"...)
	ae = append(append(ae, 0x22), protowire.AppendVarint(nil, uint64(len(st)))...)
	ae = append(ae, st...)
	req := append([]byte{0x12}, protowire.AppendVarint(nil, uint64(len(ae)))...)
	req = append(req, ae...)

	conn := dialGRPC(t, p)
	var wg sync.WaitGroup
	var restBad, grpcBad atomic.Int32
	var restField, grpcField atomic.Value
	for range parallel {
		wg.Go(func() {
			resp, err := http.Post("http://"+p.httpAddr+"/v1/translate", "application/json", strings.NewReader(rest))
			if err != nil {
				t.Errorf("REST: %v", err)
				return
			}
			b, _ := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusBadRequest && strings.Contains(string(b), "nested deeper than 64") {
				restBad.Add(1)
				restField.Store(string(b))
			}
		})
		wg.Go(func() {
			var out []byte
			err := conn.Invoke(context.Background(), translateMethod, req, &out, grpc.ForceCodec(rawCodec{}))
			if status.Code(err) == codes.InvalidArgument {
				grpcBad.Add(1)
				grpcField.Store(status.Convert(err).Message())
			}
		})
	}
	wg.Wait()
	peak := p.kib(t, "VmHWM")
	growth := (peak - base) / 1024
	t.Logf("%d parallel %d-byte REST bodies and %d %d-byte gRPC messages nested %d deep: %d and %d refused (%q; %q); RSS %d MiB before, peak %d MiB (growth %d MiB)",
		parallel, len(rest), parallel, len(req), depth, restBad.Load(), grpcBad.Load(), restField.Load(), grpcField.Load(), base/1024, peak/1024, growth)
	if restBad.Load() != parallel || grpcBad.Load() != parallel {
		t.Errorf("refused %d REST and %d gRPC of %d each, want all, with INVALID_ARGUMENT naming the field", restBad.Load(), grpcBad.Load(), parallel)
	}
	if s, _ := restField.Load().(string); !strings.Contains(s, `"field":"agent_error.details.a[0][0]`) {
		t.Errorf("REST violation does not name the path: %s", s)
	}
	if s, _ := grpcField.Load().(string); !strings.HasPrefix(s, "agent_error.details:") {
		t.Errorf("gRPC violation does not name the field: %s", s)
	}
	if growth >= 64 {
		t.Errorf("RSS grew by %d MiB, want < 64 MiB", growth)
	}
}

// Four sockets that trickle their body and four that never read a large
// answer, against --max-concurrent-requests 4: neither holds a slot, so a
// well-behaved gRPC or REST call is not delayed; the tricklers are refused
// 408 at the receive timeout. Before, they held every slot of both
// transports for 60 s or for ever.
func TestHostileSlowRESTClients(t *testing.T) {
	p := startProc(t, "--max-concurrent-requests", "4", "--receive-timeout", "2s")
	warm(t, p)
	var wg sync.WaitGroup
	trickled := make(chan string, 4)
	for range 4 {
		c, err := net.Dial("tcp", p.httpAddr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Close() })
		fmt.Fprintf(c, "POST /v1/translate HTTP/1.1\r\nHost: errsvc\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{")
		wg.Go(func() {
			go func() {
				for range 50 {
					if _, err := c.Write([]byte(" ")); err != nil {
						return
					}
					time.Sleep(100 * time.Millisecond)
				}
			}()
			_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
			line, _ := bufio.NewReader(c).ReadString('\n')
			trickled <- strings.TrimSpace(line)
		})
	}
	// Non-readers: pipelined batches whose answers (about 1 MB each) fill
	// the socket buffers, never read.
	items := strings.Repeat(validJSON+",", 999) + validJSON
	batch := `{"requests":[` + items + `]}`
	for range 4 {
		c, err := net.Dial("tcp", p.httpAddr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Close() })
		if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.SetReadBuffer(4096)
		}
		go func() {
			for range 8 {
				if _, err := fmt.Fprintf(c, "POST /v1/translate:batch HTTP/1.1\r\nHost: errsvc\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(batch), batch); err != nil {
					return
				}
			}
		}()
	}
	// The attack is in place once the batches they sent are translated and
	// their answers stuck in the sockets: the count of answered batches
	// stops moving. (Translating them is real work that takes slots; what
	// must not take a slot is waiting on a client.)
	batches := `errsvc_requests_total{code="OK",rpc="/errsvc.v1.TranslationService/TranslateBatch",transport="http"}`
	last, stable := -1.0, 0
	for deadline := time.Now().Add(20 * time.Second); stable < 5 && time.Now().Before(deadline); {
		time.Sleep(200 * time.Millisecond)
		n := p.metricOr(t, batches, 0)
		if n == last && n > 0 {
			stable++
		} else {
			stable = 0
		}
		last = n
	}
	inFlight := p.metric(t, "errsvc_in_flight_requests")
	if inFlight != 0 {
		t.Errorf("%v calls in flight while the slow clients only wait, want 0", inFlight)
	}
	worst := assertGRPCFast(t, p, "with slow REST clients")
	client := &http.Client{Timeout: 5 * time.Second}
	var restWorst time.Duration
	for range 10 {
		began := time.Now()
		resp, err := client.Post("http://"+p.httpAddr+"/v1/translate", "application/json", strings.NewReader(validJSON))
		d := time.Since(began)
		if err != nil {
			t.Fatalf("REST call: %v", err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("REST call answered %d while slow clients are connected", resp.StatusCode)
		}
		restWorst = max(restWorst, d)
	}
	wg.Wait()
	close(trickled)
	var answers []string
	for a := range trickled {
		answers = append(answers, a)
	}
	t.Logf("4 trickling + 4 non-reading REST sockets (%v batch answers stuck unread), --max-concurrent-requests 4: in flight %v; slowest of 10 gRPC calls %v, of 10 REST calls %v; tricklers answered %q",
		last, inFlight, worst.Round(time.Millisecond), restWorst.Round(time.Millisecond), answers)
	if restWorst > time.Second {
		t.Errorf("a REST call took %v, want < 1 s", restWorst)
	}
	for _, a := range answers {
		if !strings.Contains(a, "408") {
			t.Errorf("a trickling body was answered %q, want 408", a)
		}
	}
}

// 8 Connect and gRPC-Web sockets trickling a body for ever, under
// --max-concurrent-requests 4: they hold no slot (connect-go reads a body
// before the call takes one), gRPC calls meanwhile are not delayed, and
// each trickler is answered at --receive-timeout. Before, they were cut
// only by the HTTP server's read timeout, 10 s later.
func TestHostileSlowConnectClients(t *testing.T) {
	p := startProc(t, "--max-concurrent-requests", "4", "--receive-timeout", "2s")
	warm(t, p)
	type answer struct {
		took   time.Duration
		status string
	}
	answers := make(chan answer, 8)
	began := time.Now()
	for i := range 8 {
		c, err := net.Dial("tcp", p.httpAddr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Close() })
		// Connect's JSON, or a gRPC-Web message declaring 1000 bytes.
		ct, first := "application/json", "{"
		if i%2 == 1 {
			ct, first = "application/grpc-web+proto", "\x00\x00\x00\x03\xe8"
		}
		fmt.Fprintf(c, "POST /errsvc.v1.TranslationService/Translate HTTP/1.1\r\nHost: errsvc\r\nContent-Type: %s\r\nContent-Length: 100000\r\n\r\n%s", ct, first)
		go func() {
			for range 150 {
				if _, err := c.Write([]byte(" ")); err != nil {
					return
				}
				time.Sleep(100 * time.Millisecond)
			}
		}()
		go func() {
			_ = c.SetReadDeadline(time.Now().Add(15 * time.Second))
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				answers <- answer{time.Since(began), err.Error()}
				return
			}
			_ = resp.Body.Close()
			answers <- answer{time.Since(began), fmt.Sprintf("%d grpc-status %q", resp.StatusCode, resp.Header.Get("Grpc-Status"))}
		}()
	}
	time.Sleep(500 * time.Millisecond)
	inFlight := p.metric(t, "errsvc_in_flight_requests")
	if inFlight != 0 {
		t.Errorf("%v calls in flight while 8 Connect bodies trickle, want 0", inFlight)
	}
	worst := assertGRPCFast(t, p, "with trickling Connect clients")
	var got []answer
	var last time.Duration
	statuses := map[string]int{}
	for range 8 {
		a := <-answers
		got, last = append(got, a), max(last, a.took)
		statuses[a.status]++
	}
	t.Logf("8 trickling Connect and gRPC-Web bodies, --max-concurrent-requests 4, --receive-timeout 2s: in flight %v; slowest of 10 gRPC calls %v; tricklers answered %v, the last after %v",
		inFlight, worst.Round(time.Millisecond), statuses, last.Round(time.Millisecond))
	for _, a := range got {
		if a.took > 4*time.Second || (a.status != `504 grpc-status ""` && a.status != `200 grpc-status "4"`) {
			t.Errorf("a trickled body was answered %s after %v, want 504 (Connect) or DEADLINE_EXCEEDED (gRPC-Web) after about 2 s", a.status, a.took)
		}
	}
	if n := p.metric(t, `errsvc_limit_exceeded_total{limit="receive_timeout"}`); n != 8 {
		t.Errorf("receive_timeout refusals %v, want 8", n)
	}
}

// 20,000 health watches on one connection: HTTP/2 refuses streams past
// --max-streams-per-connection, and watches past --max-health-watches on
// all connections together are refused RESOURCE_EXHAUSTED. Before, 20,000
// watches on one connection added 256 MB.
func TestHostileHealthWatches(t *testing.T) {
	p := startProc(t, "--max-health-watches", "150")
	warm(t, p)
	base := p.kib(t, "VmRSS")
	empty := grpcFrame(0, nil)
	watch := func(h *h2, n int) {
		for range n {
			id := h.open(t, "/grpc.health.v1.Health/Watch", false)
			h.send(id, empty, true, time.Second)
		}
	}
	one := dialH2(t, p.grpcAddr)
	watch(one, 20000)
	two := dialH2(t, p.grpcAddr)
	watch(two, 100)
	time.Sleep(time.Second)
	refused, _, answered, st := one.counts()
	_, _, answered2, st2 := two.counts()
	open := p.metric(t, "errsvc_health_watches")
	exhausted := st[fmt.Sprint(int(codes.ResourceExhausted))] + st2[fmt.Sprint(int(codes.ResourceExhausted))]
	peak := p.kib(t, "VmHWM")
	t.Logf("20,000 watches on one connection: %d refused by HTTP/2 (REFUSED_STREAM), %d answered (%s); 100 more on a second connection: %d answered (%s); %v watches open; %d refused RESOURCE_EXHAUSTED; RSS %d MiB before, peak %d MiB",
		refused, answered, statusSummary(st), answered2, statusSummary(st2), open, exhausted, base/1024, peak/1024)
	if refused < 20000-DefaultMaxStreamsPerConn {
		t.Errorf("only %d of 20,000 streams refused on one connection, want all past %d", refused, DefaultMaxStreamsPerConn)
	}
	if open > 150 {
		t.Errorf("%v watches open, want at most the bound of 150", open)
	}
	if exhausted < 200-150 {
		t.Errorf("%d watches refused RESOURCE_EXHAUSTED, want at least the 50 past the bound", exhausted)
	}
	if (peak-base)/1024 > 64 {
		t.Errorf("RSS grew by %d MiB", (peak-base)/1024)
	}
}

// SIGTERM under load on both transports, at the defaults: no call that
// reached the server is lost. The load ignores readiness (a load balancer
// would not), so it keeps opening connections to the last moment: a call
// refused at connect, or whose fresh connection the kernel closes unread in
// the listener's backlog when the listener closes, never reached errsvc and
// is counted apart (net/http's Shutdown serves every connection it has
// accepted). What must never fail is a call on a reused keep-alive
// connection, which the client cannot tell from one that ran: the drain
// delay's "Connection: close" makes each client leave its connection after
// its next answer, before the drain closes it.
func TestHostileDrainUnderLoad(t *testing.T) {
	p := startProc(t, drainArgs...)
	conn := dialGRPC(t, p)
	client := errsvcv1.NewTranslationServiceClient(conn)
	transport := &http.Transport{MaxIdleConnsPerHost: 16}
	defer transport.CloseIdleConnections()
	rest := &http.Client{Transport: transport, Timeout: 20 * time.Second}

	var okREST, okGRPC, refusedREST, backlogREST, refusedGRPC atomic.Int64
	var mu sync.Mutex
	var lost []string
	lose := func(s string) {
		mu.Lock()
		lost = append(lost, s)
		mu.Unlock()
	}
	stop := make(chan struct{})
	var sigAt atomic.Value
	sigAt.Store(time.Now().Add(time.Hour))
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				// A reused keep-alive connection that fails is the loss the
				// drain must prevent: the client cannot tell whether its POST
				// ran. A fresh connection that is refused, or reset before the
				// server accepted it (it sat in the kernel's backlog when the
				// listener closed), ran nothing: refused, not lost.
				var reused atomic.Bool
				req, _ := http.NewRequestWithContext(httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
					GotConn: func(info httptrace.GotConnInfo) { reused.Store(info.Reused) },
				}), http.MethodPost, "http://"+p.httpAddr+"/v1/translate", strings.NewReader(validJSON))
				req.Header.Set("Content-Type", "application/json")
				resp, err := rest.Do(req)
				var op *net.OpError
				switch {
				case errors.As(err, &op) && op.Op == "dial":
					refusedREST.Add(1)
					time.Sleep(10 * time.Millisecond)
				case err != nil && !reused.Load():
					backlogREST.Add(1)
					time.Sleep(10 * time.Millisecond)
				case err != nil:
					lose(fmt.Sprintf("REST (reused connection: %v, %v after SIGTERM): %v", reused.Load(), time.Since(sigAt.Load().(time.Time)).Round(time.Millisecond), err))
				default:
					_, _ = io.Copy(io.Discard, resp.Body)
					_ = resp.Body.Close()
					switch {
					case resp.StatusCode == http.StatusOK:
						okREST.Add(1)
					case resp.StatusCode == http.StatusServiceUnavailable && resp.Header.Get("Retry-After") == "1":
						// The drain's "shutting down, go elsewhere": not
						// processed, safe to retry; a client waits as told.
						refusedREST.Add(1)
						time.Sleep(time.Second)
					default:
						lose(fmt.Sprintf("REST: HTTP %d", resp.StatusCode))
					}
				}
			}
		})
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				_, err := client.Translate(ctx, validRequest())
				cancel()
				switch {
				case err == nil:
					okGRPC.Add(1)
				case status.Code(err) == codes.Unavailable && strings.Contains(err.Error(), "connection refused"):
					refusedGRPC.Add(1)
					time.Sleep(10 * time.Millisecond)
				default:
					lose("gRPC: " + err.Error())
				}
			}
		})
	}
	time.Sleep(time.Second)
	before := okREST.Load() + okGRPC.Load()
	began := time.Now()
	sigAt.Store(began)
	p.sigterm(t)
	var exitErr error
	select {
	case exitErr = <-p.done:
		p.done <- exitErr // for the cleanup
	case <-time.After(30 * time.Second):
		t.Fatal("errsvc did not exit after SIGTERM")
	}
	took := time.Since(began)
	time.Sleep(300 * time.Millisecond)
	close(stop)
	wg.Wait()
	t.Logf("drain at the defaults under load (8 REST keep-alive + 8 gRPC callers): %d calls before SIGTERM; exit after %v (%v); answered OK %d REST, %d gRPC; refused (at connect after the listeners closed, or 503 shutting down) %d REST, %d gRPC; fresh REST connections closed unread in the listener's backlog %d; lost %d",
		before, took.Round(time.Millisecond), exitErr, okREST.Load(), okGRPC.Load(), refusedREST.Load(), refusedGRPC.Load(), backlogREST.Load(), len(lost))
	if exitErr != nil {
		t.Errorf("exit after SIGTERM: %v", exitErr)
	}
	if len(lost) > 0 {
		t.Errorf("%d calls lost in the drain, e.g. %v", len(lost), lost[:min(5, len(lost))])
	}
	if okREST.Load()-before/2 <= 0 || before == 0 {
		t.Errorf("too little load to mean anything: %d before, %d REST OK", before, okREST.Load())
	}
}

// drainArgs is empty (the defaults); a run with "--drain-delay", "0" shows
// the loss the defaults prevent.
var drainArgs []string

// warm makes a few calls so the baseline RSS is a serving process's.
func warm(t *testing.T, p *proc) {
	t.Helper()
	conn := dialGRPC(t, p)
	client := errsvcv1.NewTranslationServiceClient(conn)
	for range 20 {
		if _, err := client.Translate(context.Background(), validRequest()); err != nil {
			t.Fatal(err)
		}
		resp, err := http.Post("http://"+p.httpAddr+"/v1/translate", "application/json", strings.NewReader(validJSON))
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
	}
}

func dialGRPC(t *testing.T, p *proc) *grpc.ClientConn {
	t.Helper()
	conn, err := grpc.NewClient(p.grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return conn
}

// assertGRPCFast makes 10 well-behaved gRPC calls on a fresh connection and
// fails if one is refused or takes a second or more; it returns the slowest.
func assertGRPCFast(t *testing.T, p *proc, when string) time.Duration {
	t.Helper()
	client := errsvcv1.NewTranslationServiceClient(dialGRPC(t, p))
	var worst time.Duration
	for range 10 {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		began := time.Now()
		_, err := client.Translate(ctx, validRequest())
		d := time.Since(began)
		cancel()
		if err != nil {
			t.Errorf("gRPC call %s: %v", when, err)
		}
		worst = max(worst, d)
	}
	if worst > time.Second {
		t.Errorf("a gRPC call %s took %v, want < 1 s", when, worst)
	}
	return worst
}
