package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"github.com/errsvc/errsvc/bench/internal/floors"
	"github.com/errsvc/errsvc/codec"
	"github.com/errsvc/errsvc/internal/clientconn"
	"io"
	"net"
	"net/http"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	testgrpc "google.golang.org/grpc/interop/grpc_testing"
)

type config struct {
	grpcAddr, httpAddr string
	serverPID          int
	warmup, duration   time.Duration
	conc               []int
	rounds             int
	conns              int
	streamConc         []int
	window             int
	batchItems         int
	batchConc          []int
	lightConc          []int
	rssDuration        time.Duration
	rssInterval        time.Duration
	rssGRPCConc        int
	rssHTTPConc        int
	wrk                string
	wrkThreads         int
	workdir            string
	profileURL         string
	profileOut         string
	profileSeconds     int
	out                string
}

// Result is one measured scenario.
type Result struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Tool        string `json:"tool"`
	Concurrency int    `json:"concurrency"`
	// Round is the scenario's round (loadgen run's -rounds): 0 is the
	// first, the one profiled and shown in every table; the ratio goals
	// are read from the median over the rounds.
	Round       int     `json:"round,omitempty"`
	Conns       int     `json:"conns"`
	Window      int     `json:"window,omitempty"`
	ItemsPer    int     `json:"items_per_call"`
	Calls       int64   `json:"calls"`
	Errors      int64   `json:"errors"`
	Seconds     float64 `json:"seconds"`
	CallsPerSec float64 `json:"calls_per_sec"`
	ItemsPerSec float64 `json:"items_per_sec"`
	P50us       float64 `json:"p50_us"`
	P99us       float64 `json:"p99_us"`
	// ServerCPUus is the server process's CPU time (user+system, from
	// /proc/<pid>/stat) over the measured window divided by the items.
	ServerCPUus float64 `json:"server_cpu_us_per_item,omitempty"`
	// ServerCores is the server's CPU time over the window's wall time.
	ServerCores float64 `json:"server_cores,omitempty"`
	// ClientCPUus is the client's CPU time per item over the measured
	// window: the load generator's own (/proc/self/stat) for gRPC, wrk's
	// (its rusage) for REST.
	ClientCPUus float64 `json:"client_cpu_us_per_item,omitempty"`
	// IdleCores is the machine's idle time (/proc/stat: idle and iowait)
	// over the scenario's wall time: the part of the cores no process used.
	IdleCores float64 `json:"idle_cores,omitempty"`
	Command   string  `json:"command,omitempty"`
}

// RSS is the sustained-load memory run.
type RSS struct {
	Seconds      float64   `json:"seconds"`
	IntervalSec  float64   `json:"interval_sec"`
	SamplesMiB   []float64 `json:"samples_mib"`
	StartMiB     float64   `json:"start_mib"`
	EndMiB       float64   `json:"end_mib"`
	MaxMiB       float64   `json:"max_mib"`
	SlopeMiBMin  float64   `json:"slope_mib_per_min"`
	FittedGrowth float64   `json:"fitted_growth_mib"`
	GRPC         Result    `json:"grpc"`
	HTTP         Result    `json:"http"`
}

// Results is everything one run measured.
type Results struct {
	Started   time.Time `json:"started"`
	Warmup    float64   `json:"warmup_sec"`
	Duration  float64   `json:"duration_sec"`
	Scenarios []Result  `json:"scenarios"`
	RSS       *RSS      `json:"rss,omitempty"`
}

func intList(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("bad count %q", f)
		}
		out = append(out, n)
	}
	return out, nil
}

