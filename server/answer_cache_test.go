package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/errsvc/errsvc/codec"
	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/gen/errsvc/v1/errsvcv1connect"
	"github.com/errsvc/errsvc/internal/secrets"
	"github.com/errsvc/errsvc/translate"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// countingCore is the real translator, counting the translations it made,
// so a test can tell a hit (no translation) from a miss.
type countingCore struct{ n atomic.Int64 }

func (c *countingCore) translate(req *errsvcv1.TranslateRequest) (*errsvcv1.TranslateResponse, bool, error) {
	c.n.Add(1)
	return translate.TranslateCacheable(req)
}

// cacheCounts is one transport's answer cache series.
type cacheCounts struct{ hits, misses, stores, evictions, clock, tooLarge, firstSeen, entries int }

func countsOf(m *Metrics, transport string) cacheCounts {
	s := m.answerCache(transport)
	return cacheCounts{
		hits: int(testutil.ToFloat64(s.hits)), misses: int(testutil.ToFloat64(s.misses)),
		stores: int(testutil.ToFloat64(s.stores)), evictions: int(testutil.ToFloat64(s.evictions)),
		clock: int(testutil.ToFloat64(s.refusedClock)), tooLarge: int(testutil.ToFloat64(s.refusedSize)),
		firstSeen: int(testutil.ToFloat64(s.refusedFirst)),
		entries:   int(testutil.ToFloat64(s.entries)),
	}
}

// grpcRaw sends the request's wire bytes and returns the answer's.
func grpcRaw(t *testing.T, r *running, req []byte) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var out []byte
	if err := r.conn.Invoke(ctx, errsvcv1.TranslationService_Translate_FullMethodName, req, &out, grpc.ForceCodec(rawCodec{})); err != nil {
		t.Fatalf("Translate: %v", err)
	}
	return out
}

func wire(t testing.TB, m proto.Message) []byte {
	t.Helper()
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// cachedRESTAnswer is a REST answer with the headers that do not vary by time.
type cachedRESTAnswer struct {
	code   int
	header http.Header
	body   []byte
}

func restPost(t *testing.T, r *running, body string, header map[string]string) cachedRESTAnswer {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, r.base+"/v1/translate", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	// Raw bytes: no transparent gzip decoding by the client.
	tr := &http.Transport{DisableCompression: true}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	h := resp.Header.Clone()
	h.Del("Date")
	return cachedRESTAnswer{resp.StatusCode, h, b}
}

func labbyJSON(message string) string {
	return fmt.Sprintf(`{"labby_error":{"kind":"rate_limited","message":%q}}`, message)
}

// TestAnswerCacheHitIsTheMissByteForByte: the third identical request is
// answered from the cache (no translation; the first is only seen, the
// second stored) with exactly the bytes of the first answers, on gRPC and on REST (status and headers too, compressed or
// not, with trailers accepted or not), and the answer is the translator's.
func TestAnswerCacheHitIsTheMissByteForByte(t *testing.T) {
	core := &countingCore{}
	r := start(t, Options{translateCacheable: core.translate})
	m := r.srv.opts.Metrics

	// gRPC.
	req := validRequest()
	want, _, err := translate.TranslateCacheable(req)
	if err != nil {
		t.Fatal(err)
	}
	reqBytes := wire(t, req)
	seen := grpcRaw(t, r, reqBytes)
	miss := grpcRaw(t, r, reqBytes)
	hit := grpcRaw(t, r, reqBytes)
	seenResp := &errsvcv1.TranslateResponse{}
	if err := proto.Unmarshal(seen, seenResp); err != nil || !proto.Equal(seenResp, want) {
		t.Errorf("gRPC first answer is not the translation (%v): %v", err, seenResp)
	}
	if !bytes.Equal(miss, hit) {
		t.Errorf("gRPC hit differs from the miss:\n miss %x\n hit  %x", miss, hit)
	}
	got := &errsvcv1.TranslateResponse{}
	if err := proto.Unmarshal(hit, got); err != nil || !proto.Equal(got, want) {
		t.Errorf("gRPC hit is not the translation (%v):\n got  %v\n want %v", err, got, want)
	}
	if c := countsOf(m, transportGRPC); c.hits != 1 || c.misses != 2 || c.firstSeen != 1 || c.stores != 1 || c.entries != 1 {
		t.Errorf("gRPC cache counts %+v, want 1 hit, 2 misses, 1 first seen, 1 store, 1 entry", c)
	}
	if n := core.n.Load(); n != 2 {
		t.Errorf("%d translations for three identical gRPC calls, want 2", n)
	}

	// REST: a small and a large answer (gzip applies above 1 KiB), plain
	// and compressed, with and without trailers.
	large := labbyJSON(strings.Repeat("upstream said slow down; ", 80))
	variants := []map[string]string{nil, {"Accept-Encoding": "gzip"}, {"TE": "trailers"}}
	stores := 0
	for _, body := range []string{labbyJSON("slow down"), large} {
		for _, h := range variants {
			before := core.n.Load()
			first := restPost(t, r, body, h)
			for range 2 {
				second := restPost(t, r, body, h)
				if first.code != http.StatusOK {
					t.Fatalf("REST %v: %d %s", h, first.code, first.body)
				}
				if second.code != first.code || !bytes.Equal(second.body, first.body) || !equalHeaders(first.header, second.header) {
					t.Errorf("REST %v: hit differs from the miss:\n miss %d %v %q\n hit  %d %v %q", h, first.code, first.header, first.body, second.code, second.header, second.body)
				}
			}
			switch n := core.n.Load() - before; n {
			case 2:
				stores++
			case 0:
			default:
				t.Errorf("REST %v: %d translations for three identical calls", h, n)
			}
		}
	}
	// Compression is outside the cache: plain and gzip share an entry;
	// trailers change grpc-gateway's headers, so they have their own.
	if c := countsOf(m, transportHTTP); c.stores != 4 || stores != 4 || c.hits != 10 || c.firstSeen != 4 {
		t.Errorf("REST cache counts %+v (%d stores), want 4 first seen, 4 stores and 10 hits", c, stores)
	}
}

func equalHeaders(a, b http.Header) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if strings.Join(v, "\x00") != strings.Join(b[k], "\x00") {
			return false
		}
	}
	return true
}

