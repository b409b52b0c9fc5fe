package deploy

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/errsvc/errsvc/server"
	"go.yaml.in/yaml/v3"
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

	// Every errsvc series the alerts read is there before any failure.
	for _, name := range alertMetrics(t) {
		if !bytes.Contains(metrics, []byte("\n"+name+"{")) && !bytes.Contains(metrics, []byte("\n"+name+" ")) {
			t.Errorf("the alerts read %s, which a fresh errsvc does not expose", name)
		}
	}

	// The check can fail: a counter without the _total suffix.
	bad := exec.Command(bin, "check", "metrics")
	bad.Stdin = strings.NewReader("# HELP errsvc_calls Calls.\n# TYPE errsvc_calls counter\nerrsvc_calls 1\n")
	if out, err := bad.CombinedOutput(); err == nil {
		t.Errorf("promtool accepted a counter without _total: %s", out)
	}
}

// alertRules writes the rule groups of components/prometheusrule as a
// Prometheus rules file.
func alertRules(t *testing.T, dir string) string {
	t.Helper()
	var rule struct {
		Spec struct {
			Groups []any `yaml:"groups"`
		} `yaml:"spec"`
	}
	data, err := os.ReadFile(filepath.Join("kubernetes", "components", "prometheusrule", "prometheusrule.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, &rule); err != nil {
		t.Fatal(err)
	}
	out, err := yaml.Marshal(map[string]any{"groups": rule.Spec.Groups})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "rules.yaml")
	if err := os.WriteFile(file, out, 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

var metricName = regexp.MustCompile(`errsvc_[a-z_]+`)

// alertMetrics are the errsvc series names the alert expressions read
// (a histogram's _bucket as the family's series).
func alertMetrics(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(alertRules(t, t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, n := range metricName.FindAllString(string(data), -1) {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	if len(names) < 4 {
		t.Fatalf("alerts read only %v", names)
	}
	return names
}

// TestPromtoolRules checks the alert rules with promtool and runs their
// unit tests (testdata/alerts.test.yaml).
func TestPromtoolRules(t *testing.T) {
	bin := promtool(t)
	dir := t.TempDir()
	rules := alertRules(t, dir)
	if out, err := exec.Command(bin, "check", "rules", rules).CombinedOutput(); err != nil {
		t.Errorf("promtool check rules: %v\n%s", err, out)
	}
	tests, err := os.ReadFile(filepath.Join("testdata", "alerts.test.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	testFile := filepath.Join(dir, "alerts.test.yaml")
	if err := os.WriteFile(testFile, tests, 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(bin, "test", "rules", testFile).CombinedOutput(); err != nil {
		t.Errorf("promtool test rules: %v\n%s", err, out)
	}
}
