package server

import (
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"google.golang.org/grpc/grpclog"
)

// TestGRPCLogIsJSON: what grpc-go and grpc-gateway write through grpclog
// comes out as JSON lines at the mapped level.
func TestGRPCLogIsJSON(t *testing.T) {
	var buf syncBuffer
	l := GRPCLogger(slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	var _ grpclog.LoggerV2 = l
	exited := 0
	exit = func(int) { exited++ }
	t.Cleanup(func() { exit = defaultExit })

	l.Infof("channel %d: %s", 3, "idle")
	l.Warningln("transport", "closing")
	l.Error("Failed to write response: ", "broken pipe")
	l.Fatalf("cannot %s", "continue")
	want := []struct{ level, msg string }{
		{"DEBUG", "channel 3: idle"},
		{"WARN", "transport closing"},
		{"ERROR", "Failed to write response: broken pipe"},
		{"ERROR", "cannot continue"},
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), buf.String())
	}
	for i, line := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("not JSON: %q", line)
		}
		if m["level"] != want[i].level || m["msg"] != want[i].msg || m["logger"] != "grpc" {
			t.Errorf("line %d: %v, want %s %q", i, m, want[i].level, want[i].msg)
		}
	}
	if exited != 1 {
		t.Errorf("Fatal exited %d times", exited)
	}
	if !l.V(0) || l.V(2) {
		t.Error("verbosity")
	}
}
