package codec

import (
	"bytes"
	"strings"
	"testing"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"google.golang.org/protobuf/proto"
)

// The tiers: the smallest power of two from 1 KiB holding n, none above
// 16 MiB or for nothing.
func TestTier(t *testing.T) {
	for _, c := range []struct{ n, want int }{
		{-1, -1}, {0, -1}, {1, 0}, {1024, 0}, {1025, 1}, {2048, 1}, {2049, 2},
		{90 << 10, 7}, {16 << 20, maxBufferShift - minBufferShift}, {16<<20 + 1, -1},
	} {
		if got := tier(c.n); got != c.want {
			t.Errorf("tier(%d) = %d, want %d", c.n, got, c.want)
		}
	}
}

// A large answer's buffer is at most twice its size (grpc-go's default pool
// handed a 90 KiB batch answer a 1 MiB buffer, and zeroed all of it on each
// Get), and goes back to be reused.
func TestLargeAnswerBuffer(t *testing.T) {
	batch := &errsvcv1.TranslateBatchResponse{}
	for range 100 {
		batch.Responses = append(batch.Responses, &errsvcv1.TranslateResponse{
			LabbyError: &errsvcv1.LabbyError{Kind: "rate_limited", Message: strings.Repeat("slow down ", 90)}})
	}
	want, err := proto.MarshalOptions{Deterministic: true}.Marshal(batch)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := Encode(batch)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(enc.Bytes, want) {
		t.Fatal("the pooled encoding differs from protobuf-go's")
	}
	if c := cap(*enc.pooled); c > 2*len(want) || c < len(want) {
		t.Fatalf("a %d-byte answer got a buffer of %d bytes", len(want), c)
	}
	bs, err := Server.Marshal(enc)
	if err != nil {
		t.Fatal(err)
	}
	bs.Free()
	// The next Get of that tier may return that buffer, holding the last
	// answer's bytes (sync.Pool may also drop it: TestMarshalToFillsTheBuffer
	// makes the dirty buffer certain): a shorter answer must still come out
	// exactly.
	batch.Responses = batch.Responses[:90]
	want, _ = proto.MarshalOptions{Deterministic: true}.Marshal(batch)
	bs, err = Server.Marshal(batch)
	if err != nil {
		t.Fatal(err)
	}
	if got := bs.Materialize(); !bytes.Equal(got, want) {
		t.Fatal("an answer encoded into a reused buffer differs from protobuf-go's")
	}
	bs.Free()
}

// marshalTo fills the whole buffer it is given or fails: a reused buffer's
// unwritten bytes would be an earlier answer's. Into a buffer full of
// garbage it writes exactly protobuf-go's encoding.
func TestMarshalToFillsTheBuffer(t *testing.T) {
	for name, m := range map[string]generated{
		"answer":       &errsvcv1.TranslateResponse{HttpStatus: proto.Int32(429)},
		"batch":        &errsvcv1.TranslateBatchResponse{Responses: []*errsvcv1.TranslateResponse{{HttpStatus: proto.Int32(429)}}},
		"vocabularies": &errsvcv1.ListVocabulariesResponse{Vocabularies: []*errsvcv1.Vocabulary{{Name: "labby"}}},
	} {
		size := sizeOf(m)
		dirty := bytes.Repeat([]byte{0xff}, size)
		if err := marshalTo(m, dirty); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if want, _ := (proto.MarshalOptions{Deterministic: true}).Marshal(m); !bytes.Equal(dirty, want) {
			t.Errorf("%s: encoded into a dirty buffer, the bytes differ from protobuf-go's", name)
		}
		if err := marshalTo(m, make([]byte, size+3)); err == nil {
			t.Errorf("%s: an encoding 3 bytes short of its buffer was accepted", name)
		}
	}
}

// A buffer of a capacity Get never makes is not kept.
func TestPutKeepsOnlyTiers(t *testing.T) {
	p := &tieredBuffers{}
	odd := make([]byte, 3000)
	p.Put(&odd)
	if b := p.Get(3000); cap(*b) != 4096 {
		t.Fatalf("Get(3000) has capacity %d, want 4096 (the odd buffer was kept)", cap(*b))
	}
	big := p.Get(32 << 20)
	if len(*big) != 32<<20 {
		t.Fatalf("Get above the tiers: length %d", len(*big))
	}
}
