package deploy

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/errsvc/errsvc/server"
)

// promtool is pinned; it builds from the Go module proxy into the user
// cache on first use (some minutes: Prometheus is a large module).
const promtoolModule = "github.com/prometheus/prometheus/cmd/promtool@v0.316.0"

func promtool(t *testing.T) string {
	t.Helper()
	goTool := needTool(t, "go")
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "errsvc", "promtool-"+strings.SplitN(promtoolModule, "@", 2)[1])
	bin := filepath.Join(dir, "promtool")
	if _, err := os.Stat(bin); err == nil {
		return bin
	}
	tmp := dir + ".tmp"
	_ = os.RemoveAll(tmp)
	cmd := exec.Command(goTool, "install", promtoolModule)
	cmd.Env = append(os.Environ(), "GOBIN="+tmp, "GOFLAGS=-mod=mod")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go install %s: %v\n%s", promtoolModule, err, out)
	}
	if err := os.Rename(tmp, dir); err != nil {
		_ = os.RemoveAll(tmp)
	}
	return bin
}

// TestPromtoolCheckMetrics scrapes a running errsvc, after calls on both
// transports, and has promtool check the exposition.
func TestPromtoolCheckMetrics(t *testing.T) {
	bin := promtool(t)
	srv, err := server.New(server.Options{GRPCAddr: "127.0.0.1:0", HTTPAddr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx) }()
	defer func() { cancel(); <-done }()
	base := "http://" + srv.HTTPAddr()
	for _, body := range []string{`{"labby_error":{"kind":"rate_limited","message":"m"}}`, `{}`} {
		resp, err := http.Post(base+"/v1/translate", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
	}
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	metrics, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()

	check := exec.Command(bin, "check", "metrics")
	check.Stdin = bytes.NewReader(metrics)
	if out, err := check.CombinedOutput(); err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}

	// The check can fail: a counter without the _total suffix.
	bad := exec.Command(bin, "check", "metrics")
	bad.Stdin = strings.NewReader("# HELP errsvc_calls Calls.\n# TYPE errsvc_calls counter\nerrsvc_calls 1\n")
	if out, err := bad.CombinedOutput(); err == nil {
		t.Errorf("promtool accepted a counter without _total: %s", out)
	}
}