func runCmd(args []string) error {
	var cfg config
	var conc, streamConc, batchConc, lightConc, only string
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.StringVar(&cfg.grpcAddr, "grpc", "127.0.0.1:19090", "benchserver gRPC address (loopback)")
	fs.StringVar(&cfg.httpAddr, "http", "127.0.0.1:18080", "benchserver HTTP address (loopback)")
	fs.IntVar(&cfg.serverPID, "server-pid", 0, "benchserver process id, for /proc/<pid>/status (0: no RSS run)")
	fs.DurationVar(&cfg.warmup, "warmup", 2*time.Second, "warm-up before each measured window")
	fs.DurationVar(&cfg.duration, "duration", 10*time.Second, "measured window of each scenario")
	fs.StringVar(&conc, "conc", "16,64", "unary concurrency levels (gRPC workers, wrk connections)")
	fs.IntVar(&cfg.rounds, "rounds", 1, "rounds of the ratio scenarios (a, b*, f, c, d*, g), interleaved: each ratio's two sides run back to back in every round, and the report reads the median (1–9)")
	fs.IntVar(&cfg.conns, "conns", 4, "gRPC connections shared by the workers")
	fs.StringVar(&streamConc, "stream-conc", "4,16", "concurrent TranslateStream streams")
	fs.IntVar(&cfg.window, "window", 32, "requests in flight per stream (pipelining window)")
	fs.IntVar(&cfg.batchItems, "batch-items", 100, "TranslateBatch items per call")
	fs.StringVar(&batchConc, "batch-conc", "4,16", "TranslateBatch concurrency levels")
	fs.StringVar(&lightConc, "light-conc", "1,2,4", "light-load callers: gRPC workers and wrk connections (scenarios la, lb, lc, ld)")
	fs.DurationVar(&cfg.rssDuration, "rss-duration", 5*time.Minute, "sustained-load RSS run (0: skip)")
	fs.DurationVar(&cfg.rssInterval, "rss-interval", 10*time.Second, "VmRSS sampling interval")
	fs.IntVar(&cfg.rssGRPCConc, "rss-grpc-conc", 32, "gRPC Translate workers during the RSS run")
	fs.IntVar(&cfg.rssHTTPConc, "rss-http-conc", 16, "wrk connections (REST Translate) during the RSS run")
	fs.StringVar(&cfg.wrk, "wrk", "wrk", "wrk binary")
	fs.IntVar(&cfg.wrkThreads, "wrk-threads", 2, "wrk threads")
	fs.StringVar(&cfg.workdir, "workdir", os.TempDir(), "where the wrk Lua script and outputs go")
	fs.StringVar(&cfg.profileURL, "profile-url", "", "pprof CPU profile URL of the server (loopback), taken during scenarios a, b*, c and d* in the first round at every concurrency, the most streams and la, lc at the fewest light-load callers")
	fs.StringVar(&cfg.profileOut, "profile-out", "", "file prefix of the CPU profiles (<prefix>-a.pprof, <prefix>-client-a.pprof, ...; b* is bcanned, d* dcanned; below the highest concurrency <prefix>-a-16.pprof, ...)")
	fs.IntVar(&cfg.profileSeconds, "profile-seconds", 8, "length of each CPU profile")
	fs.StringVar(&cfg.out, "out", "results.json", "results file")
	fs.StringVar(&only, "only", "", "run only these scenarios, comma-separated (a, b, b*, f, c, d, d*, g, a*, light, stream, batch); for a quick look, never for docs/BENCHMARKS.md")
	if err := fs.Parse(args); err != nil {
		return err
	}
	// wanted reports whether scenario id runs (-only).
	wanted := func(id string) bool {
		if only == "" {
			return true
		}
		for _, o := range strings.Split(only, ",") {
			if strings.TrimSpace(o) == id {
				return true
			}
		}
		return false
	}
	var err error
	if cfg.conc, err = intList(conc); err != nil {
		return err
	}
	if cfg.streamConc, err = intList(streamConc); err != nil {
		return err
	}
	if cfg.batchConc, err = intList(batchConc); err != nil {
		return err
	}
	if cfg.lightConc, err = intList(lightConc); err != nil {
		return err
	}
	for _, a := range []string{cfg.grpcAddr, cfg.httpAddr} {
		if err := mustLoopback(a); err != nil {
			return err
		}
	}
	if cfg.duration <= 0 || cfg.duration > 2*time.Minute || cfg.warmup < 0 || cfg.warmup > time.Minute ||
		cfg.rssDuration < 0 || cfg.rssDuration > 15*time.Minute {
		return errors.New("durations out of bounds (scenario ≤ 2m, warm-up ≤ 1m, RSS ≤ 15m)")
	}
	if cfg.rounds < 1 || cfg.rounds > 9 {
		return errors.New("-rounds out of bounds (1–9)")
	}

	// The cold path: every request distinct (the answer cache never hits);
	// the storm path: the repeated-error mix. See package floors.
	reqs, err := floors.ColdRequests()
	if err != nil {
		return err
	}
	stormReqs, err := floors.StormRequests()
	if err != nil {
		return err
	}
	// One sequence shared by all workers, so no two calls send the same
	// cold request at once.
	var seq atomic.Uint64
	next := func(pool *floors.Pool) *errsvcv1.TranslateRequest {
		return pool.Request(int(seq.Add(1) % floors.ColdPool))
	}
	conns := make([]*grpc.ClientConn, cfg.conns)
	for i := range conns {
		// The codec and windows of errsvc's Go SDK (clients/go), as a Go
		// caller gets them.
		c, err := grpc.NewClient(cfg.grpcAddr, append([]grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials()),
			grpc.WithDefaultCallOptions(grpc.ForceCodecV2(codec.Client))}, clientconn.Windows()...)...)
		if err != nil {
			return err
		}
		defer c.Close()
		conns[i] = c
	}
	lua, err := writeLua(cfg.workdir, coldPath)
	if err != nil {
		return err
	}
	stormLua, err := writeLua(cfg.workdir, stormPath)
	if err != nil {
		return err
	}
	twiceLua, err := writeLua(cfg.workdir, twicePath)
	if err != nil {
		return err
	}

	res := Results{Started: time.Now().UTC(), Warmup: cfg.warmup.Seconds(), Duration: cfg.duration.Seconds()}
	// The CPU of the server, of the load generator and the machine's idle
	// time, read when a scenario starts (mark) and when it ends (add).
	var at cpuMark
	round := 0
	mark := func() { at = markCPU(cfg.serverPID) }
	add := func(r Result, err error) error {
		now := markCPU(cfg.serverPID)
		// Only the measured window: the warm-up's share is removed by
		// scaling, as the load is steady.
		scale := r.Seconds / (r.Seconds + cfg.warmup.Seconds())
		if now.server >= 0 && at.server >= 0 && r.ItemsPerSec > 0 {
			total := (now.server - at.server) * scale
			r.ServerCPUus = total * 1e6 / (r.ItemsPerSec * r.Seconds)
			r.ServerCores = total / r.Seconds
		}
		if r.ClientCPUus == 0 && now.self >= 0 && at.self >= 0 && r.ItemsPerSec > 0 {
			r.ClientCPUus = (now.self - at.self) * scale * 1e6 / (r.ItemsPerSec * r.Seconds)
		}
		if wall := now.wall.Sub(at.wall).Seconds(); now.idle >= 0 && at.idle >= 0 && wall > 0 {
			r.IdleCores = (now.idle - at.idle) / wall
		}
		r.Round = round
		if err != nil {
			return fmt.Errorf("%s (%s, c=%d): %w", r.ID, r.Name, r.Concurrency, err)
		}
		fmt.Fprintf(os.Stderr, "r%d %-2s %-36s c=%-3d %9.0f calls/s %9.0f items/s  p50 %8.1fµs  p99 %8.1fµs  server %5.1fµs/item %.2f cores  client %5.1fµs/item  idle %.2f cores  errors %d\n",
			r.Round, r.ID, r.Name, r.Concurrency, r.CallsPerSec, r.ItemsPerSec, r.P50us, r.P99us, r.ServerCPUus, r.ServerCores, r.ClientCPUus, r.IdleCores, r.Errors)
		if r.Errors > 0 {
			return fmt.Errorf("%s (%s, c=%d): %d errors", r.ID, r.Name, r.Concurrency, r.Errors)
		}
		res.Scenarios = append(res.Scenarios, r)
		return nil
	}
	maxConc := cfg.conc[len(cfg.conc)-1]

	translateOn := func(pool *floors.Pool) opFactory {
		return func(worker int, _ uint64) (func(ctx context.Context) (int, error), error) {
			client := errsvcv1.NewTranslationServiceClient(conns[worker%len(conns)])
			return func(ctx context.Context) (int, error) {
				resp, err := client.Translate(ctx, next(pool))
				if err == nil && (resp.GetError() != nil || resp.GetLabbyError() == nil) {
					err = fmt.Errorf("unexpected response: %v", resp)
				}
				return 1, err
			}, nil
		}
	}
	translateOp := translateOn(reqs)
	stormOp := translateOn(stormReqs)
	reqsMin := reqs.WithTargets("classification", "http_status")
	translateMinOp := func(worker int, _ uint64) (func(ctx context.Context) (int, error), error) {
		client := errsvcv1.NewTranslationServiceClient(conns[worker%len(conns)])
		return func(ctx context.Context) (int, error) {
			resp, err := client.Translate(ctx, next(reqsMin))
			if err == nil && (resp.GetError() != nil || resp.GetHttpStatus() == 0) {
				err = fmt.Errorf("unexpected response: %v", resp)
			}
			return 1, err
		}, nil
	}
	cannedOp := func(worker int, _ uint64) (func(ctx context.Context) (int, error), error) {
		conn := conns[worker%len(conns)]
		return func(ctx context.Context) (int, error) {
			resp := &errsvcv1.TranslateResponse{}
			err := conn.Invoke(ctx, floors.CannedMethod, next(reqs), resp)
			if err == nil && resp.GetLabbyError() == nil {
				err = fmt.Errorf("unexpected response: %v", resp)
			}
			return 1, err
		}, nil
	}
	emptyOp := func(worker int, _ uint64) (func(ctx context.Context) (int, error), error) {
		client := testgrpc.NewTestServiceClient(conns[worker%len(conns)])
		return func(ctx context.Context) (int, error) {
			_, err := client.EmptyCall(ctx, &testgrpc.Empty{})
			return 1, err
		}, nil
	}
	batch := &errsvcv1.TranslateBatchRequest{}
	for i := range cfg.batchItems {
		batch.Requests = append(batch.Requests, reqs.Request(i))
	}
	batchOp := func(worker int, _ uint64) (func(ctx context.Context) (int, error), error) {
		client := errsvcv1.NewTranslationServiceClient(conns[worker%len(conns)])
		return func(ctx context.Context) (int, error) {
			resp, err := client.TranslateBatch(ctx, batch)
			if err != nil {
				return 0, err
			}
			for _, r := range resp.GetResponses() {
				if r.GetError() != nil {
					return 0, fmt.Errorf("batch item error: %v", r.GetError().GetMessage())
				}
			}
			return len(resp.GetResponses()), nil
		}, nil
	}

	// takeProfile returns what profiles the server (and the load generator
	// itself) during a scenario's measured window, nil without -profile-url.
	takeProfile := func(letter string) func() {
		if cfg.profileURL == "" || cfg.profileOut == "" {
			return nil
		}
		return func() {
			// The load generator's own profile over the same seconds:
			// the client's share of the cost is half the picture on a
			// machine both share.
			if f, err := os.Create(cfg.profileOut + "-client-" + letter + ".pprof"); err == nil {
				if pprof.StartCPUProfile(f) == nil {
					defer func() { pprof.StopCPUProfile(); f.Close() }()
				}
			}
			if err := fetchProfile(cfg.profileURL, cfg.profileSeconds, cfg.profileOut+"-"+letter+".pprof"); err != nil {
				fmt.Fprintln(os.Stderr, "profile:", err)
			}
		}
	}
	// Round 0 runs every scenario and takes the profiles; each later round
	// runs the ratio goals' scenarios again, both sides of a ratio back to
	// back, so the machine's drift over the run falls on both alike.
	for round = 0; round < cfg.rounds; round++ {
		for _, c := range cfg.conc {
			// The first round is profiled at every concurrency: the
			// highest as <letter>, the others as <letter>-<concurrency>.
			profile := func(letter string) func() {
				if round > 0 {
					return nil
				}
				if c != maxConc {
					letter += "-" + strconv.Itoa(c)
				}
				return takeProfile(letter)
			}
			steps := []struct {
				id  string
				run func() (Result, error)
			}{
				{"a", func() (Result, error) {
					return runUnary(cfg, "a", "gRPC Translate, cold", c, translateOp, profile("a"))
				}},
				{"b", func() (Result, error) { return runUnary(cfg, "b", "gRPC EmptyCall (floor)", c, emptyOp, nil) }},
				{"b*", func() (Result, error) {
					return runUnary(cfg, "b*", "gRPC canned answer (floor)", c, cannedOp, profile("bcanned"))
				}},
				{"f", func() (Result, error) { return runUnary(cfg, "f", "gRPC Translate, storm", c, stormOp, nil) }},
				{"c", func() (Result, error) {
					return runWrk(cfg, lua, "c", "REST POST /v1/translate, cold", "/v1/translate", c, cfg.warmup, cfg.duration, profile("c"))
				}},
				{"d", func() (Result, error) {
					return runWrk(cfg, lua, "d", "REST POST /v1/bench/empty (floor)", "/v1/bench/empty", c, cfg.warmup, cfg.duration, nil)
				}},
				{"d*", func() (Result, error) {
					return runWrk(cfg, lua, "d*", "REST canned answer (floor)", floors.CannedPath, c, cfg.warmup, cfg.duration, profile("dcanned"))
				}},
				{"g", func() (Result, error) {
					return runWrk(cfg, stormLua, "g", "REST POST /v1/translate, storm", "/v1/translate", c, cfg.warmup, cfg.duration, nil)
				}},
			}
			for _, st := range steps {
				if !wanted(st.id) || round > 0 && (st.id == "b" || st.id == "d") {
					continue
				}
				mark()
				if err := add(st.run()); err != nil {
					return err
				}
			}
		}
	}
	round = 0
	// Light load: a few callers, each call against the floors at the same
	// load (the empty RPC, the empty route). Under load the per-call costs
	// a call shares with its neighbours (a wake-up, a flush, a timer) are
	// spread over many calls; here each call pays them alone.
	for i, c := range cfg.lightConc {
		if !wanted("light") {
			break
		}
		// The fewest callers are profiled, against the profiles of the
		// highest load.
		profile := func(letter string) func() {
			if i != 0 {
				return nil
			}
			return takeProfile(letter)
		}
		steps := []func() (Result, error){
			func() (Result, error) {
				return runUnary(cfg, "la", "gRPC Translate, cold", c, translateOp, profile("la"))
			},
			func() (Result, error) { return runUnary(cfg, "lb", "gRPC EmptyCall (floor)", c, emptyOp, nil) },
			func() (Result, error) {
				return runWrk(cfg, lua, "lc", "REST POST /v1/translate, cold", "/v1/translate", c, cfg.warmup, cfg.duration, profile("lc"))
			},
			func() (Result, error) {
				return runWrk(cfg, lua, "ld", "REST POST /v1/bench/empty (floor)", "/v1/bench/empty", c, cfg.warmup, cfg.duration, nil)
			},
		}
		for _, run := range steps {
			mark()
			if err := add(run()); err != nil {
				return err
			}
		}
	}
	// Diagnostic, not a goal: Translate asking only for the class and the
	// HTTP status, i.e. the same call with a small answer.
	if wanted("a*") {
		mark()
		if err := add(runUnary(cfg, "a*", "gRPC Translate, 2 targets (diag.)", maxConc, translateMinOp, nil)); err != nil {
			return err
		}
	}
	for i, s := range cfg.streamConc {
		if !wanted("stream") {
			break
		}
		// The highest count, which is usually the best: the stream the
		// goal reads is profiled like the unary calls it is held against.
		var during func()
		if i == len(cfg.streamConc)-1 {
			during = takeProfile("e")
		}
		mark()
		if err := add(runStream(cfg, conns, func() *errsvcv1.TranslateRequest { return next(reqs) }, s, during)); err != nil {
			return err
		}
	}
	for _, c := range cfg.batchConc {
		if !wanted("batch") {
			break
		}
		mark()
		r, err := runUnary(cfg, "e", fmt.Sprintf("gRPC TranslateBatch ×%d", cfg.batchItems), c, batchOp, nil)
		r.ItemsPer = cfg.batchItems
		if err := add(r, err); err != nil {
			return err
		}
	}

	if cfg.rssDuration > 0 && cfg.serverPID > 0 {
		// Each cold request twice in a row, so that the caches store every
		// answer: the RSS run includes full caches evicting all along.
		twiceOp := func(worker int, _ uint64) (func(ctx context.Context) (int, error), error) {
			client := errsvcv1.NewTranslationServiceClient(conns[worker%len(conns)])
			return func(ctx context.Context) (int, error) {
				_, err := client.Translate(ctx, reqs.Request(int(seq.Add(1)/2%floors.ColdPool)))
				return 1, err
			}, nil
		}
		rss, err := runRSS(cfg, twiceLua, twiceOp)
		if err != nil {
			return fmt.Errorf("RSS run: %w", err)
		}
		res.RSS = rss
	}

	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(cfg.out, append(b, '\n'), 0o644)
}

func mustLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("%s is not a loopback address", addr)
	}
	return nil
}

func newHist() *hdrhistogram.Histogram {
	// Microseconds, 1 µs to 60 s, 3 significant digits.
	return hdrhistogram.New(1, 60_000_000, 3)
}

type opFactory func(worker int, seed uint64) (func(ctx context.Context) (int, error), error)

// runUnary runs c workers, each making one call at a time, for warm-up plus
// the measured window; only calls that start inside the window are counted.
func runUnary(cfg config, id, name string, c int, factory opFactory, during func()) (Result, error) {
	r := Result{ID: id, Name: name, Tool: "grpc-go harness", Concurrency: c, Conns: min(c, cfg.conns), ItemsPer: 1}
	start := time.Now()
	measureFrom := start.Add(cfg.warmup)
	measureTo := measureFrom.Add(cfg.duration)
	ctx, cancel := context.WithDeadline(context.Background(), measureTo.Add(5*time.Second))
	defer cancel()
	hists := make([]*hdrhistogram.Histogram, c)
	var calls, items, errs atomic.Int64
	var firstErr atomic.Value
	var wg sync.WaitGroup
	for w := range c {
		op, err := factory(w, uint64(w))
		if err != nil {
			return r, err
		}
		h := newHist()
		hists[w] = h
		wg.Go(func() {
			for {
				t0 := time.Now()
				if !t0.Before(measureTo) {
					return
				}
				n, err := op(ctx)
				if t0.Before(measureFrom) {
					continue
				}
				if err != nil {
					errs.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
					continue
				}
				_ = h.RecordValue(max(1, time.Since(t0).Microseconds()))
				calls.Add(1)
				items.Add(int64(n))
			}
		})
	}
	if during != nil {
		go func() {
			time.Sleep(time.Until(measureFrom))
			during()
		}()
	}
	wg.Wait()
	all := newHist()
	for _, h := range hists {
		all.Merge(h)
	}
	r.Calls, r.Errors = calls.Load(), errs.Load()
	r.Seconds = cfg.duration.Seconds()
	r.CallsPerSec = float64(r.Calls) / r.Seconds
	r.ItemsPerSec = float64(items.Load()) / r.Seconds
	r.P50us, r.P99us = float64(all.ValueAtQuantile(50)), float64(all.ValueAtQuantile(99))
	if e := firstErr.Load(); e != nil {
		fmt.Fprintln(os.Stderr, "first error:", e)
	}
	return r, nil
}

