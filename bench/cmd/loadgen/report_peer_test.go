package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A result as bench/peer/throughput.py writes it (its field names), with
// figures chosen so every rendered number is told apart.
func samplePeer(t *testing.T) string {
	t.Helper()
	rows := []map[string]any{
		{"id": "litellm", "system": "LiteLLM `exception_type`", "transport": "in-process", "targets": "", "classifications": 3000, "attempts": 3000,
			"failed": 0, "wall_s": 1.5, "client_cpu_s": 1.05, "server_cpu_s": 0, "per_sec": 2000, "cpu_us_per_class": 350, "client_cpu_us_per_class": 350,
			"server_cpu_us_per_class": 0, "speed_vs_litellm": 1, "cpu_vs_litellm": 1, "class_right": 305},
		{"id": "batch-class", "system": "errsvc `TranslateBatch`", "transport": "gRPC, one batch per pass", "targets": "classification",
			"classifications": 36000, "attempts": 36001, "failed": 1, "wall_s": 1, "client_cpu_s": 0.108, "server_cpu_s": 0.828, "per_sec": 36000,
			"cpu_us_per_class": 26, "client_cpu_us_per_class": 3, "server_cpu_us_per_class": 23, "speed_vs_litellm": 18, "cpu_vs_litellm": 0.0743, "class_right": 367},
	}
	res := map[string]any{
		"started": "2026-12-01T13:00:00+00:00", "machine": map[string]any{"nproc": 2, "python": "3.11.7"},
		"versions":       map[string]string{"litellm": "1.110.2", "errsvc_client": "0.2.0", "grpcio": "1.85.1", "protobuf": "7.36.2", "httpx": "0.28.1"},
		"error_fixtures": 368, "fixtures": 367,
		"skipped":                          []map[string]string{{"name": "openrouter-x", "why": "no exception"}},
		"litellm_replay_agrees_with_route": 366,
		"litellm_replay_differs":           []map[string]any{{"name": "openrouter-y", "route": "permanent", "replay": "transient"}},
		"seconds_per_system":               4, "warmup_seconds": 1, "rounds": 2, "concurrency": 1, "loadavg": []float64{0.5, 1.25},
		"idle": map[string]float64{"client_cpu_s_per_s": 0.0016, "server_cpu_s_per_s": 0}, "rows": rows,
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "peer-throughput.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestPeerSection(t *testing.T) {
	md := peerSection(samplePeer(t))
	for _, want := range []string{
		peerTitle,
		"| LiteLLM `exception_type` | in-process | – | 2000 | 350 | 1.00× | 1.00× | 305 / 367 |",
		"| errsvc `TranslateBatch` | gRPC, one batch per pass | classification | 36000 | 26 (3 + 23) | 18.00× | 0.07× | 367 / 367 |",
		"same 367 error fixtures", "those of the 368", "`openrouter-x`: no exception",
		"366 of the 367", "`openrouter-y`: transient for the route's permanent", "1 calls failed", "LiteLLM 1.110.2", "in 2 rounds", "was on a CPU 70 % of its time, so **its speed column measures the machine's load", "load average 0.5 before and 1.2 after, on 2 cores",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("peer section lacks %q:\n%s", want, md)
		}
	}
	// Every table line has the header's number of cells.
	var cells int
	for _, line := range strings.Split(md, "\n") {
		if !strings.HasPrefix(line, "|") {
			continue
		}
		n := strings.Count(line, "|")
		if cells == 0 {
			cells = n
		} else if n != cells {
			t.Errorf("table line with %d bars, header has %d: %s", n, cells, line)
		}
	}
	if cells != 9 {
		t.Errorf("table header has %d bars, want 9", cells)
	}
}

func TestPeerSectionNotRun(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"rows": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"", filepath.Join(t.TempDir(), "missing.json"), bad} {
		md := peerSection(path)
		if !strings.HasPrefix(md, peerTitle) || !strings.Contains(md, "Not run") || strings.Contains(md, "| system |") {
			t.Errorf("peerSection(%q) = %q, want the title and Not run, no table", path, md)
		}
	}
}
