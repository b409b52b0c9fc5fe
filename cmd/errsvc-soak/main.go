// Command errsvc-soak starts errsvc on loopback and drives it at a fixed
// rate for a fixed time with a mix of valid requests (the golden vectors)
// and hostile ones (malformed JSON, oversize bodies, deep nesting, unknown
// fields, huge strings, secrets), over REST and gRPC. It reports calls,
// expected rejections and unexpected failures by kind, p50/p99 latency, the
// server's RSS at start and end, its log lines by level, whether any secret
// reached its logs, and whether it drained cleanly on SIGTERM. It exits 1 on
// any unexpected failure.
//
// It is not part of CI: docs/OPERATIONS.md has the command and its figures.
// It only ever talks to the server it started, on 127.0.0.1, sends at most
// rate × duration requests, and stops by itself.
//
//	go run ./cmd/errsvc-soak -duration 10m -rate 200
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/internal/golden"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
)

type config struct {
	duration    time.Duration
	rate        int
	workers     int
	binary      string
	maxBytes    int
	maxBatch    int
	warmup      time.Duration
	secretsFile string
	jsonOut     string
	seed        uint64
}

func main() {
	var cfg config
	flag.DurationVar(&cfg.duration, "duration", 10*time.Minute, "how long to drive the server")
	flag.IntVar(&cfg.rate, "rate", 200, "requests started per second, whatever the answers' speed")
	flag.IntVar(&cfg.workers, "workers", 64, "most requests in flight; a tick that finds all busy is counted as late and skipped")
	flag.StringVar(&cfg.binary, "errsvc", "", "errsvc binary to run (default: go build ./cmd/errsvc into a temporary folder)")
	flag.IntVar(&cfg.maxBytes, "max-request-bytes", 256<<10, "--max-request-bytes given to the server; oversize inputs exceed it")
	flag.IntVar(&cfg.maxBatch, "max-batch-items", 100, "--max-batch-items given to the server")
	flag.DurationVar(&cfg.warmup, "warmup", 10*time.Second, "load before the warm RSS reading")
	flag.StringVar(&cfg.secretsFile, "secrets", "testdata/secrets/corpus.json", "secret corpus ({name, secret, text} array); optional")
	flag.StringVar(&cfg.jsonOut, "json", "", "also write the report as JSON to this file")
	flag.Uint64Var(&cfg.seed, "seed", 1, "seed of the request mix")
	flag.Parse()
	if cfg.rate <= 0 || cfg.duration <= 0 || cfg.workers <= 0 {
		fmt.Fprintln(os.Stderr, "errsvc-soak: -rate, -duration and -workers must be positive")
		os.Exit(2)
	}
	rep, err := run(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "errsvc-soak:", err)
		os.Exit(1)
	}
	rep.print(os.Stdout)
	if cfg.jsonOut != "" {
		b, _ := json.MarshalIndent(rep, "", "  ")
		if err := os.WriteFile(cfg.jsonOut, b, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "errsvc-soak:", err)
			os.Exit(1)
		}
	}
	if rep.Unexpected > 0 || rep.SecretsInLogs > 0 || !rep.CleanExit {
		os.Exit(1)
	}
}

// ---- the server under test ----

type serverProc struct {
	cmd       *exec.Cmd
	grpcAddr  string
	httpAddr  string
	logLevels map[string]int
	logsMu    sync.Mutex
	logs      bytes.Buffer // kept whole for the secrets check
	exited    chan error
}

func buildErrsvc() (string, func(), error) {
	dir, err := os.MkdirTemp("", "errsvc-soak-")
	if err != nil {
		return "", nil, err
	}
	bin := filepath.Join(dir, "errsvc")
	build := exec.Command("go", "build", "-o", bin, "./cmd/errsvc")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		_ = os.RemoveAll(dir)
		return "", nil, fmt.Errorf("build errsvc: %w", err)
	}
	return bin, func() { _ = os.RemoveAll(dir) }, nil
}