// runStream opens s TranslateStream streams; each keeps window requests in
// flight (a sender waits for a slot, the receiver frees one per response)
// and responses are counted while the measured window is open. Latency is
// send to response, so it includes the time queued behind the window.
func runStream(cfg config, conns []*grpc.ClientConn, next func() *errsvcv1.TranslateRequest, s int, during func()) (Result, error) {
	r := Result{ID: "e", Name: "gRPC TranslateStream", Tool: "grpc-go harness", Concurrency: s,
		Conns: min(s, len(conns)), Window: cfg.window, ItemsPer: 1}
	start := time.Now()
	measureFrom := start.Add(cfg.warmup)
	measureTo := measureFrom.Add(cfg.duration)
	ctx, cancel := context.WithDeadline(context.Background(), measureTo.Add(10*time.Second))
	defer cancel()
	var calls, errs atomic.Int64
	var firstErr atomic.Value
	hists := make([]*hdrhistogram.Histogram, s)
	var wg sync.WaitGroup
	for i := range s {
		client := errsvcv1.NewTranslationServiceClient(conns[i%len(conns)])
		stream, err := client.TranslateStream(ctx)
		if err != nil {
			return r, err
		}
		h := newHist()
		hists[i] = h
		slots := make(chan time.Time, cfg.window)
		wg.Go(func() { // sender
			for {
				t0 := time.Now()
				if !t0.Before(measureTo) {
					_ = stream.CloseSend()
					return
				}
				select {
				case slots <- t0:
				case <-ctx.Done():
					return
				}
				if err := stream.Send(next()); err != nil {
					errs.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
					return
				}
			}
		})
		wg.Go(func() { // receiver
			for {
				resp, err := stream.Recv()
				if errors.Is(err, io.EOF) {
					return
				}
				if err != nil {
					errs.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
					return
				}
				t0 := <-slots
				now := time.Now()
				if now.Before(measureFrom) || !now.Before(measureTo) {
					continue
				}
				if resp.GetError() != nil {
					errs.Add(1)
					firstErr.CompareAndSwap(nil, resp.GetError().GetMessage())
					continue
				}
				_ = h.RecordValue(max(1, now.Sub(t0).Microseconds()))
				calls.Add(1)
			}
		})
	}
	if during != nil {
		go func() {
			time.Sleep(time.Until(measureFrom))
			during()
		}()
	}
	wg.Wait()
	all := newHist()
	for _, h := range hists {
		all.Merge(h)
	}
	r.Calls, r.Errors = calls.Load(), errs.Load()
	r.Seconds = cfg.duration.Seconds()
	r.CallsPerSec = float64(r.Calls) / r.Seconds
	r.ItemsPerSec = r.CallsPerSec
	r.P50us, r.P99us = float64(all.ValueAtQuantile(50)), float64(all.ValueAtQuantile(99))
	if e := firstErr.Load(); e != nil {
		fmt.Fprintln(os.Stderr, "first error:", e)
	}
	return r, nil
}

