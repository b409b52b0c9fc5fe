package server

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"google.golang.org/grpc"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/gen/errsvc/v1/errsvcv1connect"
)

// BenchmarkAnswerCache compares one Translate answered from the cache
// (hit: the same request each time, the storm) with one translated, every
// request distinct (the cold path): cache=off (the cache disabled: the cost
// before it existed) and cache=miss (lookup, translation, store and
// eviction: what the cache adds to the cold path), over REST and Connect
// (binary) in process and over gRPC on loopback.
//
//	go test ./server -run '^$' -bench BenchmarkAnswerCache -benchmem -count 3
func BenchmarkAnswerCache(b *testing.B) {
	quiet := slog.New(slog.NewJSONHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelInfo}))
	// More distinct requests than the cache holds: each is a miss.
	const distinct = 1 << 14
	bodies := make([]string, distinct)
	wires := make([][]byte, distinct)
	for i := range distinct {
		msg := fmt.Sprintf("Rate limit reached for requests, request %d", i)
		bodies[i] = fmt.Sprintf(`{"labby_error":{"kind":"rate_limited","message":%q}}`, msg)
		req := &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_LabbyError{
			LabbyError: &errsvcv1.LabbyError{Kind: "rate_limited", Message: msg}}}
		wires[i] = wire(b, req)
	}
	modes := []struct {
		name    string
		entries int
		vary    bool
	}{{"off", -1, true}, {"miss", 0, true}, {"hit", 0, false}}

	for _, m := range modes {
		b.Run("transport=rest/cache="+m.name, func(b *testing.B) {
			h, err := NewHTTPHandler(context.Background(), Options{Logger: quiet, AnswerCacheEntries: m.entries})
			if err != nil {
				b.Fatal(err)
			}
			i := 0
			b.ReportAllocs()
			for b.Loop() {
				body := bodies[0]
				if m.vary {
					i++
					body = bodies[i%distinct]
				}
				req := httptest.NewRequest(http.MethodPost, "/v1/translate", strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
				if w.Code != http.StatusOK {
					b.Fatalf("HTTP %d", w.Code)
				}
			}
		})
	}
	for _, m := range modes {
		b.Run("transport=connect/cache="+m.name, func(b *testing.B) {
			h, err := NewHTTPHandler(context.Background(), Options{Logger: quiet, AnswerCacheEntries: m.entries})
			if err != nil {
				b.Fatal(err)
			}
			i := 0
			b.ReportAllocs()
			for b.Loop() {
				body := wires[0]
				if m.vary {
					i++
					body = wires[i%distinct]
				}
				req := httptest.NewRequest(http.MethodPost, errsvcv1connect.TranslationServiceTranslateProcedure, bytes.NewReader(body))
				req.Header.Set("Content-Type", "application/proto")
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
				if w.Code != http.StatusOK {
					b.Fatalf("HTTP %d", w.Code)
				}
			}
		})
	}
	for _, m := range modes {
		b.Run("transport=grpc/cache="+m.name, func(b *testing.B) {
			_, conn, stop := serveBench(b, Options{Logger: quiet, AnswerCacheEntries: m.entries})
			defer stop()
			i := 0
			var out []byte
			b.ReportAllocs()
			for b.Loop() {
				req := wires[0]
				if m.vary {
					i++
					req = wires[i%distinct]
				}
				if err := conn.Invoke(context.Background(), errsvcv1.TranslationService_Translate_FullMethodName, req, &out, grpc.ForceCodec(rawCodec{})); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkAnswerCacheLookup is the cache alone under contention: 64
// goroutines (on however many cores) looking up a storm's few requests.
func BenchmarkAnswerCacheLookup(b *testing.B) {
	c := newAnswerCache(Options{Metrics: NewMetrics()}, transportGRPC)
	keys := make([][]byte, 16)
	for i := range keys {
		keys[i] = []byte(fmt.Sprintf(`{"labby_error":{"kind":"rate_limited","message":"Rate limit reached %d"}}`, i))
		c.put(&answer{key: keys[i], enc: encodedOf(strings.Repeat("a", 400))})
	}
	// RunParallel starts parallelism × GOMAXPROCS goroutines.
	b.SetParallelism(max(1, 64/runtime.GOMAXPROCS(0)))
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			i++
			if c.get(0, keys[i%len(keys)]) == nil {
				b.Fatal("miss")
			}
		}
	})
}

// BenchmarkAnswerCacheMiss is the cold path's lookup: request bytes never
// seen, against a cache holding a storm's few answers (held) or full to
// its default bound (full), 64 goroutines at once.
func BenchmarkAnswerCacheMiss(b *testing.B) {
	for _, held := range []struct {
		name string
		n    int
	}{{"held=16", 16}, {"held=full", DefaultAnswerCacheEntries}} {
		b.Run(held.name, func(b *testing.B) {
			c := newAnswerCache(Options{Metrics: NewMetrics()}, transportGRPC)
			for i := range held.n {
				c.put(&answer{key: []byte(fmt.Sprintf(`{"labby_error":{"kind":"rate_limited","message":"held %d"}}`, i)), enc: encodedOf(strings.Repeat("a", 400))})
			}
			keys := make([][]byte, 4096)
			for i := range keys {
				keys[i] = []byte(fmt.Sprintf(`{"context":{"service":"svc-%d"},"labby_error":{"kind":"rate_limited","message":"slow down"}}`, i))
			}
			b.SetParallelism(max(1, 64/runtime.GOMAXPROCS(0)))
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				i := 0
				for pb.Next() {
					i++
					if c.get(0, keys[i%len(keys)]) != nil {
						b.Fatal("hit")
					}
				}
			})
		})
	}
}