func startServer(cfg config) (*serverProc, error) {
	cmd := exec.Command(cfg.binary,
		"--grpc-addr", "127.0.0.1:0", "--http-addr", "127.0.0.1:0",
		"--max-request-bytes", strconv.Itoa(cfg.maxBytes),
		"--max-batch-items", strconv.Itoa(cfg.maxBatch),
		"--log-level", "info")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &serverProc{cmd: cmd, logLevels: map[string]int{}, exited: make(chan error, 1)}
	ready := make(chan struct{})
	go func() {
		lines := bufio.NewScanner(stderr)
		lines.Buffer(make([]byte, 1<<20), 16<<20)
		signalled := false
		for lines.Scan() {
			var raw map[string]any
			line := lines.Bytes()
			_ = json.Unmarshal(line, &raw)
			level, _ := raw["level"].(string)
			msg, _ := raw["msg"].(string)
			p.logsMu.Lock()
			p.logLevels[level]++
			p.logs.Write(line)
			p.logs.WriteByte('\n')
			p.logsMu.Unlock()
			if msg == "errsvc listening" && !signalled {
				p.grpcAddr, _ = raw["grpc_addr"].(string)
				p.httpAddr, _ = raw["http_addr"].(string)
				signalled = true
				close(ready)
			}
		}
		p.exited <- cmd.Wait()
	}()
	select {
	case <-ready:
	case err := <-p.exited:
		return nil, fmt.Errorf("errsvc exited before listening: %v", err)
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		return nil, errors.New("errsvc did not start listening within 30s")
	}
	for _, a := range []string{p.grpcAddr, p.httpAddr} {
		host, _, err := net.SplitHostPort(a)
		if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
			_ = cmd.Process.Kill()
			return nil, fmt.Errorf("refusing to drive %q: not a loopback address", a)
		}
	}
	return p, nil
}

// rssKiB reads VmRSS of the server process.
func (p *serverProc) rssKiB() int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		return -1
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return n
		}
	}
	return -1
}

// metric reads one unlabelled sample from /metrics.
func (p *serverProc) metric(name string) float64 {
	resp, err := http.Get("http://" + p.httpAddr + "/metrics")
	if err != nil {
		return -1
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	for line := range strings.SplitSeq(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, name+" "); ok {
			v, _ := strconv.ParseFloat(rest, 64)
			return v
		}
	}
	return -1
}

// stop sends SIGTERM and waits for a clean exit.
func (p *serverProc) stop() (bool, time.Duration) {
	began := time.Now()
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-p.exited:
		return err == nil, time.Since(began)
	case <-time.After(60 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.exited
		return false, time.Since(began)
	}
}

// ---- the request mix ----

// outcome is what one request got: an HTTP status or a gRPC code name.
type outcome string

// kind is one family of requests with the answers it may get.
type kind struct {
	name     string
	weight   int
	hostile  bool
	expected []outcome
	do       func(ctx context.Context, d *driver, rng *rand.Rand) (outcome, error)
}

type vector struct {
	body   []byte
	req    *errsvcv1.TranslateRequest
	failOK bool // the vector is a malformed request: 400 / INVALID_ARGUMENT
}

type driver struct {
	http    *http.Client
	base    string
	grpc    errsvcv1.TranslationServiceClient
	valid   []vector
	secrets []secret
	cfg     config
}

type secret struct{ Name, Secret, Text string }

