package deploy

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// image is what the final stage of the Dockerfile sets up.
type image struct {
	env         [][2]string // in order
	entrypoint  []string
	cmd         []string
	expose      []int
	user        string
	healthcheck []string
	copies      map[string]bool // destinations of COPY
}

// parseDockerfile reads the final stage of a Dockerfile: continuation
// lines joined, comments dropped, exec-form (JSON) ENTRYPOINT, CMD and
// HEALTHCHECK CMD, ENV in key=value form.
func parseDockerfile(t *testing.T, path string) image {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	var cur strings.Builder
	for _, raw := range strings.Split(string(data), "\n") {
		line := strings.TrimSpace(raw)
		if strings.HasPrefix(line, "#") || (line == "" && cur.Len() == 0) {
			continue
		}
		if l, ok := strings.CutSuffix(line, "\\"); ok {
			cur.WriteString(l + " ")
			continue
		}
		cur.WriteString(line)
		lines = append(lines, cur.String())
		cur.Reset()
	}
	var img image
	execForm := func(s string) []string {
		var v []string
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			t.Fatalf("%s: not exec form (a JSON array), which the distroless image needs: %q", path, s)
		}
		return v
	}
	for _, l := range lines {
		instr, rest, _ := strings.Cut(l, " ")
		rest = strings.TrimSpace(rest)
		switch strings.ToUpper(instr) {
		case "FROM":
			img = image{copies: map[string]bool{}} // only the final stage counts
		case "ENV":
			for _, kv := range strings.Fields(rest) {
				k, v, ok := strings.Cut(kv, "=")
				if !ok {
					t.Fatalf("ENV %q: use key=value", rest)
				}
				img.env = append(img.env, [2]string{k, strings.Trim(v, `"`)})
			}
		case "ENTRYPOINT":
			img.entrypoint = execForm(rest)
		case "CMD":
			img.cmd = execForm(rest)
		case "EXPOSE":
			for _, p := range strings.Fields(rest) {
				n, err := strconv.Atoi(strings.TrimSuffix(p, "/tcp"))
				if err != nil {
					t.Fatalf("EXPOSE %q", p)
				}
				img.expose = append(img.expose, n)
			}
		case "USER":
			img.user = rest
		case "COPY":
			f := strings.Fields(rest)
			img.copies[f[len(f)-1]] = true
		case "HEALTHCHECK":
			_, c, ok := strings.Cut(rest, "CMD ")
			if !ok {
				t.Fatalf("HEALTHCHECK without CMD: %q", rest)
			}
			img.healthcheck = execForm(strings.TrimSpace(c))
		}
	}
	return img
}

