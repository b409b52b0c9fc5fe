package adapters_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// docExamples returns the fenced blocks of docs/INTEGRATIONS.md marked
// <!-- example: NAME -->, by name.
func docExamples(t *testing.T) map[string]string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "INTEGRATIONS.md"))
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile("(?s)<!-- example: ([a-z0-9-]+) -->\\s*```[a-z]+\\n(.*?)```")
	out := map[string]string{}
	for _, m := range re.FindAllStringSubmatch(string(raw), -1) {
		out[m[1]] = m[2]
	}
	return out
}

// runGoExample writes the example into a directory of testdata (inside the
// module, so its imports resolve) and runs it with env; it must print ok.
func runGoExample(t *testing.T, src string, env ...string) {
	t.Helper()
	dir, err := os.MkdirTemp("testdata", "docexample-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "run", "./"+filepath.ToSlash(dir))
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "ok" {
		t.Fatalf("go run: %v\n%s", err, out)
	}
}

// The Go examples of docs/INTEGRATIONS.md run against the mock provider
// (a rate-limit 429, then 200) and a health service UNAVAILABLE once.
func TestDocExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("go run of the docs examples")
	}
	ex := docExamples(t)
	for _, name := range []string{"go-roundtripper", "go-interceptor"} {
		if ex[name] == "" {
			t.Fatalf("docs/INTEGRATIONS.md has no example %q", name)
		}
	}
	s := loadScenario(t)
	m := newMockProvider(t, s)
	runGoExample(t, ex["go-roundtripper"], "OPENAI_BASE_URL="+m.URL+"/rate_limit_429/v1", "OPENAI_API_KEY=sk-test")
	if calls, _ := m.took("rate_limit_429"); calls != 2 {
		t.Errorf("go-roundtripper: %d calls, want 2 (the 429, then 200)", calls)
	}

	h := startHealth(t, []grpcStep{{name: "", errs: []*status.Status{status.New(codes.Unavailable, "restarting")}}})
	addr := serveHealth(t, h)
	runGoExample(t, ex["go-interceptor"], "GRPC_TARGET="+addr)
	if h.calls[""] != 2 {
		t.Errorf("go-interceptor: %d calls, want 2 (UNAVAILABLE, then SERVING)", h.calls[""])
	}
}