func (d *driver) post(ctx context.Context, path string, body []byte) (outcome, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.base+path, bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := d.http.Do(req)
	if err != nil {
		return "", err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return outcome(strconv.Itoa(resp.StatusCode)), nil
}

func grpcOutcome(err error) outcome {
	return outcome(status.Code(err).String())
}

func jsonStr(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func kinds() []kind {
	return []kind{
		{name: "valid REST translate (golden)", weight: 35, expected: []outcome{"200", "400"},
			do: func(ctx context.Context, d *driver, rng *rand.Rand) (outcome, error) {
				v := d.valid[rng.IntN(len(d.valid))]
				o, err := d.post(ctx, "/v1/translate", v.body)
				if err == nil && (o == "400") != v.failOK {
					return o + " (vector expects otherwise)", nil
				}
				return o, err
			}},
		{name: "valid gRPC translate (golden)", weight: 20, expected: []outcome{"OK", "InvalidArgument"},
			do: func(ctx context.Context, d *driver, rng *rand.Rand) (outcome, error) {
				v := d.valid[rng.IntN(len(d.valid))]
				_, err := d.grpc.Translate(ctx, v.req)
				o := grpcOutcome(err)
				if (o == "InvalidArgument") != v.failOK {
					return o + " (vector expects otherwise)", nil
				}
				return o, nil
			}},
		{name: "valid REST batch of 20 (golden)", weight: 4, expected: []outcome{"200"},
			do: func(ctx context.Context, d *driver, rng *rand.Rand) (outcome, error) {
				parts := make([]string, 20)
				for i := range parts {
					parts[i] = string(d.valid[rng.IntN(len(d.valid))].body)
				}
				return d.post(ctx, "/v1/translate:batch", []byte(`{"requests":[`+strings.Join(parts, ",")+`]}`))
			}},
		{name: "valid gRPC stream of 10 (golden)", weight: 4, expected: []outcome{"OK"},
			do: func(ctx context.Context, d *driver, rng *rand.Rand) (outcome, error) {
				stream, err := d.grpc.TranslateStream(ctx)
				if err != nil {
					return grpcOutcome(err), nil
				}
				for range 10 {
					if err := stream.Send(d.valid[rng.IntN(len(d.valid))].req); err != nil {
						return grpcOutcome(err), nil
					}
				}
				_ = stream.CloseSend()
				n := 0
				for {
					_, err := stream.Recv()
					if errors.Is(err, io.EOF) {
						break
					}
					if err != nil {
						return grpcOutcome(err), nil
					}
					n++
				}
				if n != 10 {
					return outcome(fmt.Sprintf("%d of 10 answers", n)), nil
				}
				return "OK", nil
			}},
		{name: "secrets in upstream text", weight: 8, expected: []outcome{"200"},
			do: func(ctx context.Context, d *driver, rng *rand.Rand) (outcome, error) {
				s := d.secrets[rng.IntN(len(d.secrets))]
				var body string
				switch rng.IntN(3) {
				case 0:
					body = `{"labby_error":{"kind":"upstream_error","message":` + jsonStr(s.Text) + `}}`
				case 1:
					body = `{"classified_error":{"code":"provider_error","message":` + jsonStr(s.Text) + `,"detail":{"raw":` + jsonStr(s.Text) + `}}}`
				default:
					body = `{"mcp_tool_result":{"tool":"ns::tool","is_error":true,"content":[{"type":"text","text":` + jsonStr(s.Text) + `}]}}`
				}
				return d.post(ctx, "/v1/translate", []byte(body))
			}},
		{name: "malformed JSON", weight: 5, hostile: true, expected: []outcome{"400"},
			do: func(ctx context.Context, d *driver, rng *rand.Rand) (outcome, error) {
				bad := []string{`{"labby_error":`, `{"labby_error":{"kind":"x"}`, `[1,2`, `nul`, "\x00\xff{", `{"labby_error":{"kind":"x","message":"\ud800"}}x`}
				return d.post(ctx, "/v1/translate", []byte(bad[rng.IntN(len(bad))]))
			}},
		{name: "unknown fields", weight: 4, hostile: true, expected: []outcome{"400"},
			do: func(ctx context.Context, d *driver, rng *rand.Rand) (outcome, error) {
				s := d.secrets[rng.IntN(len(d.secrets))]
				return d.post(ctx, "/v1/translate", []byte(`{"labby_error":{"kind":"x"},`+jsonStr(s.Secret)+`:1}`))
			}},
		{name: "two sources / no source", weight: 3, hostile: true, expected: []outcome{"400"},
			do: func(ctx context.Context, d *driver, rng *rand.Rand) (outcome, error) {
				if rng.IntN(2) == 0 {
					return d.post(ctx, "/v1/translate", []byte(`{}`))
				}
				return d.post(ctx, "/v1/translate", []byte(`{"labby_error":{"kind":"x"},"agent_error":{"code":"TIMEOUT"}}`))
			}},
		{name: "deep nesting (30k levels)", weight: 2, hostile: true, expected: []outcome{"400"},
			do: func(ctx context.Context, d *driver, rng *rand.Rand) (outcome, error) {
				depth := 30000
				body := `{"classified_error":{"code":"x","detail":` + strings.Repeat(`{"a":`, depth) + `1` + strings.Repeat(`}`, depth) + `}}`
				return d.post(ctx, "/v1/translate", []byte(body))
			}},
		// The deepest the server accepts (codec.MaxJSONDepth): 2 + 2×31.
		{name: "deep nesting (64 levels)", weight: 2, hostile: true, expected: []outcome{"200"},
			do: func(ctx context.Context, d *driver, rng *rand.Rand) (outcome, error) {
				depth := 31
				body := `{"classified_error":{"code":"x","detail":` + strings.Repeat(`{"a":[`, depth) + `1` + strings.Repeat(`]}`, depth) + `}}`
				return d.post(ctx, "/v1/translate", []byte(body))
			}},
		{name: "huge string under the limit", weight: 3, hostile: true, expected: []outcome{"200"},
			do: func(ctx context.Context, d *driver, rng *rand.Rand) (outcome, error) {
				n := d.cfg.maxBytes - 200
				body := `{"labby_error":{"kind":"upstream_error","message":"` + strings.Repeat("é", n/2-10) + `"}}`
				return d.post(ctx, "/v1/translate", []byte(body))
			}},
		{name: "oversize REST body", weight: 2, hostile: true, expected: []outcome{"413"},
			do: func(ctx context.Context, d *driver, rng *rand.Rand) (outcome, error) {
				body := `{"labby_error":{"kind":"x","message":"` + strings.Repeat("a", d.cfg.maxBytes) + `"}}`
				return d.post(ctx, "/v1/translate", []byte(body))
			}},
		{name: "oversize gRPC message", weight: 1, hostile: true, expected: []outcome{"ResourceExhausted"},
			do: func(ctx context.Context, d *driver, rng *rand.Rand) (outcome, error) {
				_, err := d.grpc.Translate(ctx, &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_LabbyError{
					LabbyError: &errsvcv1.LabbyError{Kind: "x", Message: strings.Repeat("a", d.cfg.maxBytes+rng.IntN(d.cfg.maxBytes))}}})
				return grpcOutcome(err), nil
			}},
		{name: "oversize batch", weight: 1, hostile: true, expected: []outcome{"413"},
			do: func(ctx context.Context, d *driver, rng *rand.Rand) (outcome, error) {
				return d.post(ctx, "/v1/translate:batch", []byte(`{"requests":[`+strings.Repeat(`{},`, d.cfg.maxBatch)+`{}]}`))
			}},
		{name: "wrong types", weight: 2, hostile: true, expected: []outcome{"400"},
			do: func(ctx context.Context, d *driver, rng *rand.Rand) (outcome, error) {
				bad := []string{`{"labby_error":{"kind":5}}`, `{"labby_error":{"side_effects":"maybe"}}`, `{"targets":"all"}`,
					`{"classified_error":{"retry_after_secs":"soon"}}`, `{"agent_error":{"details":[1]}}`}
				return d.post(ctx, "/v1/translate", []byte(bad[rng.IntN(len(bad))]))
			}},
		{name: "wrong method or path", weight: 1, hostile: true, expected: []outcome{"404", "405"},
			do: func(ctx context.Context, d *driver, rng *rand.Rand) (outcome, error) {
				path := []string{"/v1/translate", "/v1/nope", "/v1/translate:batch/../x"}[rng.IntN(3)]
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, d.base+path, nil)
				resp, err := d.http.Do(req)
				if err != nil {
					return "", err
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				_ = resp.Body.Close()
				return outcome(strconv.Itoa(resp.StatusCode)), nil
			}},
		{name: "invalid gRPC request", weight: 3, hostile: true, expected: []outcome{"InvalidArgument"},
			do: func(ctx context.Context, d *driver, rng *rand.Rand) (outcome, error) {
				// No code: the one agent_error field the contract requires.
				_, err := d.grpc.Translate(ctx, &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_AgentError{
					AgentError: &errsvcv1.AgentError{Message: d.secrets[rng.IntN(len(d.secrets))].Text}}})
				return grpcOutcome(err), nil
			}},
	}
}

