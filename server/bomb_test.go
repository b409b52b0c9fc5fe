package server

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/errsvc/errsvc/codec"
	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// gzipBomb is a JSON request body of inflated bytes (mostly one long
// string of spaces), gzipped: a few kilobytes on the wire.
func gzipBomb(t *testing.T, inflated int) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	io.WriteString(w, `{"labby_error":{"kind":"x","message":"`)
	chunk := strings.Repeat(" ", 1<<16)
	for n := 0; n < inflated; n += len(chunk) {
		io.WriteString(w, chunk)
	}
	io.WriteString(w, `"}}`)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// A gzip bomb over Connect (and gRPC-Web, which shares the decompressor) is
// refused once it inflates past the size limit, without inflating the
// rest: connect-go's own decompressor read a 256 MiB bomb to its end to
// report "message size 268435456". The refusal names the cap, and the
// bytes the server allocated for the call stay near the cap, far below
// what the body inflates to.
func TestConnectGzipBombStopsAtTheLimit(t *testing.T) {
	const limit = 1 << 20
	r := start(t, Options{MaxRequestBytes: limit})
	bomb := gzipBomb(t, 256<<20)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	req, err := http.NewRequest(http.MethodPost, "http://"+r.srv.HTTPAddr()+"/errsvc.v1.TranslationService/Translate", bytes.NewReader(bomb))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Content-Encoding", "gzip")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	runtime.ReadMemStats(&after)
	if resp.StatusCode == http.StatusOK {
		t.Fatalf("a %d-byte gzip bomb was answered 200", len(bomb))
	}
	if strings.Contains(string(body), "268435") {
		t.Errorf("the refusal reports the bomb's whole inflated size, so it was inflated in full: %s", body)
	}
	// In-process: the server's allocations are this process's. A full
	// inflation allocates nothing retained but reads 256 MiB through the
	// decompressor; the bound here is on what stays allocated.
	if grew := int64(after.TotalAlloc - before.TotalAlloc); grew > 64*limit {
		t.Errorf("the call allocated %d bytes for a %d-byte limit", grew, limit)
	}
	t.Logf("bomb of %d bytes (256 MiB inflated): HTTP %d, %d bytes allocated: %s", len(bomb), resp.StatusCode, after.TotalAlloc-before.TotalAlloc, bytes.TrimSpace(body))
}

// A gRPC batch is refused as soon as its item count passes
// --max-batch-items, counted on the wire before one item is decoded: a
// quarter of a million empty items under the byte limit cost a scan, and the
// refusal is the batch limit's, on "requests".
func TestGRPCBatchCountedBeforeDecoding(t *testing.T) {
	r := start(t, Options{MaxRequestBytes: 1 << 20, MaxBatchItems: 10})
	// 250,000 empty items: two bytes each on the wire.
	wire := bytes.Repeat([]byte{0x0a, 0x00}, 250_000)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	err := r.conn.Invoke(context.Background(), "/errsvc.v1.TranslationService/TranslateBatch", &codec.Encoded{Bytes: wire}, &errsvcv1.TranslateBatchResponse{}, grpc.ForceCodecV2(codec.Client))
	runtime.ReadMemStats(&after)
	st := status.Convert(err)
	if st.Code() != codes.ResourceExhausted || !strings.Contains(st.Message(), "at most 10 requests") {
		t.Fatalf("a 250,000-item batch: %v; want resource_exhausted on requests", err)
	}
	if allocs := after.Mallocs - before.Mallocs; allocs > 50_000 {
		t.Errorf("refusing a 250,000-item batch took %d allocations: its items were decoded", allocs)
	}
	t.Logf("250,000 items refused: %v, %d allocations, %d bytes", st.Message(), after.Mallocs-before.Mallocs, after.TotalAlloc-before.TotalAlloc)
}

