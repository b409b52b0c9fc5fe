package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"github.com/errsvc/errsvc/bench/internal/floors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// luaPath selects the bodies of a wrk script (see package floors).
type luaPath int

const (
	coldPath  luaPath = iota // every request distinct
	stormPath                // nine in ten repeat one of four hot bodies
	// twicePath sends each distinct body twice in a row: the answer
	// cache (which stores a request's answer on its second miss) stores
	// every answer and evicts all along, the worst case for its memory.
	twicePath
)

// writeLua writes a wrk script: POST with JSON bodies of the cold or the
// storm path (the same bodies as floors.ColdBody and floors.StormBody), and
// a done() hook printing wrk's own HDR percentiles in µs. Each wrk thread
// numbers its requests from its own offset, so threads never repeat each
// other's cold bodies.
func writeLua(dir string, path luaPath) (string, error) {
	var b strings.Builder
	b.WriteString("wrk.method = \"POST\"\nwrk.headers[\"Content-Type\"] = \"application/json\"\nlocal hot = {\n")
	for _, s := range floors.Sources {
		fmt.Fprintf(&b, "  %s,\n", luaString(s))
	}
	b.WriteString("}\nlocal cold = {\n")
	for i := range floors.Sources {
		fmt.Fprintf(&b, "  %s,\n", luaString(floors.ColdTemplate(i)))
	}
	fmt.Fprintf(&b, "}\nlocal storm = %v\nlocal twice = %v\nlocal hotShare = %d\n", path == stormPath, path == twicePath, floors.StormHotShare)
	b.WriteString(`local counter = 0
local threads = 0
setup = function(thread)
  thread:set("offset", threads * 100000000)
  threads = threads + 1
end
request = function()
  counter = counter + 1
  local n = (offset or 0) + counter
  if twice then
    n = (offset or 0) + math.floor(counter / 2)
  end
  local i = (n % #hot) + 1
  if storm and (n % 10) < hotShare then
    return wrk.format(nil, nil, nil, hot[i])
  end
  return wrk.format(nil, nil, nil, string.format(cold[i], n))
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("BENCH requests=%d duration_us=%d connect=%d read=%d write=%d status=%d timeout=%d p50_us=%d p99_us=%d\n",
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(99)))
end
`)
	name := map[luaPath]string{coldPath: "cold.lua", stormPath: "storm.lua", twicePath: "twice.lua"}[path]
	p := filepath.Join(dir, name)
	return p, os.WriteFile(p, []byte(b.String()), 0o644)
}

func luaString(s string) string {
	return "\"" + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + "\""
}

type wrkOut struct {
	requests, errors    int64
	durationUS          int64
	p50, p99            float64
	connectErrs, status int64
	cpuSeconds          float64 // wrk's own user+system time
}

func wrkRun(cfg config, lua, path string, conns int, d time.Duration) (wrkOut, string, error) {
	var o wrkOut
	secs := int(math.Max(1, math.Round(d.Seconds())))
	args := []string{"-t", strconv.Itoa(min(cfg.wrkThreads, conns)), "-c", strconv.Itoa(conns),
		"-d", fmt.Sprintf("%ds", secs), "--timeout", "5s", "-s", lua, "http://" + cfg.httpAddr + path}
	cmdline := cfg.wrk + " " + strings.Join(args, " ")
	ctx, cancel := context.WithTimeout(context.Background(), d+30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, cfg.wrk, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return o, cmdline, fmt.Errorf("%s: %w: %s", cmdline, err, stderr.String())
	}
	o.cpuSeconds = (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
	sc := bufio.NewScanner(&stdout)
	found := false
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "BENCH ") {
			continue
		}
		found = true
		kv := map[string]int64{}
		for _, f := range strings.Fields(line)[1:] {
			k, v, _ := strings.Cut(f, "=")
			n, _ := strconv.ParseInt(v, 10, 64)
			kv[k] = n
		}
		o.requests, o.durationUS = kv["requests"], kv["duration_us"]
		o.errors = kv["connect"] + kv["read"] + kv["write"] + kv["status"] + kv["timeout"]
		o.connectErrs, o.status = kv["connect"], kv["status"]
		o.p50, o.p99 = float64(kv["p50_us"]), float64(kv["p99_us"])
	}
	if !found {
		return o, cmdline, fmt.Errorf("%s: no BENCH line in output:\n%s", cmdline, stdout.String())
	}
	return o, cmdline, nil
}

// runWrk warms up with one wrk run, then measures with a second.
func runWrk(cfg config, lua, id, name, path string, conns int, warmup, d time.Duration, during func()) (Result, error) {
	r := Result{ID: id, Name: name, Tool: "wrk", Concurrency: conns, Conns: conns, ItemsPer: 1}
	if warmup > 0 {
		if _, _, err := wrkRun(cfg, lua, path, conns, warmup); err != nil {
			return r, err
		}
	}
	if during != nil {
		go during()
	}
	o, cmdline, err := wrkRun(cfg, lua, path, conns, d)
	if err != nil {
		return r, err
	}
	r.Command = cmdline
	r.Calls, r.Errors = o.requests, o.errors
	r.Seconds = float64(o.durationUS) / 1e6
	r.CallsPerSec = float64(o.requests) / r.Seconds
	r.ItemsPerSec = r.CallsPerSec
	r.P50us, r.P99us = o.p50, o.p99
	if o.requests > 0 {
		r.ClientCPUus = o.cpuSeconds * 1e6 / float64(o.requests)
	}
	return r, nil
}
