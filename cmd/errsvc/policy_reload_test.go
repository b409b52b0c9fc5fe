package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func gpuPolicyYAML(version, class string, status int) string {
	return "version: " + version + "\nkinds:\n  - kind: gpu_out_of_memory\n    meaning: The model server ran out of GPU memory.\n    class: " + class +
		"\n    http_status: " + itoa(status) + "\n    agent_code: EXECUTION_FAILED\n"
}

func itoa(n int) string {
	s := ""
	for ; n > 0; n /= 10 {
		s = string(rune('0'+n%10)) + s
	}
	return s
}

// eventually polls cond for up to 5 s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("not within 5 s: %s", what)
}

// A change of the file swaps the policy in; a file that does not load
// keeps the one before it and says why; SIGHUP reloads as a change does.
func TestPolicyReloadsOnChangeAndSIGHUP(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "policy.yaml")
	write := func(s string) {
		t.Helper()
		// As an editor or a ConfigMap does: a new file renamed over the old.
		tmp := filepath.Join(dir, ".policy.yaml.tmp")
		if err := os.WriteFile(tmp, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, path); err != nil {
			t.Fatal(err)
		}
	}
	write(gpuPolicyYAML("v1", "transient", 503))
	holder, err := loadPolicyHolder(path)
	if err != nil || holder.Load().Version() != "v1" {
		t.Fatalf("load: %v", err)
	}
	logger := slog.New(slog.NewJSONHandler(io.Discard, nil))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go startPolicyWatch(path, holder, logger, true).run(ctx)

	write(gpuPolicyYAML("v2", "permanent", 409))
	eventually(t, "the change is loaded", func() bool { return holder.Load().Version() == "v2" })

	write(gpuPolicyYAML("v3", "transiant", 503))
	eventually(t, "the bad file is refused", func() bool { return holder.LastError() != "" })
	if v := holder.Load().Version(); v != "v2" {
		t.Errorf("after a refused reload the policy is %s, want v2", v)
	}
	if e := holder.LastError(); !strings.Contains(e, "policy.yaml:") || !strings.Contains(e, `did you mean "transient"`) {
		t.Errorf("the refusal does not name the place and the fix: %s", e)
	}
	cancel()

	// SIGHUP alone, with no file watch: nothing changes until the signal.
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	w := startPolicyWatch(path, holder, logger, false)
	go w.run(ctx2)
	write(gpuPolicyYAML("v4", "transient", 503))
	time.Sleep(400 * time.Millisecond)
	if v := holder.Load().Version(); v != "v2" {
		t.Fatalf("reloaded without a signal: %s", v)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	eventually(t, "SIGHUP reloads", func() bool { return holder.Load().Version() == "v4" && holder.LastError() == "" })
}

// The flag, its variable, and a policy that does not load stops the start.
func TestPolicyFlagAndBadPolicyAtStart(t *testing.T) {
	opts, err := parseServeFlags(nil, func(k string) string {
		if k == "ERRSVC_POLICY" {
			return "/etc/errsvc/policy"
		}
		return ""
	}, io.Discard)
	if err != nil || opts.PolicyPath != "/etc/errsvc/policy" {
		t.Fatalf("ERRSVC_POLICY: %q %v", opts.PolicyPath, err)
	}
	bad := filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(bad, []byte("kindz: []\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := runMain(t, nil, "--policy", bad, "--grpc-addr", "127.0.0.1:0", "--http-addr", "127.0.0.1:0").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "policy.yaml:1:1") || !strings.Contains(string(out), "kinds") {
		t.Errorf("a bad policy at start: %v %s", err, out)
	}
}

// `errsvc translate --policy` answers as the server under the same file.
func TestTranslateCommandUnderAPolicy(t *testing.T) {
	path := filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(path, []byte(gpuPolicyYAML("v1", "transient", 503)), 0o600); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr strings.Builder
	req := `{"labby_error":{"kind":"gpu_out_of_memory"}}`
	if code := runTranslate([]string{"--policy", path}, strings.NewReader(req), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), `"http_status": 503`) || !strings.Contains(stdout.String(), "policy_rule") {
		t.Errorf("not translated under the policy: %s", stdout.String())
	}
	stdout.Reset()
	stderr.Reset()
	if code := runTranslate([]string{"--policy", filepath.Join(t.TempDir(), "none.yaml")}, strings.NewReader(req), &stdout, &stderr); code == 0 || !strings.Contains(stderr.String(), "none.yaml") {
		t.Errorf("a missing policy: exit %d, %s", code, stderr.String())
	}
}
