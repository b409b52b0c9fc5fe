package server

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// cpuTime is the process's user and system CPU time (/proc/PID/stat).
func (p *proc) cpuTime(t *testing.T) time.Duration {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+2:]))
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond // USER_HZ 100
}

// zeros is a gzip stream of n zero bytes (about n/1000 on the wire).
func zeros(t *testing.T, prefix string, n int) []byte {
	t.Helper()
	var b bytes.Buffer
	w, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	io.WriteString(w, prefix)
	chunk := make([]byte, 1<<20)
	for i := 0; i < n; i += len(chunk) {
		w.Write(chunk)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// A gzip bomb (a quarter of a MiB inflating to 256 MiB) on every transport
// of the binary at its defaults: REST, Connect, gRPC-Web and native gRPC
// each stop inflating at the size limit. Measured per transport: the CPU
// the server spent per bomb (at most 0.15 s: inflating all 256 MiB costs
// several times that, and a CI machine under load once measured 102 ms
// for a stopped one, in 10 ms ticks) and its peak RSS growth (at most
// 128 MiB), four bombs each.
func TestHostileGzipBombsOnEveryTransport(t *testing.T) {
	const inflated, bombs = 256 << 20, 4
	json := zeros(t, `{"labby_error":{"kind":"x","message":"`, inflated)
	pb := zeros(t, "\x0a", inflated) // a protobuf field 1 (labby_error) whose length never ends
	frame := func(body []byte) []byte {
		out := make([]byte, 5, 5+len(body))
		out[0] = 1 // compressed
		binary.BigEndian.PutUint32(out[1:], uint32(len(body)))
		return append(out, body...)
	}
	post := func(p *proc, path, contentType string, headers map[string]string, body []byte) string {
		req, _ := http.NewRequest(http.MethodPost, "http://"+p.httpAddr+path, bytes.NewReader(body))
		req.Header.Set("Content-Type", contentType)
		for k, v := range headers {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return fmt.Sprintf("HTTP %d %s %s", resp.StatusCode, resp.Header.Get("Grpc-Status"), bytes.TrimSpace(b[:min(len(b), 120)]))
	}
	for _, c := range []struct {
		name string
		send func(p *proc) string
	}{
		{"REST", func(p *proc) string {
			return post(p, "/v1/translate", "application/json", map[string]string{"Content-Encoding": "gzip"}, json)
		}},
		{"Connect", func(p *proc) string {
			return post(p, "/errsvc.v1.TranslationService/Translate", "application/json", map[string]string{"Content-Encoding": "gzip"}, json)
		}},
		{"gRPC-Web", func(p *proc) string {
			return post(p, "/errsvc.v1.TranslationService/Translate", "application/grpc-web+proto", map[string]string{"Grpc-Encoding": "gzip"}, frame(pb))
		}},
		{"gRPC", func(p *proc) string {
			h := dialH2(t, p.grpcAddr)
			id := h.open(t, errsvcv1.TranslationService_Translate_FullMethodName, false, [2]string{"grpc-encoding", "gzip"})
			h.send(id, frame(pb), true, 5*time.Second)
			for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
				h.mu.Lock()
				st, reset := h.status[id], h.reset[id]
				h.mu.Unlock()
				if st != "" || reset {
					return "grpc-status " + st
				}
			}
			return "no answer"
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := startProc(t)
			warm(t, p)
			base, cpu0 := p.kib(t, "VmRSS"), p.cpuTime(t)
			var answers []string
			for range bombs {
				answers = append(answers, c.send(p))
			}
			cpu := (p.cpuTime(t) - cpu0) / bombs
			growth := (p.kib(t, "VmHWM") - base) / 1024
			t.Logf("%s: %d bombs of %d MiB: %.0f ms CPU each, peak RSS +%d MiB; answer %q", c.name, bombs, inflated>>20, float64(cpu)/float64(time.Millisecond), growth, answers[0])
			if cpu > 150*time.Millisecond {
				t.Errorf("%s: a bomb cost %v of CPU, want at most 150 ms", c.name, cpu)
			}
			if growth > 128 {
				t.Errorf("%s: RSS grew by %d MiB, want at most 128", c.name, growth)
			}
		})
	}
}