// clockRequest's wait is counted from the clock: an HTTP-date Retry-After
// with neither a Date header nor received_at.
func clockRequest(receivedAt *timestamppb.Timestamp) *errsvcv1.TranslateRequest {
	return &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_ProviderResponse{ProviderResponse: &errsvcv1.ProviderResponse{
		Provider: "openai", Status: 429, ReceivedAt: receivedAt,
		Headers: map[string]string{"retry-after": time.Now().Add(90 * time.Second).UTC().Format(http.TimeFormat)},
		Body:    `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`,
	}}}
}

// sendOnEveryTransport sends req n times over gRPC, REST and Connect (in
// binary), each answered OK.
func sendOnEveryTransport(t *testing.T, r *running, req *errsvcv1.TranslateRequest, n int) {
	t.Helper()
	reqBytes := wire(t, req)
	body, err := protojson.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	for range n {
		grpcRaw(t, r, reqBytes)
		if a := restPost(t, r, string(body), nil); a.code != http.StatusOK {
			t.Fatalf("REST: %d %s", a.code, a.body)
		}
		if a := connectPost(t, r, "application/proto", reqBytes, nil); a.code != http.StatusOK {
			t.Fatalf("Connect: %d %s", a.code, a.body)
		}
	}
}

// checkNeverStored sends the clock-relative request three times on each
// transport (gRPC, REST, Connect) and reports what shows it was stored or answered from a store.
func checkNeverStored(t *testing.T, r *running, core *countingCore) []string {
	t.Helper()
	var problems []string
	before := core.n.Load()
	sendOnEveryTransport(t, r, clockRequest(nil), 3)
	if n := core.n.Load() - before; n != 9 {
		problems = append(problems, fmt.Sprintf("%d translations for 9 clock-relative calls", n))
	}
	m := r.srv.opts.Metrics
	for _, tr := range answerCacheTransports {
		if c := countsOf(m, tr); c.hits != 0 || c.stores != 0 || c.entries != 0 || c.clock != 3 {
			problems = append(problems, fmt.Sprintf("%s cache counts %+v, want no hit, store or entry and 3 clock refusals", tr, c))
		}
	}
	return problems
}

// TestAnswerCacheNeverHoldsAClockRelativeWait: a wait counted from the
// clock gives another answer a second later, so it is translated each
// time; the same provider answer pinned by received_at is cached. The
// check is run against a planted bug too (a translator that calls every
// answer cacheable), which it must catch.
func TestAnswerCacheNeverHoldsAClockRelativeWait(t *testing.T) {
	core := &countingCore{}
	r := start(t, Options{translateCacheable: core.translate})
	for _, p := range checkNeverStored(t, r, core) {
		t.Error(p)
	}

	pinned := wire(t, clockRequest(timestamppb.New(time.Unix(1_700_000_000, 0))))
	before := core.n.Load()
	for range 4 {
		grpcRaw(t, r, pinned)
	}
	if n := core.n.Load() - before; n != 2 {
		t.Errorf("%d translations of a wait pinned by received_at in 4 calls, want 2 (cached from the second)", n)
	}

	lying := &countingCore{}
	planted := start(t, Options{translateCacheable: func(req *errsvcv1.TranslateRequest) (*errsvcv1.TranslateResponse, bool, error) {
		resp, _, err := lying.translate(req)
		return resp, true, err
	}})
	if problems := checkNeverStored(t, planted, lying); len(problems) == 0 {
		t.Error("the check did not catch a cache that stores clock-relative answers")
	}
}

