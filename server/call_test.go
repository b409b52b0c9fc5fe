package server

import (
	"context"
	"errors"
	"testing"
	"time"
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