// ---- measuring ----

type kindStats struct {
	Name       string          `json:"name"`
	Hostile    bool            `json:"hostile"`
	Calls      int64           `json:"calls"`
	Expected   int64           `json:"expected"`
	Unexpected int64           `json:"unexpected"`
	Outcomes   map[outcome]int `json:"outcomes"`
	Examples   []string        `json:"unexpected_examples,omitempty"`
	latencies  []time.Duration // guarded by report.mu
	P50        float64         `json:"p50_ms"`
	P99        float64         `json:"p99_ms"`
}

type report struct {
	mu              sync.Mutex
	Command         string         `json:"command"`
	Duration        string         `json:"duration"`
	Rate            int            `json:"rate_per_second"`
	Started         string         `json:"started"`
	Ticks           int64          `json:"ticks"`
	Late            int64          `json:"late_ticks_skipped"`
	Calls           int64          `json:"calls"`
	Expected        int64          `json:"expected"`
	Rejections      int64          `json:"expected_rejections"`
	Unexpected      int64          `json:"unexpected"`
	P50             float64        `json:"p50_ms"`
	P99             float64        `json:"p99_ms"`
	Max             float64        `json:"max_ms"`
	AchievedRate    float64        `json:"achieved_rate_per_second"`
	RSSStartKiB     int64          `json:"rss_start_kib"`
	RSSWarmKiB      int64          `json:"rss_after_warmup_kib"`
	RSSEndKiB       int64          `json:"rss_end_kib"`
	RSSMaxKiB       int64          `json:"rss_max_kib"`
	GoroutinesStart float64        `json:"goroutines_start"`
	GoroutinesEnd   float64        `json:"goroutines_end"`
	LogLines        map[string]int `json:"server_log_lines_by_level"`
	SecretsInLogs   int            `json:"secrets_found_in_server_logs"`
	SecretsChecked  int            `json:"secrets_checked"`
	CleanExit       bool           `json:"clean_exit_on_sigterm"`
	DrainTook       string         `json:"drain_took"`
	LoadStart       string         `json:"loadavg_start"`
	LoadEnd         string         `json:"loadavg_end"`
	Kinds           []*kindStats   `json:"kinds"`
	all             []time.Duration
}