// TestAnswerCacheMissesOnAnyByteDifference: another targets list, another
// byte of text, the same message encoded in another field order: each is a
// miss, answered by its own translation, though every one before it was
// sent twice (so stored).
func TestAnswerCacheMissesOnAnyByteDifference(t *testing.T) {
	core := &countingCore{}
	r := start(t, Options{translateCacheable: core.translate})
	base := &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_ProviderResponse{ProviderResponse: &errsvcv1.ProviderResponse{
		Provider: "openai", Status: 429, Headers: map[string]string{"retry-after": "20"},
		Body: `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`,
	}}}
	withTargets := func(targets ...string) *errsvcv1.TranslateRequest {
		m := proto.Clone(base).(*errsvcv1.TranslateRequest)
		m.Targets = targets
		return m
	}
	otherText := proto.Clone(base).(*errsvcv1.TranslateRequest)
	otherText.GetProviderResponse().Body = strings.Replace(otherText.GetProviderResponse().GetBody(), "reached", "reachee", 1)
	otherStatus := proto.Clone(base).(*errsvcv1.TranslateRequest)
	otherStatus.GetProviderResponse().Status = 503
	reqs := []*errsvcv1.TranslateRequest{base, withTargets("http"), withTargets("grpc"), withTargets("http", "grpc"), otherText, otherStatus}

	encodings := [][]byte{}
	for _, req := range reqs {
		encodings = append(encodings, wire(t, req))
	}
	// The same message with its fields in the other order: other bytes.
	targetsOnly := wire(t, &errsvcv1.TranslateRequest{Targets: []string{"http"}})
	reordered := append(wire(t, base), targetsOnly...)
	if bytes.Equal(reordered, encodings[1]) {
		reordered = append(targetsOnly, wire(t, base)...)
	}
	encodings = append(encodings, reordered)
	reqs = append(reqs, withTargets("http"))

	for i, b := range encodings {
		want, _, err := translate.TranslateCacheable(reqs[i])
		if err != nil {
			t.Fatal(err)
		}
		for range 2 {
			got := &errsvcv1.TranslateResponse{}
			if err := proto.Unmarshal(grpcRaw(t, r, b), got); err != nil {
				t.Fatal(err)
			}
			if !proto.Equal(got, want) {
				t.Errorf("request %d: answer is not its own translation:\n got  %v\n want %v", i, got, want)
			}
		}
	}
	if c := countsOf(r.srv.opts.Metrics, transportGRPC); c.hits != 0 || c.misses != 2*len(encodings) || c.stores != len(encodings) {
		t.Errorf("gRPC cache counts %+v, want %d misses and stores, no hit", c, 2*len(encodings))
	}

	// REST: another member order, other whitespace, another target.
	for _, body := range []string{
		`{"labby_error":{"kind":"rate_limited","message":"slow down"}}`,
		`{"labby_error":{"message":"slow down","kind":"rate_limited"}}`,
		`{"labby_error": {"kind":"rate_limited","message":"slow down"}}`,
		`{"labby_error":{"kind":"rate_limited","message":"slow down"},"targets":["http"]}`,
		`{"labby_error":{"kind":"rate_limited","message":"slow dowN"}}`,
	} {
		for range 2 {
			if a := restPost(t, r, body, nil); a.code != http.StatusOK {
				t.Fatalf("%s: %d %s", body, a.code, a.body)
			}
		}
	}
	if c := countsOf(r.srv.opts.Metrics, transportHTTP); c.hits != 0 || c.misses != 10 || c.stores != 5 {
		t.Errorf("REST cache counts %+v, want 10 misses, 5 stores, no hit", c)
	}
}

// TestAnswerCacheCollisionIsAMiss: an entry found under the request's hash
// but made for other bytes is never returned.
func TestAnswerCacheCollisionIsAMiss(t *testing.T) {
	c := newAnswerCache(Options{Metrics: NewMetrics()}, transportGRPC)
	mine, theirs := []byte("request A"), []byte("request B")
	h := c.hash(0, mine)
	s := &c.shards[h&c.mask]
	// Held as put holds it, presence count included, so get reads it.
	c.present[h&c.presentMask].Add(1)
	s.lru.Add(h, &answer{key: theirs, enc: encodedOf("answer to B")})
	if a := c.get(0, mine); a != nil {
		t.Fatalf("a colliding entry answered: %q", a.enc.Bytes)
	}
	c.put(&answer{key: mine, enc: encodedOf("answer to A")})
	if a := c.get(0, mine); a == nil || string(a.enc.Bytes) != "answer to A" {
		t.Fatalf("after a store, got %v", a)
	}
	if a := c.get(1, mine); a != nil {
		t.Fatal("another variant of the same bytes answered")
	}
}

// TestAnswerCacheOff: a negative bound turns the caches off: every call is
// translated, the series still exist (at 0).
func TestAnswerCacheOff(t *testing.T) {
	for _, opts := range []Options{{AnswerCacheEntries: -1}, {AnswerCacheBytes: -1}} {
		core := &countingCore{}
		opts.translateCacheable = core.translate
		r := start(t, opts)
		b := wire(t, validRequest())
		for range 3 {
			grpcRaw(t, r, b)
			restPost(t, r, labbyJSON("slow down"), nil)
		}
		if n := core.n.Load(); n != 6 {
			t.Errorf("%+v: %d translations for 6 calls, want 6", opts, n)
		}
		_, body := r.get(t, "/metrics")
		for _, tr := range answerCacheTransports {
			want := fmt.Sprintf(`errsvc_answer_cache_lookups_total{result="miss",transport=%q} 0`, tr)
			if !strings.Contains(string(body), want) {
				t.Errorf("disabled: /metrics lacks %s", want)
			}
		}
	}
}