// nonLoopbackIP is an address of this machine that is not loopback: what
// a published port reaches, as Docker's port mapping reaches the
// container's eth0.
func nonLoopbackIP(t *testing.T) string {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range addrs {
		if ipn, ok := a.(*net.IPNet); ok && !ipn.IP.IsLoopback() && ipn.IP.To4() != nil && !ipn.IP.IsLinkLocalUnicast() {
			return ipn.IP.String()
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("no non-loopback IPv4 address to reach the published ports on")
	}
	t.Skip("no non-loopback IPv4 address")
	return ""
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "0.0.0.0:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// TestContainer runs the image's entrypoint with the image's environment,
// as `docker run -p` would, without a Docker engine: the binary is built
// from the same package, ENTRYPOINT, CMD, ENV and HEALTHCHECK come from the
// Dockerfile. It must answer on the exposed ports on a non-loopback
// address, and its health check must pass.
//
// The one liberty: each listen port is swapped for a free one (host kept),
// so the test does not collide with anything else on 9090 or 8080.
func TestContainer(t *testing.T) {
	img := parseDockerfile(t, "Dockerfile")

	// The image as Docker would run it.
	if len(img.entrypoint) == 0 || !img.copies[img.entrypoint[0]] {
		t.Fatalf("ENTRYPOINT %v does not run the copied binary (COPY destinations %v)", img.entrypoint, img.copies)
	}
	if img.user == "" || strings.HasPrefix(img.user, "0") || strings.HasPrefix(img.user, "root") {
		t.Errorf("USER %q: want a non-root numeric user", img.user)
	}
	if len(img.healthcheck) == 0 || img.healthcheck[0] != img.entrypoint[0] || img.healthcheck[1] != "healthcheck" {
		t.Errorf("HEALTHCHECK %v: want the binary's healthcheck subcommand", img.healthcheck)
	}
	listen := map[string]string{}
	for _, kv := range img.env {
		listen[kv[0]] = kv[1]
	}
	var exposedByEnv []int
	for _, key := range []string{"ERRSVC_GRPC_ADDR", "ERRSVC_HTTP_ADDR"} {
		host, port, err := net.SplitHostPort(listen[key])
		if err != nil {
			t.Fatalf("ENV %s=%q: %v", key, listen[key], err)
		}
		if host != "0.0.0.0" && host != "" && host != "::" {
			t.Errorf("ENV %s=%q listens on %q, unreachable through a published port", key, listen[key], host)
		}
		p, _ := strconv.Atoi(port)
		exposedByEnv = append(exposedByEnv, p)
	}
	slices.Sort(exposedByEnv)
	exposed := slices.Sorted(slices.Values(img.expose))
	if !slices.Equal(exposedByEnv, exposed) {
		t.Errorf("EXPOSE %v but the listeners are on %v", exposed, exposedByEnv)
	}

	bin := filepath.Join(t.TempDir(), "errsvc")
	build := exec.Command("go", "build", "-trimpath", "-o", bin, "./cmd/errsvc")
	build.Dir = ".."
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	// Only the image's environment, as in the container, ports swapped.
	ports := map[string]int{"ERRSVC_GRPC_ADDR": freePort(t), "ERRSVC_HTTP_ADDR": freePort(t)}
	var env []string
	for _, kv := range img.env {
		v := kv[1]
		if p, ok := ports[kv[0]]; ok {
			host, _, _ := net.SplitHostPort(v)
			v = net.JoinHostPort(host, strconv.Itoa(p))
		}
		env = append(env, kv[0]+"="+v)
	}
	run := func(args ...string) *exec.Cmd {
		c := exec.Command(bin, args...)
		c.Env = env
		return c
	}
	args := append(slices.Clone(img.entrypoint[1:]), img.cmd...)
	srv := run(args...)
	stderr, err := srv.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	var logLines []string
	logsDone := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			logLines = append(logLines, sc.Text())
		}
		close(logsDone)
		exited <- srv.Wait()
	}()
	t.Cleanup(func() { _ = srv.Process.Kill() })

	ip := nonLoopbackIP(t)
	httpBase := fmt.Sprintf("http://%s", net.JoinHostPort(ip, strconv.Itoa(ports["ERRSVC_HTTP_ADDR"])))
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Get(httpBase + "/readyz")
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no answer on %s: %v", httpBase, err)
		}
		time.Sleep(50 * time.Millisecond)
	}

	resp, err := http.Post(httpBase+"/v1/translate", "application/json",
		strings.NewReader(`{"labby_error":{"kind":"rate_limited","message":"slow down"}}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"http_status":429`) {
		t.Errorf("REST translate on %s: HTTP %d %s", httpBase, resp.StatusCode, body)
	}

	grpcTarget := net.JoinHostPort(ip, strconv.Itoa(ports["ERRSVC_GRPC_ADDR"]))
	conn, err := grpc.NewClient(grpcTarget, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	hr, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{Service: "errsvc.v1.TranslationService"})
	if err != nil || hr.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		t.Errorf("gRPC health on %s: %v %v", grpcTarget, hr, err)
	}

	// Docker's HEALTHCHECK, with the container's environment.
	hc := run(img.healthcheck[1:]...)
	if out, err := hc.CombinedOutput(); err != nil || strings.TrimSpace(string(out)) != "SERVING" {
		t.Errorf("HEALTHCHECK %v: %v %s", img.healthcheck, err, out)
	}

	// docker stop sends SIGTERM.
	if err := srv.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("exit after SIGTERM: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no exit after SIGTERM")
	}
	<-logsDone
	listening := false
	for _, l := range logLines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Errorf("log line is not JSON: %q", l)
			continue
		}
		if m["msg"] == "errsvc listening" {
			// Go names a 0.0.0.0 listener [::] (it is dual-stack).
			wild := func(a any) bool {
				h, _, _ := net.SplitHostPort(fmt.Sprint(a))
				return h == "0.0.0.0" || h == "::"
			}
			listening = wild(m["grpc_addr"]) && wild(m["http_addr"])
		}
	}
	if !listening {
		t.Errorf("no listening line on a wildcard address:\n%s", strings.Join(logLines, "\n"))
	}
}
