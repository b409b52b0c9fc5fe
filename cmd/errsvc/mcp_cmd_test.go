package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"
)

// TestMCPCommand speaks MCP to `errsvc mcp` over its stdin and stdout, as a
// client that launches it does: initialize, tools/list, a call, and a clean
// exit when stdin closes. Logs stay off stdout.
func TestMCPCommand(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr strings.Builder
	done := make(chan int, 1)
	go func() {
		done <- runMCP(ctx, []string{"--log-level", "DEBUG"}, func(string) string { return "" }, inR, outW, &stderr)
		_ = outW.Close()
	}()
	lines := bufio.NewScanner(outR)
	lines.Buffer(make([]byte, 1<<20), 16<<20)
	ask := func(msg string) map[string]any {
		t.Helper()
		if _, err := io.WriteString(inW, msg+"\n"); err != nil {
			t.Fatal(err)
		}
		if !lines.Scan() {
			t.Fatalf("no answer to %s: %v", msg, lines.Err())
		}
		var out map[string]any
		if err := json.Unmarshal(lines.Bytes(), &out); err != nil {
			t.Fatalf("stdout holds a line that is not JSON-RPC: %q", lines.Text())
		}
		return out
	}
	init := ask(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	if init["result"] == nil {
		t.Fatalf("initialize: %v", init)
	}
	if _, err := io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	list := ask(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	b, _ := json.Marshal(list)
	for _, tool := range []string{`"translate"`, `"decide"`, `"explain"`} {
		if !strings.Contains(string(b), tool) {
			t.Errorf("tools/list lacks %s", tool)
		}
	}
	call := ask(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"decide","arguments":{"request":{"labby_error":{"kind":"rate_limited","message":"m","recovery":{"retry_after_ms":2000}}}}}}`)
	res, _ := call["result"].(map[string]any)
	sc, _ := res["structuredContent"].(map[string]any)
	if sc["action"] != "retry" || sc["retry_after_secs"] != 2.0 {
		t.Errorf("decide: %v", call)
	}
	_ = inW.Close()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d after stdin closed; stderr %s", code, stderr.String())
		}
	case <-ctx.Done():
		t.Fatal("errsvc mcp did not exit when stdin closed")
	}
}

func TestMCPCommandFlags(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
		code int
		err  string
	}{
		{"help", []string{"-h"}, nil, 0, "usage: errsvc mcp"},
		{"unknown flag", []string{"--nope"}, nil, exitMalformed, "nope"},
		{"argument", []string{"extra"}, nil, exitMalformed, `unexpected argument "extra"`},
		{"bad env", nil, map[string]string{"ERRSVC_MAX_REQUEST_BYTES": "lots"}, exitMalformed, "ERRSVC_MAX_REQUEST_BYTES"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr strings.Builder
			code := runMCP(context.Background(), tc.args, func(k string) string { return tc.env[k] },
				io.NopCloser(strings.NewReader("")), nopCloser{&stdout}, &stderr)
			if code != tc.code || !strings.Contains(stderr.String(), tc.err) {
				t.Errorf("exit %d, stderr %q; want %d with %q", code, stderr.String(), tc.code, tc.err)
			}
			if stdout.Len() > 0 {
				t.Errorf("stdout %q: only JSON-RPC belongs there", stdout.String())
			}
		})
	}
}