// TestAnswerCacheMetrics: every series exists at 0 before the first call,
// and counts afterwards.
func TestAnswerCacheMetrics(t *testing.T) {
	r := start(t, Options{})
	_, body := r.get(t, "/metrics")
	for _, tr := range answerCacheTransports {
		for _, series := range []string{
			`errsvc_answer_cache_lookups_total{result="hit",transport=%q} 0`,
			`errsvc_answer_cache_lookups_total{result="miss",transport=%q} 0`,
			`errsvc_answer_cache_stores_total{transport=%q} 0`,
			`errsvc_answer_cache_evictions_total{transport=%q} 0`,
			`errsvc_answer_cache_refusals_total{reason="clock",transport=%q} 0`,
			`errsvc_answer_cache_refusals_total{reason="too_large",transport=%q} 0`,
			`errsvc_answer_cache_refusals_total{reason="first_seen",transport=%q} 0`,
			`errsvc_answer_cache_entries{transport=%q} 0`,
			`errsvc_answer_cache_bytes{transport=%q} 0`,
		} {
			if want := fmt.Sprintf(series, tr); !strings.Contains(string(body), want) {
				t.Errorf("/metrics before any call lacks %s", want)
			}
		}
	}
	b := wire(t, validRequest())
	for range 3 {
		grpcRaw(t, r, b)
		restPost(t, r, labbyJSON("slow down"), nil)
		connectPost(t, r, "application/proto", b, nil)
	}
	// Over the entry size limit: answered, not stored; seen first, then
	// refused as too large.
	huge := labbyJSON(strings.Repeat("x", 20<<10))
	restPost(t, r, huge, nil)
	restPost(t, r, huge, nil)
	got, missing := r.metricsHolding(t,
		`errsvc_answer_cache_lookups_total{result="hit",transport="grpc"} 1`,
		`errsvc_answer_cache_lookups_total{result="miss",transport="grpc"} 2`,
		`errsvc_answer_cache_lookups_total{result="hit",transport="http"} 1`,
		`errsvc_answer_cache_lookups_total{result="miss",transport="http"} 4`,
		`errsvc_answer_cache_stores_total{transport="http"} 1`,
		`errsvc_answer_cache_entries{transport="grpc"} 1`,
		`errsvc_answer_cache_refusals_total{reason="too_large",transport="http"} 1`,
		`errsvc_answer_cache_refusals_total{reason="first_seen",transport="grpc"} 1`,
		`errsvc_answer_cache_refusals_total{reason="first_seen",transport="http"} 2`,
		`errsvc_answer_cache_refusals_total{reason="first_seen",transport="connect"} 1`,
		// A hit is a translation like any other in the per-call series.
		`errsvc_translations_total{class="transient",code="OK",rpc="/errsvc.v1.TranslationService/Translate",source="labby_error",transport="grpc"} 3`,
		`errsvc_translations_total{class="transient",code="OK",rpc="/errsvc.v1.TranslationService/Translate",source="labby_error",transport="http"} 5`,
		`errsvc_requests_total{code="OK",rpc="/errsvc.v1.TranslationService/Translate",transport="grpc"} 3`,
		`errsvc_requests_total{code="OK",rpc="/errsvc.v1.TranslationService/Translate",transport="http"} 5`,
		`errsvc_translations_total{class="transient",code="OK",rpc="/errsvc.v1.TranslationService/Translate",source="labby_error",transport="connect"} 3`,
		`errsvc_requests_total{code="OK",rpc="/errsvc.v1.TranslationService/Translate",transport="connect"} 3`,
		`errsvc_answer_cache_lookups_total{result="hit",transport="connect"} 1`,
	)
	for _, want := range missing {
		t.Errorf("/metrics lacks %s", want)
	}
	if t.Failed() {
		t.Log(grep(got, "errsvc_answer_cache"))
	}
}

// TestAnswerCacheHitLogsAsTheMiss: the log line of a hit is the miss's,
// but for its duration.
func TestAnswerCacheHitLogsAsTheMiss(t *testing.T) {
	r := start(t, Options{})
	b := wire(t, validRequest())
	for range 3 { // seen, stored, a hit
		grpcRaw(t, r, b)
		restPost(t, r, labbyJSON("slow down"), nil)
		connectPost(t, r, "application/proto", b, nil)
	}
	byTransport := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(r.logs.String()), "\n") {
		var l map[string]any
		if err := json.Unmarshal([]byte(line), &l); err != nil || l["rpc"] != errsvcv1.TranslationService_Translate_FullMethodName {
			continue
		}
		delete(l, "time")
		delete(l, "duration_ms")
		norm, _ := json.Marshal(l)
		tr, _ := l["transport"].(string)
		byTransport[tr] = append(byTransport[tr], string(norm))
	}
	for _, tr := range answerCacheTransports {
		lines := byTransport[tr]
		if len(lines) != 3 || lines[0] != lines[2] || lines[1] != lines[2] {
			t.Errorf("%s: Translate log lines of a miss and a hit differ: %q", tr, lines)
		}
	}
}