func (r *report) record(k *kindStats, spec *kind, o outcome, err error, took time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Calls++
	k.Calls++
	if err != nil {
		o = outcome("transport error: " + err.Error())
	}
	k.Outcomes[o]++
	r.all = append(r.all, took)
	k.latencies = append(k.latencies, took)
	if slices.Contains(spec.expected, o) {
		k.Expected++
		r.Expected++
		if o != "200" && o != "OK" {
			r.Rejections++
		}
		return
	}
	k.Unexpected++
	r.Unexpected++
	if len(k.Examples) < 5 {
		k.Examples = append(k.Examples, string(o))
	}
}

func percentile(ds []time.Duration, p float64) float64 {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(float64(len(s)-1) * p)
	return float64(s[i].Microseconds()) / 1000
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// ---- the run ----

func run(cfg config) (*report, error) {
	if cfg.binary == "" {
		bin, cleanup, err := buildErrsvc()
		if err != nil {
			return nil, err
		}
		defer cleanup()
		cfg.binary = bin
	}
	valid, err := loadVectors()
	if err != nil {
		return nil, err
	}
	secrets := loadSecrets(cfg.secretsFile)

	srv, err := startServer(cfg)
	if err != nil {
		return nil, err
	}
	defer func() { _ = srv.cmd.Process.Kill() }()

	conn, err := grpc.NewClient(srv.grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	d := &driver{
		http: &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
			MaxIdleConnsPerHost: cfg.workers, MaxConnsPerHost: cfg.workers,
		}},
		base: "http://" + srv.httpAddr, grpc: errsvcv1.NewTranslationServiceClient(conn),
		valid: valid, secrets: secrets, cfg: cfg,
	}

	ks := kinds()
	rep := &report{
		Command:  "go run ./cmd/errsvc-soak " + strings.Join(os.Args[1:], " "),
		Duration: cfg.duration.String(), Rate: cfg.rate, Started: time.Now().UTC().Format(time.RFC3339),
		RSSStartKiB: srv.rssKiB(), GoroutinesStart: srv.metric("go_goroutines"), LoadStart: loadavg(),
	}
	stats := make([]*kindStats, len(ks))
	var weights []int
	for i, k := range ks {
		stats[i] = &kindStats{Name: k.name, Hostile: k.hostile, Outcomes: map[outcome]int{}}
		for range k.weight {
			weights = append(weights, i)
		}
	}
	rep.Kinds = stats

	type job struct {
		kind int
		seed uint64
	}
	jobs := make(chan job)
	var wg sync.WaitGroup
	for range cfg.workers {
		wg.Go(func() {
			for j := range jobs {
				rng := rand.New(rand.NewPCG(cfg.seed, j.seed))
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				began := time.Now()
				o, err := ks[j.kind].do(ctx, d, rng)
				took := time.Since(began)
				cancel()
				rep.record(stats[j.kind], &ks[j.kind], o, err, took)
			}
		})
	}

	var rssMax atomic.Int64
	rssMax.Store(rep.RSSStartKiB)
	stopSampling := make(chan struct{})
	var sampler sync.WaitGroup
	sampler.Go(func() {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-stopSampling:
				return
			case <-t.C:
				if v := srv.rssKiB(); v > rssMax.Load() {
					rssMax.Store(v)
				}
			}
		}
	})

	mix := rand.New(rand.NewPCG(cfg.seed, 0))
	interval := time.Second / time.Duration(cfg.rate)
	total := int64(cfg.duration / interval)
	began := time.Now()
	warmDone := false
	lastProgress := began
	for i := range total {
		next := began.Add(time.Duration(i) * interval)
		time.Sleep(time.Until(next))
		rep.Ticks++
		select {
		case jobs <- job{kind: weights[mix.IntN(len(weights))], seed: uint64(i) + 1}:
		default:
			rep.Late++
		}
		if !warmDone && time.Since(began) >= cfg.warmup {
			rep.RSSWarmKiB = srv.rssKiB()
			warmDone = true
		}
		if time.Since(lastProgress) >= time.Minute {
			lastProgress = time.Now()
			rep.mu.Lock()
			fmt.Fprintf(os.Stderr, "errsvc-soak: %s: %d calls, %d unexpected, RSS %d KiB\n",
				time.Since(began).Round(time.Second), rep.Calls, rep.Unexpected, srv.rssKiB())
			rep.mu.Unlock()
		}
	}
	close(jobs)
	wg.Wait()
	elapsed := time.Since(began)
	close(stopSampling)
	sampler.Wait()

	rep.RSSEndKiB = srv.rssKiB()
	rep.RSSMaxKiB = max(rssMax.Load(), rep.RSSEndKiB)
	rep.LoadEnd = loadavg()
	rep.AchievedRate = float64(rep.Calls) / elapsed.Seconds()
	// Goroutines once the load's connections are gone: what is left over
	// is a leak.
	d.http.CloseIdleConnections()
	_ = conn.Close()
	time.Sleep(time.Second)
	rep.GoroutinesEnd = srv.metric("go_goroutines")
	rep.P50, rep.P99 = percentile(rep.all, 0.50), percentile(rep.all, 0.99)
	rep.Max = percentile(rep.all, 1)
	for _, k := range stats {
		k.P50, k.P99 = percentile(k.latencies, 0.50), percentile(k.latencies, 0.99)
	}

	var took time.Duration
	rep.CleanExit, took = srv.stop()
	rep.DrainTook = took.Round(time.Millisecond).String()
	srv.logsMu.Lock()
	logs := srv.logs.String()
	rep.LogLines = srv.logLevels
	srv.logsMu.Unlock()
	for _, s := range secrets {
		rep.SecretsChecked++
		if strings.Contains(logs, s.Secret) || strings.Contains(logs, strings.Trim(jsonStr(s.Secret), `"`)) {
			rep.SecretsInLogs++
		}
	}
	return rep, nil
}