// fetchProfile takes a CPU profile of the server over its loopback pprof
// listener.
func fetchProfile(url string, seconds int, out string) error {
	client := &http.Client{Timeout: time.Duration(seconds+30) * time.Second}
	resp, err := client.Get(fmt.Sprintf("%s?seconds=%d", url, seconds))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: HTTP %d", url, resp.StatusCode)
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// cpuMark is where the CPU counters stood at one moment: the server's and
// the load generator's CPU seconds and the machine's idle seconds (each -1
// when unknown).
type cpuMark struct {
	server, self, idle float64
	wall               time.Time
}

func markCPU(serverPID int) cpuMark {
	return cpuMark{server: procCPU(serverPID), self: procCPU(os.Getpid()), idle: machineIdle(), wall: time.Now()}
}

// machineIdle is the seconds all CPUs have spent idle or waiting on I/O
// since boot (/proc/stat, first line, fields 4 and 5 in USER_HZ = 100 ticks),
// -1 when unknown.
func machineIdle() float64 {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return -1
	}
	return idleSeconds(string(b))
}

// idleSeconds reads the idle and iowait ticks of /proc/stat's first line.
func idleSeconds(stat string) float64 {
	line, _, _ := strings.Cut(stat, "\n")
	f := strings.Fields(line)
	if len(f) < 6 || f[0] != "cpu" {
		return -1
	}
	idle, err1 := strconv.ParseFloat(f[4], 64)
	iowait, err2 := strconv.ParseFloat(f[5], 64)
	if err1 != nil || err2 != nil {
		return -1
	}
	return (idle + iowait) / 100
}

// procCPU is the user+system CPU seconds of pid so far, -1 when unknown.
func procCPU(pid int) float64 {
	if pid <= 0 {
		return -1
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return -1
	}
	// Fields after the parenthesised command name; utime and stime are
	// fields 14 and 15 of the whole line, in clock ticks (USER_HZ = 100).
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return -1
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return -1
	}
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return (ut + st) / 100
}
