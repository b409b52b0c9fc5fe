package server

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// One connection holds at most a quarter of the stream slots: the next
// stream on it is refused naming the share, and another connection still
// opens its own.
func TestStreamSlotsAreSharedBetweenConnections(t *testing.T) {
	r := start(t, Options{MaxConcurrentStreams: 8})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	open := func(c errsvcv1.TranslationServiceClient) error {
		st, err := c.TranslateStream(ctx)
		if err != nil {
			return err
		}
		// A stream the server refused at once may end before the send:
		// Send then says io.EOF and Recv has the status (grpc-go's rule).
		if err := st.Send(validRequest()); err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		_, err = st.Recv()
		return err
	}
	for i := 0; i < 2; i++ {
		if err := open(r.client); err != nil {
			t.Fatalf("stream %d on the first connection: %v", i+1, err)
		}
	}
	err := open(r.client)
	if status.Code(err) != codes.ResourceExhausted || !strings.Contains(err.Error(), "one connection may hold at most 2") {
		t.Fatalf("a third stream on one connection: %v; want RESOURCE_EXHAUSTED naming the share", err)
	}
	conn, err := grpc.NewClient(r.srv.GRPCAddr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := open(errsvcv1.NewTranslationServiceClient(conn)); err != nil {
		t.Errorf("a stream on another connection: %v", err)
	}
}