// Over REST (and Connect's JSON, the same decoder) a batch stops decoding
// once it holds one request past --max-batch-items, and the service
// refuses it on "requests": the rest of a 200,000-item body is not decoded.
func TestRESTBatchStopsDecodingAtTheLimit(t *testing.T) {
	r := start(t, Options{MaxRequestBytes: 4 << 20, MaxBatchItems: 10})
	// Under the JSON value limit (65,536: each "{}," counts two), so the
	// item count is what stops it.
	body := `{"requests":[` + strings.Repeat(`{},`, 30_000) + `{}]}`
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	resp, err := http.Post("http://"+r.srv.HTTPAddr()+"/v1/translate:batch", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	answer, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	runtime.ReadMemStats(&after)
	if !strings.Contains(string(answer), `"code":8`) || !strings.Contains(string(answer), "at most 10 requests") {
		t.Fatalf("a 30,001-item batch: HTTP %d %s; want resource_exhausted on requests", resp.StatusCode, answer)
	}
	if allocs := after.Mallocs - before.Mallocs; allocs > 10_000 {
		t.Errorf("refusing a 30,001-item batch took %d allocations: its items were decoded", allocs)
	}
	t.Logf("30,001 items refused: HTTP %d, %d allocations, %d bytes", resp.StatusCode, after.Mallocs-before.Mallocs, after.TotalAlloc-before.TotalAlloc)
}

// Over Connect's binary codec and gRPC-Web (the same codec) a batch is
// counted on the wire before any item is decoded, as on the gRPC port.
func TestConnectBatchCountedBeforeDecoding(t *testing.T) {
	r := start(t, Options{MaxRequestBytes: 1 << 20, MaxBatchItems: 10})
	wire := bytes.Repeat([]byte{0x0a, 0x00}, 250_000)
	for _, c := range []struct{ name, contentType string }{
		{"Connect", "application/proto"},
		{"gRPC-Web", "application/grpc-web+proto"},
	} {
		body := wire
		if c.name == "gRPC-Web" {
			body = append([]byte{0, 0, 0, 0, 0}, wire...)
			binary.BigEndian.PutUint32(body[1:], uint32(len(wire)))
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		req, _ := http.NewRequest(http.MethodPost, r.base+"/errsvc.v1.TranslationService/TranslateBatch", bytes.NewReader(body))
		req.Header.Set("Content-Type", c.contentType)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		answer, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		runtime.ReadMemStats(&after)
		got := string(answer) + " " + resp.Header.Get("Grpc-Message") + " " + resp.Trailer.Get("Grpc-Message")
		if !strings.Contains(got, "at most 10 requests") {
			t.Errorf("%s: a 250,000-item batch: HTTP %d %q; want the batch refused on its count", c.name, resp.StatusCode, got)
		}
		if allocs := after.Mallocs - before.Mallocs; allocs > 50_000 {
			t.Errorf("%s: refusing a 250,000-item batch took %d allocations: its items were decoded", c.name, allocs)
		}
		t.Logf("%s: 250,000 items refused, %d allocations, %d bytes", c.name, after.Mallocs-before.Mallocs, after.TotalAlloc-before.TotalAlloc)
	}
}

// REST reads a body sent with Content-Encoding: gzip as what it inflates
// to, under the same size limit counted after inflation: a small one is
// translated, a bomb is refused 413 once it inflates past the limit, and
// another encoding is refused naming it.
func TestRESTGzipBodies(t *testing.T) {
	r := start(t, Options{MaxRequestBytes: 1 << 20})
	send := func(encoding string, body []byte) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, r.base+"/v1/translate", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Content-Encoding", encoding)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	var small bytes.Buffer
	w := gzip.NewWriter(&small)
	io.WriteString(w, `{"labby_error":{"kind":"rate_limited","message":"slow down"}}`)
	w.Close()
	if code, body := send("gzip", small.Bytes()); code != http.StatusOK || !strings.Contains(body, "rate_limited") {
		t.Errorf("a gzip body: HTTP %d %.200s", code, body)
	}
	if code, body := send("gzip", gzipBomb(t, 64<<20)); code != http.StatusRequestEntityTooLarge || !strings.Contains(body, "exceeds 1048576 bytes") {
		t.Errorf("a gzip bomb: HTTP %d %.200s; want 413 naming the limit", code, body)
	}
	if code, body := send("br", []byte("x")); code != http.StatusBadRequest || !strings.Contains(body, `Content-Encoding \"br\" is not supported`) {
		t.Errorf("a br body: HTTP %d %.200s; want 400 naming the encoding", code, body)
	}
}
