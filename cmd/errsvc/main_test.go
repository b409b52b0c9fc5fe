package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/errsvc/errsvc/server"
)

// TestMain lets a test re-run this binary as the real command.
func TestMain(m *testing.M) {
	if os.Getenv("ERRSVC_TEST_RUN_MAIN") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

func TestFlagBeatsEnvBeatsDefault(t *testing.T) {
	env := map[string]string{"ERRSVC_GRPC_ADDR": "127.0.0.1:7000", "ERRSVC_HTTP_ADDR": "127.0.0.1:7001"}
	for _, tc := range []struct {
		name           string
		args           []string
		env            map[string]string
		grpc, httpAddr string
	}{
		{"default", nil, nil, server.DefaultGRPCAddr, server.DefaultHTTPAddr},
		{"env", nil, env, "127.0.0.1:7000", "127.0.0.1:7001"},
		{"flag", []string{"--grpc-addr", ":1", "--http-addr=:2"}, env, ":1", ":2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts, err := parseServeFlags(tc.args, func(k string) string { return tc.env[k] }, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			if opts.GRPCAddr != tc.grpc || opts.HTTPAddr != tc.httpAddr {
				t.Errorf("got %s %s, want %s %s", opts.GRPCAddr, opts.HTTPAddr, tc.grpc, tc.httpAddr)
			}
		})
	}

	opts, err := parseServeFlags([]string{"--max-request-bytes", "10", "--max-batch-items", "3"}, os.Getenv, io.Discard)
	if err != nil || opts.MaxRequestBytes != 10 || opts.MaxBatchItems != 3 {
		t.Errorf("limits: %+v %v", opts, err)
	}
	if _, err := parseServeFlags([]string{"extra"}, os.Getenv, io.Discard); err == nil {
		t.Error("stray argument accepted")
	}
	if _, err := parseServeFlags([]string{"-h"}, os.Getenv, io.Discard); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-h: %v", err)
	}
}

func TestTranslateCommand(t *testing.T) {
	file := filepath.Join(t.TempDir(), "req.json")
	if err := os.WriteFile(file, []byte(`{"labby_error":{"kind":"rate_limited","message":"slow down"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, stdin string
		args        []string
		code        int
		stderr      string
	}{
		{"file", "", []string{file}, 0, ""},
		{"stdin camelCase", `{"labbyError":{"kind":"rate_limited","message":"m"}}`, nil, 0, ""},
		{"stdin dash", `{"labby_error":{"kind":"rate_limited","message":"m"}}`, []string{"-"}, 0, ""},
		{"unknown field", `{"labby_error":{"kind":"x"},"foo":1}`, nil, 0, ""},
		{"wrong type", `{"labby_error":{"kind":5}}`, nil, exitMalformed, "kind"},
		{"bad JSON", `{`, nil, exitMalformed, "body"},
		{"no source", `{}`, nil, exitMalformed, "source"},
		{"nested past the limit", `{"labby_error":` + strings.Repeat(`{"details":`, 70) + "1" + strings.Repeat("}", 71), nil, exitMalformed, "labby_error.details.details"},
		{"lone surrogate", `{"labby_error":{"kind":"x","message":"\ud800"}}`, nil, exitMalformed, "labby_error.message: string value is not valid text: lone UTF-16 surrogate"},
		{"missing file", "", []string{filepath.Join(t.TempDir(), "nope")}, exitFailure, "nope"},
		{"two files", "", []string{file, file}, exitMalformed, "usage"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr strings.Builder
			code := runTranslate(tc.args, strings.NewReader(tc.stdin), &stdout, &stderr)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr %s", code, tc.code, stderr.String())
			}
			if !strings.Contains(stderr.String(), tc.stderr) {
				t.Errorf("stderr %q lacks %q", stderr.String(), tc.stderr)
			}
			if code == 0 {
				var out map[string]any
				if err := json.Unmarshal([]byte(stdout.String()), &out); err != nil {
					t.Fatalf("output is not JSON: %v\n%s", err, stdout.String())
				}
				if strings.Contains(stdout.String(), "labbyError") {
					t.Errorf("output uses JSON names, want proto names:\n%s", stdout.String())
				}
			}
		})
	}
}

// TestServeStopsOnSIGTERM runs the command as a child process and checks the
// signal wiring end to end.
func TestServeStopsOnSIGTERM(t *testing.T) {
	cmd := exec.Command(os.Args[0], "--grpc-addr", "127.0.0.1:0", "--http-addr", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "ERRSVC_TEST_RUN_MAIN=1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })

	lines := bufio.NewScanner(stderr)
	var listening struct {
		Msg      string `json:"msg"`
		HTTPAddr string `json:"http_addr"`
	}
	for lines.Scan() {
		if json.Unmarshal(lines.Bytes(), &listening) == nil && listening.Msg == "errsvc listening" {
			break
		}
	}
	if listening.HTTPAddr == "" {
		t.Fatal("no listening log line")
	}
	resp, err := http.Get("http://" + listening.HTTPAddr + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/healthz: HTTP %d", resp.StatusCode)
	}

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		// Wait must follow the last read of the pipe.
		_, _ = io.Copy(io.Discard, stderr)
		done <- cmd.Wait()
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no exit after SIGTERM")
	}
}