func loadVectors() ([]vector, error) {
	dir, err := golden.Dir()
	if err != nil {
		return nil, err
	}
	vs, err := golden.Load(dir)
	if err != nil {
		return nil, err
	}
	var out []vector
	for _, v := range vs {
		req := &errsvcv1.TranslateRequest{}
		if err := protojson.Unmarshal(v.Request, req); err != nil {
			continue // a vector only REST can express (bad JSON): the hostile kinds cover those
		}
		out = append(out, vector{body: v.Request, req: req, failOK: v.Error != nil})
	}
	if len(out) == 0 {
		return nil, errors.New("no golden vectors")
	}
	return out, nil
}

func loadSecrets(path string) []secret {
	var s []secret
	if b, err := os.ReadFile(path); err == nil {
		_ = json.Unmarshal(b, &s)
	}
	if len(s) == 0 {
		s = []secret{
			{"openai", "sk-proj-SoakTestKeyZq8vTt3mWc9LrX2bN5yPf", "401 Incorrect API key provided: sk-proj-SoakTestKeyZq8vTt3mWc9LrX2bN5yPf"},
			{"github", "ghp_SoakT0k3nV4lu3F0rT3st1ngOnly9xYzAb", "https://x:ghp_SoakT0k3nV4lu3F0rT3st1ngOnly9xYzAb@github.com denied"},
		}
	}
	return s
}

