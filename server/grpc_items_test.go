package server

import (
	"context"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
)

// badItem is a TranslateRequest whose labby_error.kind is not UTF-8: the
// codec refuses it as protobuf-go would.
var badItem = []byte{0x0a, 0x04, 0x12, 0x02, 0xff, 0xfe}

// Over gRPC too, one malformed batch item fails alone and a malformed
// stream message gets its own error while the stream goes on.
func TestGRPCMalformedItemsFailAlone(t *testing.T) {
	r := start(t, Options{})
	ctx := context.Background()
	good, err := proto.Marshal(validRequest())
	if err != nil {
		t.Fatal(err)
	}

	var batch []byte
	for _, item := range [][]byte{good, badItem, good} {
		batch = protowire.AppendTag(batch, 1, protowire.BytesType)
		batch = protowire.AppendBytes(batch, item)
	}
	var out []byte
	if err := r.conn.Invoke(ctx, errsvcv1.TranslationService_TranslateBatch_FullMethodName, batch, &out, grpc.ForceCodec(rawCodec{})); err != nil {
		t.Fatalf("a batch with one malformed item failed whole: %v", err)
	}
	resp := &errsvcv1.TranslateBatchResponse{}
	if err := proto.Unmarshal(out, resp); err != nil {
		t.Fatal(err)
	}
	if n := len(resp.GetResponses()); n != 3 {
		t.Fatalf("%d responses, want 3", n)
	}
	for i, want := range []bool{false, true, false} {
		e := resp.GetResponses()[i].GetError()
		if (e != nil) != want {
			t.Errorf("item %d error %v, want error %v", i, e, want)
		}
		if e != nil && codes.Code(e.GetCode()) != codes.InvalidArgument {
			t.Errorf("item %d: code %v, want INVALID_ARGUMENT", i, codes.Code(e.GetCode()))
		}
	}

	stream, err := r.conn.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true, ClientStreams: true},
		errsvcv1.TranslationService_TranslateStream_FullMethodName, grpc.ForceCodec(rawCodec{}))
	if err != nil {
		t.Fatal(err)
	}
	for _, msg := range [][]byte{badItem, good} {
		if err := stream.SendMsg(msg); err != nil {
			t.Fatal(err)
		}
	}
	if err := stream.CloseSend(); err != nil {
		t.Fatal(err)
	}
	for i, wantErr := range []bool{true, false} {
		var b []byte
		if err := stream.RecvMsg(&b); err != nil {
			t.Fatalf("stream message %d: %v (a malformed message must not end the stream)", i, err)
		}
		m := &errsvcv1.TranslateResponse{}
		if err := proto.Unmarshal(b, m); err != nil {
			t.Fatal(err)
		}
		if (m.GetError() != nil) != wantErr {
			t.Errorf("stream message %d: error %v, want error %v", i, m.GetError(), wantErr)
		}
	}
}
