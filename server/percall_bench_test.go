package server

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"google.golang.org/protobuf/encoding/protojson"
)

// perCallSources are one real request per source vocabulary (as
// bench/internal/floors.Sources, which this module cannot import).
var perCallSources = []string{
	`"labby_error":{"kind":"rate_limited","message":"slow down"}`,
	`"agent_error":{"code":"TIMEOUT","message":"timed out","retry":"no","details":{"timeoutMs":30000,"idempotent":false}}`,
	`"classified_error":{"code":"account_selection_refused","message":"no account","detail":{"routing_code":"account_hold","retry_after_secs":12}}`,
	`"mcp_tool_result":{"tool":"github::create_issue","is_error":true,"content":[{"type":"text","text":"{\"kind\":\"upstream_error\",\"message\":\"backend 502\"}"}]}`,
}

// perCallPool is the number of distinct cold requests: 16× the default
// cache entries, so no request repeats before the doorkeeper forgot it.
const perCallPool = 1 << 14

// coldBody is cold request n: a source with its own context.service, so
// every request (and answer) is distinct, as bench/run.sh's cold path.
func coldBody(n int) string {
	return fmt.Sprintf(`{"context":{"service":"svc-%d"},%s}`, n, perCallSources[n%len(perCallSources)])
}

// BenchmarkPerCall is errsvc's server cost of one unary Translate on the
// cold path (every request distinct, so the answer cache only misses), on a
// real server on loopback at errsvc's GC target: over gRPC (a grpc-go
// client) and REST (POST /v1/translate over HTTP/1.1; rest-canned is the
// canned-answer floor d* on the same server, see cannedREST), one call at a time
// (serial) and 16 callers at once (parallel: on a saturated machine ns/op
// is the machine's CPU per call, client included). Profile the server's
// share with -cpuprofile and pprof -focus.
//
//	go test ./server -run '^$' -bench BenchmarkPerCall -benchmem -count 3
func BenchmarkPerCall(b *testing.B) {
	defer debug.SetGCPercent(debug.SetGCPercent(DefaultGCPercent))
	bodies := make([][]byte, perCallPool)
	reqs := make([]*errsvcv1.TranslateRequest, perCallPool)
	for i := range perCallPool {
		bodies[i] = []byte(coldBody(i))
		reqs[i] = &errsvcv1.TranslateRequest{}
		if err := protojson.Unmarshal(bodies[i], reqs[i]); err != nil {
			b.Fatal(err)
		}
	}
	quiet := slog.New(slog.NewJSONHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelInfo}))
	// The canned-answer floor (d* of bench/run.sh) beside Translate, so the
	// two compare in one run.
	srv, conn, stop := serveBench(b, Options{Logger: quiet, RegisterGateway: newCannedREST(b).register})
	defer stop()
	client := errsvcv1.NewTranslationServiceClient(conn)
	// No Accept-Encoding, as wrk in bench/run.sh: answers go out uncompressed.
	httpClient := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64, DisableCompression: true}}
	defer httpClient.CloseIdleConnections()
	url := "http://" + srv.HTTPAddr() + "/v1/translate"
	cannedURL := "http://" + srv.HTTPAddr() + cannedPath
	// One sequence for all callers: no two calls send the same request.
	var seq atomic.Uint64

	grpcCall := func(b *testing.B) {
		if _, err := client.Translate(context.Background(), reqs[seq.Add(1)%perCallPool]); err != nil {
			b.Error(err)
		}
	}
	post := func(b *testing.B, url string) {
		resp, err := httpClient.Post(url, "application/json", bytes.NewReader(bodies[seq.Add(1)%perCallPool]))
		if err != nil {
			b.Error(err)
			return
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Errorf("HTTP %d", resp.StatusCode)
		}
	}
	restCall := func(b *testing.B) { post(b, url) }
	cannedCall := func(b *testing.B) { post(b, cannedURL) }
	for _, tr := range []struct {
		name string
		call func(*testing.B)
	}{{"grpc", grpcCall}, {"rest", restCall}, {"rest-canned", cannedCall}} {
		b.Run("transport="+tr.name+"/serial", func(b *testing.B) {
			tr.call(b)
			b.ReportAllocs()
			cpu := processCPU()
			for b.Loop() {
				tr.call(b)
			}
			reportCPU(b, cpu)
		})
		b.Run("transport="+tr.name+"/parallel", func(b *testing.B) {
			b.SetParallelism(max(1, 16/runtime.GOMAXPROCS(0)))
			b.ReportAllocs()
			cpu := processCPU()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					tr.call(b)
				}
			})
			reportCPU(b, cpu)
		})
	}
}

// processCPU is the CPU time (user and system) the process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the CPU time per call since since, client and server
// together: on a shared machine it moves far less than ns/op, which counts
// the time other processes hold the cores.
func reportCPU(b *testing.B, since time.Duration) {
	b.ReportMetric(float64(processCPU()-since)/float64(b.N), "cpu-ns/op")
}
