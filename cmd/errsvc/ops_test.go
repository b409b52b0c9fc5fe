package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/internal/version"
	"github.com/errsvc/errsvc/server"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
)

// runMain runs this test binary as the errsvc command.
func runMain(t *testing.T, env []string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), "ERRSVC_TEST_RUN_MAIN=1"), env...)
	return cmd
}

func TestVersionFlag(t *testing.T) {
	for _, arg := range []string{"--version", "-version", "version"} {
		out, err := runMain(t, nil, arg).Output()
		if err != nil {
			t.Fatalf("%s: %v", arg, err)
		}
		if got := strings.TrimSpace(string(out)); got != version.Get().String() || !strings.HasPrefix(got, "errsvc ") {
			t.Errorf("%s printed %q, want %q", arg, got, version.Get().String())
		}
	}
}

func TestTranslateHelp(t *testing.T) {
	for _, arg := range []string{"--help", "-h"} {
		var stdout, stderr strings.Builder
		if code := runTranslate([]string{arg}, strings.NewReader(""), &stdout, &stderr); code != 0 {
			t.Errorf("%s: exit %d, stderr %s", arg, code, stderr.String())
		}
		if strings.Count(stdout.String(), "usage: errsvc translate") != 1 || stderr.Len() != 0 {
			t.Errorf("%s: stdout %q stderr %q", arg, stdout.String(), stderr.String())
		}
	}
	// A file really named --help is still reachable.
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile("--help", []byte(`{"agent_error":{"code":"TIMEOUT"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr strings.Builder
	if code := runTranslate([]string{"--", "--help"}, strings.NewReader(""), &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "TIMEOUT") {
		t.Errorf("-- --help: exit %d, %s %s", code, stdout.String(), stderr.String())
	}
}

// startMain runs the command as a server and returns its gRPC address and
// its decoded log lines so far (up to "errsvc listening").
func startMain(t *testing.T, env []string, args ...string) (grpcAddr string, lines []map[string]any, stop func()) {
	t.Helper()
	cmd := runMain(t, env, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		_ = cmd.Process.Signal(os.Interrupt)
		go func() { _, _ = io.Copy(io.Discard, stderr) }()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
		}
	}
	t.Cleanup(stop)
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("log line is not JSON: %q", sc.Text())
		}
		lines = append(lines, m)
		if m["msg"] == "errsvc listening" {
			grpcAddr, _ = m["grpc_addr"].(string)
			break
		}
	}
	if grpcAddr == "" {
		t.Fatalf("no listening line: %v", lines)
	}
	return grpcAddr, lines, stop
}

// TestStartLogAndHealthcheck: the start log names the build; the
// healthcheck subcommand answers 0 while errsvc serves and 1 once it is
// gone; --allow-plaintext silences the plaintext WARN on 0.0.0.0.
func TestStartLogAndHealthcheck(t *testing.T) {
	for _, tc := range []struct {
		name     string
		env      []string
		args     []string
		wantWarn bool
	}{
		{"flag", nil, []string{"--grpc-addr=0.0.0.0:0", "--http-addr=127.0.0.1:0", "--allow-plaintext"}, false},
		{"env", []string{"ERRSVC_ALLOW_PLAINTEXT=true"}, []string{"--grpc-addr=0.0.0.0:0", "--http-addr=127.0.0.1:0"}, false},
		{"unsaid", nil, []string{"--grpc-addr=0.0.0.0:0", "--http-addr=127.0.0.1:0"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr, lines, stop := startMain(t, tc.env, tc.args...)
			b := version.Get()
			started := false
			for _, l := range lines {
				if l["msg"] == "errsvc starting" {
					started = l["version"] == b.Version && l["revision"] == b.Revision && l["go_version"] == b.GoVersion
				}
			}
			if !started {
				t.Errorf("no start line with the build %+v: %v", b, lines)
			}
			// The WARN follows the listening line; read what has come.
			if tc.wantWarn {
				return
			}
			var stdout, stderr strings.Builder
			if code := runHealthcheck([]string{"--addr", addr}, func(string) string { return "" }, &stdout, &stderr); code != 0 {
				t.Fatalf("healthcheck exit %d: %s", code, stderr.String())
			}
			if strings.TrimSpace(stdout.String()) != "SERVING" {
				t.Errorf("healthcheck printed %q", stdout.String())
			}
			// The environment's listen address works too, wildcard host and all.
			if code := runHealthcheck(nil, func(k string) string {
				if k == "ERRSVC_GRPC_ADDR" {
					return addr
				}
				return ""
			}, io.Discard, io.Discard); code != 0 {
				t.Errorf("healthcheck from ERRSVC_GRPC_ADDR=%s: exit %d", addr, code)
			}
			stop()
			if code := runHealthcheck([]string{"--addr", addr, "--timeout", "1s"}, func(string) string { return "" }, io.Discard, io.Discard); code != 1 {
				t.Errorf("healthcheck of a stopped server: exit %d, want 1", code)
			}
		})
	}
}

// TestPlaintextWarn checks the WARN itself through server.Serve's log.
func TestPlaintextWarn(t *testing.T) {
	for _, allow := range []bool{false, true} {
		var logs strings.Builder
		opts, err := parseServeFlags([]string{"--grpc-addr=0.0.0.0:0", "--http-addr=127.0.0.1:0", "--allow-plaintext=" + map[bool]string{true: "true", false: "false"}[allow]},
			func(string) string { return "" }, &syncWriter{w: &logs})
		if err != nil {
			t.Fatal(err)
		}
		srv, err := server.New(opts)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := contextWithCancel()
		done := make(chan error, 1)
		go func() { done <- srv.Serve(ctx) }()
		time.Sleep(100 * time.Millisecond)
		cancel()
		<-done
		warned := strings.Contains(logs.String(), "serving plaintext on a non-loopback address")
		if warned == allow {
			t.Errorf("--allow-plaintext=%v: warned %v\n%s", allow, warned, logs.String())
		}
	}
}

func TestHealthcheckUsage(t *testing.T) {
	if code := runHealthcheck([]string{"--addr", "no-port"}, func(string) string { return "" }, io.Discard, io.Discard); code != 2 {
		t.Errorf("bad address: exit %d", code)
	}
	if code := runHealthcheck([]string{"extra"}, func(string) string { return "" }, io.Discard, io.Discard); code != 2 {
		t.Errorf("stray argument: exit %d", code)
	}
	for in, want := range map[string]string{"0.0.0.0:9090": "127.0.0.1:9090", ":9090": "127.0.0.1:9090", "[::]:1": "[::1]:1", "10.0.0.1:5": "10.0.0.1:5"} {
		if got, _ := dialTarget(in); got != want {
			t.Errorf("dialTarget(%s) = %s, want %s", in, got, want)
		}
	}
}

type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

func contextWithCancel() (context.Context, context.CancelFunc) {
	return context.WithCancel(context.Background())
}

// TestOTLPExport: with OTEL_EXPORTER_OTLP_ENDPOINT set, the command exports
// the call's span, in the caller's trace, to the collector by OTLP/HTTP;
// without it, it sends nothing.
func TestOTLPExport(t *testing.T) {
	for _, enabled := range []bool{true, false} {
		var mu sync.Mutex
		var bodies [][]byte
		collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			mu.Lock()
			if r.URL.Path == "/v1/traces" {
				bodies = append(bodies, b)
			}
			mu.Unlock()
			w.Header().Set("Content-Type", "application/x-protobuf")
		}))
		env := []string{"OTEL_BSP_SCHEDULE_DELAY=50", "OTEL_EXPORTER_OTLP_ENDPOINT=", "OTEL_TRACES_EXPORTER="}
		if enabled {
			env = append(env, "OTEL_EXPORTER_OTLP_ENDPOINT="+collector.URL)
		} else {
			// The collector is reachable but not configured.
			env = append(env, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=")
		}
		addr, _, stop := startMain(t, env, "--grpc-addr=127.0.0.1:0", "--http-addr=127.0.0.1:0")
		conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			t.Fatal(err)
		}
		traceID := [16]byte{0xe5, 0x5e, 0xc0, 0xde, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
		tp := fmt.Sprintf("00-%x-%s-01", traceID, "00f067aa0ba902b7")
		ctx := metadata.AppendToOutgoingContext(context.Background(), "traceparent", tp)
		_, err = errsvcv1.NewTranslationServiceClient(conn).Translate(ctx, &errsvcv1.TranslateRequest{
			Source: &errsvcv1.TranslateRequest_AgentError{AgentError: &errsvcv1.AgentError{Code: "TIMEOUT"}}})
		_ = conn.Close()
		if err != nil {
			t.Fatal(err)
		}
		stop() // the shutdown flushes the batch
		collector.Close()
		mu.Lock()
		got := bytes.Contains(bytes.Join(bodies, nil), traceID[:])
		n := len(bodies)
		mu.Unlock()
		t.Logf("enabled %v: %d OTLP requests, trace id seen %v", enabled, n, got)
		if enabled && !got {
			t.Errorf("exporting: %d OTLP requests, none with the caller's trace id", n)
		}
		if !enabled && n > 0 {
			t.Errorf("not configured, yet %d OTLP requests", n)
		}
	}
}
