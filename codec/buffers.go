package codec

import (
	"math/bits"
	"sync"

	"google.golang.org/grpc/mem"
)

// encodeBuffers holds the buffers of large encoded messages (over grpc-go's
// pooling threshold: batch answers and requests, ListVocabularies) between
// calls, one sync.Pool per power-of-two capacity.
//
// grpc-go's default pool would serve them too, but it has five tiers (256 B
// to 1 MiB) and zeroes a buffer's whole capacity on every Get, as every
// pool its mem package exports does (the one that does not is internal): a
// 90 KiB answer of 100 batch items took a 1 MiB buffer and cleared all of
// it, about 7 % of the server's CPU in a TranslateBatch load. An encoder writes
// every byte of the length it asks for (marshalTo refuses an encoding that
// falls short of it), so nothing needs zeroing, and a tier at most twice the
// answer keeps the memory held near the answer's size.
//
// Against grpc-go's default pool, TranslateBatch of 100 items at 16 callers
// ran 20.0% more calls/s (bench/ab.sh with ERRSVC_AB_BATCH=1, medians of 5
// interleaved rounds, 2026-12-05; the rounds' ranges do not overlap); a and
// c, whose answers are under 1 KiB, do not take this path.
var encodeBuffers = &tieredBuffers{}

const (
	// minBufferShift is the smallest tier: grpc-go pools nothing at or
	// below 1 KiB (mem.IsBelowBufferPoolingThreshold).
	minBufferShift = 10
	// maxBufferShift is the largest tier (16 MiB); a larger answer gets a
	// buffer of its own, which the collector takes back.
	maxBufferShift = 24
)

type tieredBuffers struct {
	tiers [maxBufferShift - minBufferShift + 1]sync.Pool
}

var _ mem.BufferPool = (*tieredBuffers)(nil)

// tier is the index of the smallest tier holding n bytes, or -1 if none.
func tier(n int) int {
	shift := max(bits.Len(uint(n-1)), minBufferShift)
	if n <= 0 || shift > maxBufferShift {
		return -1
	}
	return shift - minBufferShift
}

// Get is a buffer of length n; its bytes are whatever the last user left.
func (p *tieredBuffers) Get(n int) *[]byte {
	t := tier(n)
	if t < 0 {
		b := make([]byte, n)
		return &b
	}
	if b, ok := p.tiers[t].Get().(*[]byte); ok {
		*b = (*b)[:n]
		return b
	}
	b := make([]byte, n, 1<<(t+minBufferShift))
	return &b
}

// Put keeps b for a later Get of its tier; a buffer of another capacity
// (one of its own, or not from Get) is left to the collector.
func (p *tieredBuffers) Put(b *[]byte) {
	c := cap(*b)
	if t := tier(c); t >= 0 && c == 1<<(t+minBufferShift) {
		p.tiers[t].Put(b)
	}
}