func (r *report) print(w io.Writer) {
	fmt.Fprintf(w, "errsvc soak: %s at %d req/s (%s)\n", r.Duration, r.Rate, r.Command)
	fmt.Fprintf(w, "  calls %d (achieved %.1f/s, %d late ticks skipped of %d)\n", r.Calls, r.AchievedRate, r.Late, r.Ticks)
	fmt.Fprintf(w, "  expected answers %d (of which expected rejections %d), unexpected failures %d\n", r.Expected, r.Rejections, r.Unexpected)
	fmt.Fprintf(w, "  latency p50 %.2f ms, p99 %.2f ms, max %.2f ms\n", r.P50, r.P99, r.Max)
	fmt.Fprintf(w, "  server RSS start %d KiB, after warm-up %d KiB, end %d KiB, max %d KiB\n", r.RSSStartKiB, r.RSSWarmKiB, r.RSSEndKiB, r.RSSMaxKiB)
	fmt.Fprintf(w, "  goroutines start %.0f, end %.0f; load average start %s, end %s\n", r.GoroutinesStart, r.GoroutinesEnd, r.LoadStart, r.LoadEnd)
	fmt.Fprintf(w, "  server log lines by level %v; secrets in server logs %d of %d checked\n", r.LogLines, r.SecretsInLogs, r.SecretsChecked)
	fmt.Fprintf(w, "  SIGTERM: clean exit %v after %s\n", r.CleanExit, r.DrainTook)
	fmt.Fprintf(w, "  %-34s %7s %9s %10s %8s %8s  %s\n", "kind", "calls", "expected", "unexpected", "p50 ms", "p99 ms", "outcomes")
	for _, k := range r.Kinds {
		var outs []string
		for o, n := range k.Outcomes {
			outs = append(outs, fmt.Sprintf("%s×%d", o, n))
		}
		slices.Sort(outs)
		fmt.Fprintf(w, "  %-34s %7d %9d %10d %8.2f %8.2f  %s\n", k.Name, k.Calls, k.Expected, k.Unexpected, k.P50, k.P99, strings.Join(outs, " "))
		for _, ex := range k.Examples {
			fmt.Fprintf(w, "      unexpected: %s\n", ex)
		}
	}
}
