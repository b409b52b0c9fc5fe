package server

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"
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