// TestAnswerCacheBounded: however many distinct answers are stored, the
// cache holds at most its entries and its bytes, and its gauges say what
// it holds.
func TestAnswerCacheBounded(t *testing.T) {
	m := NewMetrics()
	const entries, budget = 100, 64 << 10
	c := newAnswerCache(Options{Metrics: m, AnswerCacheEntries: entries, AnswerCacheBytes: budget}, transportGRPC)
	for i := range 20000 {
		key := []byte(fmt.Sprintf("request %d", i))
		c.put(&answer{key: key, enc: codec8(i%2000 + 1)})
		if i%997 == 0 || i == 19999 {
			n, size := c.len()
			if n > entries || size > budget {
				t.Fatalf("after %d stores: %d entries, %d bytes; bounds %d, %d", i+1, n, size, entries, budget)
			}
			s := m.answerCache(transportGRPC)
			if g, gb := int(testutil.ToFloat64(s.entries)), int64(testutil.ToFloat64(s.bytes)); g != n || gb != size {
				t.Fatalf("gauges say %d entries, %d bytes; the cache holds %d, %d", g, gb, n, size)
			}
		}
	}
	cc := countsOf(m, transportGRPC)
	if n, _ := c.len(); cc.stores-cc.evictions != n {
		t.Errorf("%d stores - %d evictions != %d entries", cc.stores, cc.evictions, n)
	}
	// The presence counts follow every store and eviction, replacements
	// of a held hash included, and a held entry is still found.
	for i := range 500 {
		key := []byte(fmt.Sprintf("request %d", 19999-i%50))
		c.put(&answer{key: key, enc: codec8(i%700 + 1)})
	}
	if !c.presentAgrees() {
		t.Error("presence counts disagree with the entries held")
	}
	if c.get(0, []byte("request 19950")) == nil {
		t.Error("the entry stored last is not found")
	}

	// Over a real server: many distinct REST requests, a small bound.
	r := start(t, Options{AnswerCacheEntries: 16, AnswerCacheBytes: 1 << 20})
	for i := range 300 {
		for range 2 { // seen, then stored
			restPost(t, r, labbyJSON(fmt.Sprintf("slow down %d", i)), nil)
		}
	}
	if c := countsOf(r.srv.opts.Metrics, transportHTTP); c.entries > 16 || c.stores != 300 {
		t.Errorf("REST cache after 300 distinct requests sent twice: %+v, want 300 stores, at most 16 entries", c)
	}
}

func codec8(n int) codec.Encoded { return encodedOf(strings.Repeat("a", n)) }

func encodedOf(s string) codec.Encoded { return codec.Encoded{Bytes: []byte(s)} }

