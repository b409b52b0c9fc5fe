package server

import (
	"context"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"google.golang.org/grpc/tap"
)

// TestCallContext: the context openCall returns carries the record and
// behaves as its parent for everything else: values, deadline,
// cancellation (with its cause) of it and of contexts derived from it.
func TestCallContext(t *testing.T) {
	type key struct{}
	cause := errors.New("the stream ended")
	parent, cancel := context.WithCancelCause(context.WithValue(context.Background(), key{}, "v"))
	deadline := time.Now().Add(time.Hour)
	parent, stop := context.WithDeadline(parent, deadline)
	defer stop()
	ctx, c := openCall(parent, transportGRPC, "/x/Y")
	if callFrom(ctx) != c || c.transport != transportGRPC || c.rpc != "/x/Y" || c.start.IsZero() || c.span == nil {
		t.Fatalf("record %+v not carried", c)
	}
	if callFrom(parent) != nil {
		t.Fatal("the parent carries the record")
	}
	if ctx.Value(key{}) != "v" {
		t.Error("a parent's value is lost")
	}
	if d, ok := ctx.Deadline(); !ok || !d.Equal(deadline) {
		t.Errorf("deadline %v %v, want %v", d, ok, deadline)
	}
	child, cancelChild := context.WithTimeout(ctx, time.Hour)
	defer cancelChild()
	if callFrom(child) != c {
		t.Error("a derived context lost the record")
	}
	cancel(cause)
	select {
	case <-child.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("cancelling the parent did not end a context derived from the call's")
	}
	if ctx.Err() != context.Canceled || !errors.Is(context.Cause(ctx), cause) || !errors.Is(context.Cause(child), cause) {
		t.Errorf("err %v, cause %v / %v", ctx.Err(), context.Cause(ctx), context.Cause(child))
	}
}

// TestReceiveDeadlineEndsWithTheStream: the deadline tapReceive gives a
// unary call is released with the stream's context, which grpc-go cancels
// when the call ends (no timer is left to run for ReceiveTimeout), and
// fires with its own cause when the message does not come.
func TestReceiveDeadlineEndsWithTheStream(t *testing.T) {
	receive := tapReceive(time.Hour)
	stream, end := context.WithCancel(context.Background())
	ctx, err := receive(stream, &tap.Info{FullMethodName: "/errsvc.v1.TranslationService/Translate"})
	if err != nil {
		t.Fatal(err)
	}
	if d, ok := ctx.Deadline(); !ok || time.Until(d) < 59*time.Minute {
		t.Fatalf("deadline %v %v", d, ok)
	}
	end()
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the call's context outlived its stream")
	}
	if errors.Is(context.Cause(ctx), errReceiveTimeout) {
		t.Error("ended as a receive timeout")
	}

	short, err := tapReceive(time.Millisecond)(context.Background(), &tap.Info{FullMethodName: "/errsvc.v1.TranslationService/Translate"})
	if err != nil {
		t.Fatal(err)
	}
	<-short.Done()
	if !errors.Is(context.Cause(short), errReceiveTimeout) || short.Err() != context.DeadlineExceeded {
		t.Errorf("timed out with %v, cause %v", short.Err(), context.Cause(short))
	}
}

// TestReadDeclared reads what io.ReadAll reads, whatever the declared
// length says (a reader may return fewer or more bytes than declared).
func TestReadDeclared(t *testing.T) {
	for _, body := range []string{"", "x", `{"labby_error":{"kind":"rate_limited"}}`, strings.Repeat("y", 5000)} {
		for _, declared := range []int64{-1, 0, 1, int64(len(body)) - 1, int64(len(body)), int64(len(body)) + 7, 1 << 20} {
			got, err := readDeclared(iotest.OneByteReader(strings.NewReader(body)), declared, 1<<16)
			if err != nil || string(got) != body {
				t.Errorf("declared %d: %q, %v; want %q", declared, got, err, body)
			}
		}
	}
	// A large declared body that never comes takes no more than
	// maxBodyPrealloc before its bytes arrive.
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got, err := readDeclared(strings.NewReader(""), 64<<20, 64<<20)
	runtime.ReadMemStats(&after)
	if err != nil || len(got) != 0 || cap(got) > maxBodyPrealloc {
		t.Errorf("declared 64 MiB, sent nothing: len %d cap %d, %v", len(got), cap(got), err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 { // room for other goroutines' allocations
		t.Errorf("declared 64 MiB, sent nothing: %d bytes allocated", grew)
	}
	fail := errors.New("broken")
	if got, err := readDeclared(io.MultiReader(strings.NewReader("ab"), iotest.ErrReader(fail)), 10, 100); !errors.Is(err, fail) || string(got) != "ab" {
		t.Errorf("%q, %v", got, err)
	}
}
