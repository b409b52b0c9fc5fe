package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// vmRSS reads VmRSS of pid, in MiB.
func vmRSS(pid int) (float64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			fields := strings.Fields(rest) // "12345 kB"
			kb, err := strconv.ParseFloat(fields[0], 64)
			if err != nil {
				return 0, err
			}
			return kb / 1024, nil
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
}

// runRSS drives sustained Translate load, gRPC (harness) and REST (wrk) at
// once, for cfg.rssDuration after a warm-up, sampling the server's VmRSS
// every cfg.rssInterval, and fits a line through the samples.
func runRSS(cfg config, lua string, translateOp opFactory) (*RSS, error) {
	out := &RSS{Seconds: cfg.rssDuration.Seconds(), IntervalSec: cfg.rssInterval.Seconds()}
	rcfg := cfg
	rcfg.duration = cfg.rssDuration
	var wg sync.WaitGroup
	var grpcErr, httpErr error
	wg.Go(func() {
		out.GRPC, grpcErr = runUnary(rcfg, "rss", "gRPC Translate (RSS run)", cfg.rssGRPCConc, translateOp, nil)
	})
	wg.Go(func() {
		// wrk's warm-up is its first run; the measured run covers the window.
		out.HTTP, httpErr = runWrk(rcfg, lua, "rss", "REST Translate (RSS run)", "/v1/translate", cfg.rssHTTPConc, cfg.warmup, cfg.rssDuration, nil)
	})
	// Sample from the end of the warm-up to the end of the window.
	time.Sleep(cfg.warmup + 500*time.Millisecond)
	deadline := time.Now().Add(cfg.rssDuration)
	var ts []float64
	t0 := time.Now()
	for {
		v, err := vmRSS(cfg.serverPID)
		if err != nil {
			return nil, err
		}
		out.SamplesMiB = append(out.SamplesMiB, v)
		ts = append(ts, time.Since(t0).Minutes())
		fmt.Fprintf(os.Stderr, "rss  t=%5.1fmin VmRSS %.1f MiB\n", ts[len(ts)-1], v)
		if time.Until(deadline) < cfg.rssInterval/2 {
			break
		}
		time.Sleep(min(cfg.rssInterval, time.Until(deadline)))
	}
	wg.Wait()
	if grpcErr != nil {
		return nil, grpcErr
	}
	if httpErr != nil {
		return nil, httpErr
	}
	if out.GRPC.Errors > 0 || out.HTTP.Errors > 0 {
		return nil, fmt.Errorf("errors during the RSS run: gRPC %d, REST %d", out.GRPC.Errors, out.HTTP.Errors)
	}
	s := out.SamplesMiB
	out.StartMiB, out.EndMiB = s[0], s[len(s)-1]
	for _, v := range s {
		out.MaxMiB = max(out.MaxMiB, v)
	}
	out.SlopeMiBMin = slope(ts, s)
	out.FittedGrowth = out.SlopeMiBMin * (ts[len(ts)-1] - ts[0])
	return out, nil
}

// slope is the least-squares slope of y over x.
func slope(x, y []float64) float64 {
	n := float64(len(x))
	if n < 2 {
		return 0
	}
	var sx, sy, sxx, sxy float64
	for i := range x {
		sx += x[i]
		sy += y[i]
		sxx += x[i] * x[i]
		sxy += x[i] * y[i]
	}
	d := n*sxx - sx*sx
	if d == 0 {
		return 0
	}
	return (n*sxy - sx*sy) / d
}