// TestAnswerCacheConcurrent: 64 callers on the three transports repeat a few
// distinct requests; each gets its own request's answer. Run under -race.
func TestAnswerCacheConcurrent(t *testing.T) {
	r := start(t, Options{AnswerCacheEntries: 8, AnswerCacheBytes: 1 << 20})
	const distinct = 12 // more than the bound: entries are evicted meanwhile
	wants := make([][]byte, distinct)
	reqs := make([][]byte, distinct)
	jsons := make([]string, distinct)
	restWants := make([][]byte, distinct)
	for i := range distinct {
		req := &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_LabbyError{
			LabbyError: &errsvcv1.LabbyError{Kind: []string{"rate_limited", "timeout", "auth_failed"}[i%3], Message: fmt.Sprintf("m%d", i)}}}
		reqs[i] = wire(t, req)
		want, _, err := translate.TranslateCacheable(req)
		if err != nil {
			t.Fatal(err)
		}
		wants[i] = wire(t, want)
		jsons[i] = fmt.Sprintf(`{"labby_error":{"kind":%q,"message":"m%d"}}`, req.GetLabbyError().GetKind(), i)
		restWants[i] = restPost(t, r, jsons[i], nil).body
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	defer client.CloseIdleConnections()
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := range 64 {
		wg.Go(func() {
			for k := range 40 {
				i := (g*7 + k*5) % distinct
				var out []byte
				if err := r.conn.Invoke(context.Background(), errsvcv1.TranslationService_Translate_FullMethodName, reqs[i], &out, grpc.ForceCodec(rawCodec{})); err != nil {
					errs <- err.Error()
					return
				}
				got, want := &errsvcv1.TranslateResponse{}, &errsvcv1.TranslateResponse{}
				_ = proto.Unmarshal(out, got)
				_ = proto.Unmarshal(wants[i], want)
				if !proto.Equal(got, want) {
					errs <- fmt.Sprintf("gRPC request %d got another answer: %v", i, got)
					return
				}
				resp, err := client.Post(r.base+"/v1/translate", "application/json", strings.NewReader(jsons[i]))
				if err != nil {
					errs <- err.Error()
					return
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if !bytes.Equal(body, restWants[i]) {
					errs <- fmt.Sprintf("REST request %d got %s, want %s", i, body, restWants[i])
					return
				}
				resp, err = client.Post(r.base+errsvcv1connect.TranslationServiceTranslateProcedure, "application/proto", bytes.NewReader(reqs[i]))
				if err != nil {
					errs <- err.Error()
					return
				}
				body, _ = io.ReadAll(resp.Body)
				resp.Body.Close()
				got.Reset()
				if err := proto.Unmarshal(body, got); err != nil || !proto.Equal(got, want) {
					errs <- fmt.Sprintf("Connect request %d got another answer (%v): %v", i, err, got)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	for _, tr := range answerCacheTransports {
		if c := countsOf(r.srv.opts.Metrics, tr); c.hits == 0 || c.entries > 8 {
			t.Errorf("%s: %+v, want hits and at most 8 entries", tr, c)
		}
	}
}

// TestAnswerCacheHoldsNoSecret: a planted secret is sanitised out of the
// answer, and the hit is that same sanitised answer.
func TestAnswerCacheHoldsNoSecret(t *testing.T) {
	corpus, err := secrets.LoadSample(5)
	if err != nil {
		t.Fatal(err)
	}
	positions := secrets.Positions()
	r := start(t, Options{})
	for _, pe := range secrets.Plan(len(positions), len(corpus), 1)[:min(60, len(positions))] {
		p, e := positions[pe[0]], corpus[pe[1]]
		req := p.Build(e.Text)
		b := wire(t, req)
		ctx := context.Background()
		var seen, miss, hit []byte
		if err := r.conn.Invoke(ctx, errsvcv1.TranslationService_Translate_FullMethodName, b, &seen, grpc.ForceCodec(rawCodec{})); err != nil {
			continue // refused: errors are not cached
		}
		for _, out := range []*[]byte{&miss, &hit} {
			if err := r.conn.Invoke(ctx, errsvcv1.TranslationService_Translate_FullMethodName, b, out, grpc.ForceCodec(rawCodec{})); err != nil {
				t.Fatal(err)
			}
		}
		resp := &errsvcv1.TranslateResponse{}
		if err := proto.Unmarshal(hit, resp); err != nil {
			t.Fatal(err)
		}
		if path, w, ok := secrets.LeakIn(resp, e.Secret); ok {
			t.Errorf("%s: %q in the cached answer at %s", secrets.Describe(e, p), w, path)
		}
		// The hit is the stored miss byte for byte; the first answer was
		// encoded on its own (map order may differ), so it is the same message.
		first := &errsvcv1.TranslateResponse{}
		if err := proto.Unmarshal(seen, first); err != nil || !bytes.Equal(miss, hit) || !proto.Equal(first, resp) {
			t.Errorf("%s: hit differs from the miss", secrets.Describe(e, p))
		}
	}
	if c := countsOf(r.srv.opts.Metrics, transportGRPC); c.hits == 0 {
		t.Errorf("no hit: %+v", c)
	}
}

// connectPost posts body to Connect's Translate with the content type.
func connectPost(t *testing.T, r *running, contentType string, body []byte, header map[string]string) cachedRESTAnswer {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, r.base+errsvcv1connect.TranslationServiceTranslateProcedure, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	tr := &http.Transport{DisableCompression: true}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	h := resp.Header.Clone()
	h.Del("Date")
	return cachedRESTAnswer{resp.StatusCode, h, b}
}

// TestAnswerCacheConnect: Connect's Translate, in proto and JSON, plain
// and compressed, is answered the third time from the cache (the first is
// seen, the second stored), byte for byte the first answer; each codec and compression has its own entries;
// gRPC-Web is always translated.
func TestAnswerCacheConnect(t *testing.T) {
	core := &countingCore{}
	r := start(t, Options{translateCacheable: core.translate, CORSOrigins: []string{"https://a.example"}})
	small := validRequest()
	large := &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_LabbyError{LabbyError: &errsvcv1.LabbyError{
		Kind: "rate_limited", Message: strings.Repeat("upstream said slow down; ", 80)}}}
	stores := 0
	for _, req := range []*errsvcv1.TranslateRequest{small, large} {
		want, _, err := translate.TranslateCacheable(req)
		if err != nil {
			t.Fatal(err)
		}
		js, err := protojson.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range []struct {
			contentType string
			body        []byte
		}{{"application/proto", wire(t, req)}, {"application/json", js}, {"application/json; charset=utf-8", js}} {
			// A cross-origin caller first: its CORS headers must not be
			// stored for the others.
			for _, h := range []map[string]string{{"Origin": "https://a.example"}, nil, {"Accept-Encoding": "gzip"}} {
				before := core.n.Load()
				first := connectPost(t, r, v.contentType, v.body, h)
				if again := connectPost(t, r, v.contentType, v.body, h); again.code != first.code || !bytes.Equal(again.body, first.body) {
					t.Errorf("%s %v: second answer differs from the first", v.contentType, h)
				}
				second := connectPost(t, r, v.contentType, v.body, h)
				if first.code != http.StatusOK {
					t.Fatalf("%s %v: %d %s", v.contentType, h, first.code, first.body)
				}
				if second.code != first.code || !bytes.Equal(second.body, first.body) || !equalHeaders(first.header, second.header) {
					t.Errorf("%s %v: hit differs from the miss:\n miss %d %v %q\n hit  %d %v %q", v.contentType, h, first.code, first.header, first.body, second.code, second.header, second.body)
				}
				if got := second.header.Get("Access-Control-Allow-Origin"); got != h["Origin"] {
					t.Errorf("%s %v: the hit's CORS origin is %q: %v", v.contentType, h, got, second.header)
				}
				switch n := core.n.Load() - before; n {
				case 2:
					stores++
				case 0:
				default:
					t.Errorf("%s %v: %d translations for three identical calls", v.contentType, h, n)
				}
				if v.contentType == "application/proto" && h["Accept-Encoding"] == "" {
					got := &errsvcv1.TranslateResponse{}
					if err := proto.Unmarshal(second.body, got); err != nil || !proto.Equal(got, want) {
						t.Errorf("proto hit is not the translation (%v): %v", err, got)
					}
				}
			}
		}
	}
	// Per request: 3 codecs × (plain, gzip); the plain call shares the
	// CORS call's entry.
	if c := countsOf(r.srv.opts.Metrics, transportConnect); c.stores != 12 || stores != 12 || c.hits != 30 {
		t.Errorf("Connect cache counts %+v (%d stores), want 12 stores and 30 hits", c, stores)
	}
}

// TestAnswerCacheStoresOnlyRepeats: request bytes seen once are not
// stored (the doorkeeper keeps their hash only), so a run of distinct
// errors never pushes a storm's answers out; the storm's requests, seen
// twice, are stored and then answered from the cache.
func TestAnswerCacheStoresOnlyRepeats(t *testing.T) {
	core := &countingCore{}
	r := start(t, Options{translateCacheable: core.translate, AnswerCacheEntries: 16, AnswerCacheBytes: 1 << 20})
	storm := labbyJSON("rate limit reached")
	for range 2 {
		restPost(t, r, storm, nil)
	}
	for i := range 200 {
		restPost(t, r, labbyJSON(fmt.Sprintf("one-off %d", i)), nil)
	}
	before := core.n.Load()
	restPost(t, r, storm, nil)
	if n := core.n.Load() - before; n != 0 {
		t.Errorf("the storm's answer was translated again after 200 one-off errors: pushed out of the cache")
	}
	c := countsOf(r.srv.opts.Metrics, transportHTTP)
	if c.stores != 1 || c.firstSeen != 201 || c.entries != 1 || c.hits != 1 {
		t.Errorf("REST cache counts %+v, want 1 store, 201 first seen, 1 entry, 1 hit", c)
	}

	// The doorkeeper itself: bytes are admitted on their second sighting
	// in the same variant, never on their first.
	ac := newAnswerCache(Options{Metrics: NewMetrics(), AnswerCacheEntries: 1}, transportGRPC)
	a, b := []byte("request A"), []byte("request B")
	if ac.admit(0, a) || ac.admit(1, a) || ac.admit(0, b) {
		t.Fatal("admitted request bytes on their first sighting")
	}
	if !ac.admit(0, b) {
		t.Error("request B not admitted on its second sighting")
	}
}

// TestAnswerCacheRefusesLargeEntries: an entry over 16 KiB (here the
// request's own bytes) is never stored, on every transport: its first miss
// is counted as first seen (admission comes first, so the cold path never
// sizes an answer twice), each later miss as too large, and each call is
// translated.
func TestAnswerCacheRefusesLargeEntries(t *testing.T) {
	core := &countingCore{}
	r := start(t, Options{translateCacheable: core.translate})
	req := &errsvcv1.TranslateRequest{Source: &errsvcv1.TranslateRequest_LabbyError{LabbyError: &errsvcv1.LabbyError{
		Kind: "rate_limited", Message: strings.Repeat("upstream said slow down; ", 800)}}}
	if n := len(wire(t, req)); n <= maxAnswerEntryBytes {
		t.Fatalf("the request is %d bytes, not over the entry bound", n)
	}
	before := core.n.Load()
	sendOnEveryTransport(t, r, req, 3)
	if n := core.n.Load() - before; n != 9 {
		t.Errorf("%d translations for 9 calls", n)
	}
	for _, tr := range answerCacheTransports {
		if c := countsOf(r.srv.opts.Metrics, tr); c.stores != 0 || c.entries != 0 || c.hits != 0 || c.firstSeen != 1 || c.tooLarge != 2 {
			t.Errorf("%s cache counts %+v, want no store, 1 first seen and 2 too large", tr, c)
		}
	}
}

// TestAnswerCachePresenceCounts: callers storing and looking up at once,
// over a bound small enough to evict all the time, leave every presence
// count equal to the entries its slot holds (a count below would make a
// held answer miss, one above would cost the cold path a lock), and find
// only their own request's answer.
func TestAnswerCachePresenceCounts(t *testing.T) {
	c := newAnswerCache(Options{Metrics: NewMetrics(), AnswerCacheEntries: 16, AnswerCacheBytes: 1 << 20}, transportGRPC)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 2000 {
				key := []byte(fmt.Sprintf("request %d", (g*31+i*7)%40))
				if a := c.get(0, key); a != nil && !bytes.Equal(a.enc.Bytes, append([]byte("answer to "), key...)) {
					t.Errorf("%s found %s", key, a.enc.Bytes)
					return
				}
				c.put(&answer{key: key, enc: encodedOf("answer to " + string(key))})
			}
		})
	}
	wg.Wait()
	if !c.presentAgrees() {
		t.Error("presence counts disagree with the entries held")
	}
	hits := 0
	for i := range 40 {
		if c.get(0, []byte(fmt.Sprintf("request %d", i))) != nil {
			hits++
		}
	}
	if n, _ := c.len(); hits != n || n == 0 {
		t.Errorf("%d of the %d entries held are found", hits, n)
	}
}

// TestAnswerCacheStoresNoFailedAnswer: a translation that succeeds but
// whose answer the REST face or Connect's JSON cannot write (here invalid UTF-8, which JSON
// refuses) is answered with an error and never stored, however often it
// repeats: each repeat is translated again and none is a hit.
func TestAnswerCacheStoresNoFailedAnswer(t *testing.T) {
	var n atomic.Int64
	broken := func(req *errsvcv1.TranslateRequest) (*errsvcv1.TranslateResponse, bool, error) {
		n.Add(1)
		resp, cacheable, err := translate.TranslateCacheable(req)
		if err == nil && resp.GetLabbyError() != nil {
			resp.GetLabbyError().Message = "slow \xff down"
		}
		return resp, cacheable, err
	}
	r := start(t, Options{translateCacheable: broken, AnswerCacheEntries: 16, AnswerCacheBytes: 1 << 20})
	body := labbyJSON("rate limit reached")
	for i := range 3 {
		if a := restPost(t, r, body, nil); a.code == http.StatusOK {
			t.Fatalf("call %d: HTTP 200 for an answer JSON cannot carry: %s", i+1, a.body)
		}
	}
	if got := n.Load(); got != 3 {
		t.Errorf("%d translations for 3 calls, want 3: a failed answer was served from the cache", got)
	}
	if c := countsOf(r.srv.opts.Metrics, transportHTTP); c.hits != 0 || c.stores != 0 || c.entries != 0 {
		t.Errorf("REST cache counts %+v, want no hit, store or entry", c)
	}
	// Connect's JSON, the same.
	n.Store(0)
	for i := range 3 {
		if a := connectPost(t, r, "application/json", []byte(body), nil); a.code == http.StatusOK {
			t.Fatalf("Connect call %d: HTTP 200 for an answer JSON cannot carry: %s", i+1, a.body)
		}
	}
	if got := n.Load(); got != 3 {
		t.Errorf("%d Connect translations for 3 calls, want 3: a failed answer was served from the cache", got)
	}
	if c := countsOf(r.srv.opts.Metrics, transportConnect); c.hits != 0 || c.stores != 0 || c.entries != 0 {
		t.Errorf("Connect cache counts %+v, want no hit, store or entry", c)
	}
}

// TestAnswerCacheHitRefusesAGoneCaller: a REST or Connect caller that gave
// up before its body was looked up is answered as a miss answers it (the
// gateway's or connect-go's cancellation), not with the stored answer.
func TestAnswerCacheHitRefusesAGoneCaller(t *testing.T) {
	core := &countingCore{}
	opts := Options{translateCacheable: core.translate, AnswerCacheEntries: 16, AnswerCacheBytes: 1 << 20,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Metrics: NewMetrics()}
	h, err := NewHTTPHandler(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/v1/translate", "/" + errsvcv1.TranslationService_ServiceDesc.ServiceName + "/Translate"} {
		post := func(ctx context.Context, body string) int {
			req := httptest.NewRequestWithContext(ctx, http.MethodPost, path, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			return w.Code
		}
		stored := labbyJSON("rate limit reached")
		for range 2 {
			if code := post(context.Background(), stored); code != http.StatusOK {
				t.Fatalf("%s: HTTP %d", path, code)
			}
		}
		gone, cancel := context.WithCancel(context.Background())
		cancel()
		miss := post(gone, labbyJSON("never seen"))
		hit := post(gone, stored)
		if miss == http.StatusOK || hit != miss {
			t.Errorf("%s, a caller that gave up: HTTP %d on a miss, %d on a stored answer; want the same refusal", path, miss, hit)
		}
	}
	if c := countsOf(opts.Metrics, transportConnect); c.stores != 1 {
		t.Errorf("Connect stored %d answers, want 1: the test did not reach its cache", c.stores)
	}
}

// TestGRPCHitRefusesAGoneCaller: a gRPC call whose request bytes are
// stored but whose caller gave up gets the refusal a translation would
// give it (CANCELED), not the stored answer.
func TestGRPCHitRefusesAGoneCaller(t *testing.T) {
	opts := Options{}.withDefaults()
	svc := NewService(opts)
	cache := newAnswerCache(opts, transportGRPC)
	key := wire(t, validRequest())
	cache.put(&answer{key: key, enc: codec.Encoded{Bytes: []byte("stored answer")}, source: "labby", class: "transient"})
	l := &grpcLookup{cache: cache}
	if !l.Raw(key) {
		t.Fatal("the stored request's bytes are not found")
	}
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	resp, err := l.translate(gone, svc, validRequest())
	if status.Code(err) != codes.Canceled || resp != nil {
		t.Errorf("a gone caller's hit: %v, %v; want CANCELED and no answer", resp, err)
	}
	if resp, err := l.translate(context.Background(), svc, validRequest()); err != nil || resp != &l.hit.enc {
		t.Errorf("a waiting caller's hit: %v, %v; want the stored answer", resp, err)
	}
}
