package server

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/errsvc/errsvc/codec"
	"github.com/hashicorp/golang-lru/v2/simplelru"
	"github.com/prometheus/client_golang/prometheus"
)

// Translate is a pure function of its request, so when the same request
// arrives again (a provider's rate limit answers thousands of identical
// 429s a second across a fleet, and each is sent here to be classified),
// its transport may answer it with the bytes it wrote the first time. Each
// transport (gRPC Translate, REST POST /v1/translate, Connect's unary
// Translate; see answer_cache_grpc.go, _rest.go, _connect.go) keeps its own answer
// cache, keyed by the request's own bytes, holding the encoded answer, so a
// hit costs neither decoding, translating nor encoding.
//
// What is stored is an answer to bytes seen before: the first time a
// request's bytes miss, only their hash is kept (in a fixed table, the
// "doorkeeper" of TinyLFU), and the answer is stored when they miss again.
// A storm repeats its requests, so it is cached from its second call; a
// stream of distinct errors (each seen once) costs a hash and a store of
// eight bytes instead of copies, an entry and an eviction each, and never
// pushes a storm's answers out.
//
// What is never stored: an answer whose wait was counted from the clock
// (translate.TranslateCacheable says so: an HTTP-date Retry-After without a
// Date header or received_at gives another wait a second later), an error
// (a refusal is cheap to make again), and an entry over
// maxAnswerEntryBytes. What is stored is the answer as it went out, so
// already sanitised; the key is the request, held in memory only and
// compared in full on every hit, so a hash collision can never return
// another request's answer.
//
// A hit is accounted for as the translation it stands for (Service.
// translateHit): the same per-call and per-item metrics, log line and
// trace. Only errsvc_translation_duration_seconds, the time spent in the
// core, is not observed: the core does not run.

// Defaults of the answer cache bounds (Options.AnswerCacheEntries,
// AnswerCacheBytes), per transport.
const (
	// Small on purpose: errsvc runs at GOGC 400, so the heap may grow to
	// five times what the caches hold (bench/run.sh's RSS run measured
	// 300 MiB with 4096 entries and 16 MiB per transport). A storm is a
	// handful of distinct answers; a thousand entries hold it many times.
	DefaultAnswerCacheEntries = 1024
	DefaultAnswerCacheBytes   = 4 << 20
	// maxAnswerEntryBytes is the largest entry stored (request, answer and
	// overhead): an error worth caching is a few hundred bytes each way,
	// and one large request must not push a storm's answers out.
	maxAnswerEntryBytes = 16 << 10
	// answerOverhead is what an entry costs beyond its bytes: the entry,
	// its list element and map slot, the slice headers.
	answerOverhead = 160
	// seenPerEntry is the doorkeeper's slots per entry bound: a request
	// repeated within a few cache lifetimes' worth of distinct requests is
	// recognised on its second miss.
	seenPerEntry = 4
)

// answerNote is what Translate tells its transport about a successful
// answer (through the call record, see call.answer).
type answerNote struct {
	answered  bool
	cacheable bool
	// source and class are the labels the translation was counted under.
	source, class string
}

// answer is one cache entry. Nothing writes to it once stored.
type answer struct {
	// variant is the state of the call beyond the request's bytes that
	// changes the answer's bytes (REST: whether the client accepts
	// trailers, which changes the headers grpc-gateway writes).
	variant byte
	key     []byte
	enc     codec.Encoded
	// header is the REST answer's headers.
	header http.Header
	// source and class label the translation a hit stands for.
	source, class string
	size          int64
}

// answerShards is the number of independently locked parts of a cache
// (fewer for a small bound): 64 concurrent callers on a few cores rarely
// meet on one lock, whose critical section is a map lookup and a list move.
const answerShards = 32

// answerCache is a sharded LRU of answers bounded in entries and bytes. A
// nil *answerCache is a disabled cache: every method is a no-op.
type answerCache struct {
	// policy's generation is part of every key (hash), and a swap empties
	// the cache (purge): an answer made under one policy is never served
	// under another.
	policy   *PolicyHolder
	seed     maphash.Seed
	shards   []answerShard
	mask     uint64
	maxEntry int64
	// seen is the doorkeeper: the hashes of request bytes that missed once,
	// one per slot, the newest winning (see admit).
	seen     []atomic.Uint64
	seenMask uint64
	// present counts, per slot, the entries held whose hash falls in it
	// (kept under the shards' locks, read without them): a slot at zero
	// proves a miss, so the cold path (every request new) neither takes a
	// shard's lock nor reads its map, memory the other callers keep cold.
	// What it earns a caller (issue 42's rule): with every miss taking the
	// shard's lock instead, REST Translate cold (c) ran 3.0% and 3.2%
	// slower at 16 and 64 callers, gRPC (a) 1.0% and 1.3% faster
	// (bench/ab.sh, 3 interleaved rounds, 2026-12-05; the rounds' ranges
	// overlap).
	present     []atomic.Int32
	presentMask uint64
	m           answerCacheMetrics
}

type answerShard struct {
	mu       sync.Mutex
	lru      *simplelru.LRU[uint64, *answer]
	bytes    int64
	maxBytes int64
	// Keeps neighbouring shards' locks off one cache line.
	_ [64]byte
}

// answerCacheMetrics are one transport's series, resolved once.
type answerCacheMetrics struct {
	hits, misses, stores, evictions         prometheus.Counter
	refusedClock, refusedSize, refusedFirst prometheus.Counter
	entries, bytes                          prometheus.Gauge
}

// newAnswerCache is transport's cache under opts' bounds, or nil when
// either bound is negative (disabled).
func newAnswerCache(opts Options, transport string) *answerCache {
	entries, budget := opts.AnswerCacheEntries, opts.AnswerCacheBytes
	if entries < 0 || budget < 0 {
		return nil
	}
	if entries == 0 {
		entries = DefaultAnswerCacheEntries
	}
	if budget == 0 {
		budget = DefaultAnswerCacheBytes
	}
	// Each shard holds a whole share of both bounds, so the shares never
	// add up to more than the bounds; a shard should hold a few entries.
	n := answerShards
	for n > 1 && (entries/n < 8 || budget/int64(n) < maxAnswerEntryBytes) {
		n /= 2
	}
	c := &answerCache{
		policy:   opts.Policy,
		seed:     maphash.MakeSeed(),
		shards:   make([]answerShard, n),
		mask:     uint64(n - 1),
		maxEntry: min(maxAnswerEntryBytes, budget/int64(n)),
		m:        opts.Metrics.answerCache(transport),
	}
	seen := 1
	for seen < seenPerEntry*entries {
		seen *= 2
	}
	c.seen, c.seenMask = make([]atomic.Uint64, seen), uint64(seen-1)
	// Half the doorkeeper's slots (at least two per entry): mostly empty
	// even when the cache is full.
	c.present, c.presentMask = make([]atomic.Int32, seen/2), uint64(seen/2-1)
	for i := range c.shards {
		s := &c.shards[i]
		s.maxBytes = budget / int64(n)
		// NewLRU fails only for a size below 1. Every entry leaves through
		// this callback (Remove, RemoveOldest, an eviction by Add).
		s.lru, _ = simplelru.NewLRU(max(1, entries/n), func(h uint64, a *answer) {
			c.present[h&c.presentMask].Add(-1)
			s.bytes -= a.size
			c.m.evictions.Inc()
			c.m.entries.Dec()
			c.m.bytes.Sub(float64(a.size))
		})
	}
	opts.Policy.whenSwapped(c.purge)
	return c
}

func (c *answerCache) hash(variant byte, key []byte) uint64 {
	var h maphash.Hash
	h.SetSeed(c.seed)
	if c.policy != nil {
		// A lookup reads the generation before its translation loads the
		// policy (PolicyHolder.Swap stores the policy first), so an answer
		// is stored under its own policy's generation or an older one,
		// never found by a lookup under a newer policy.
		var g [8]byte
		binary.LittleEndian.PutUint64(g[:], c.policy.Gen())
		_, _ = h.Write(g[:])
	}
	_ = h.WriteByte(variant)
	_, _ = h.Write(key)
	return h.Sum64()
}

// get is the answer stored for exactly these request bytes, or nil; it
// counts a hit or a miss.
func (c *answerCache) get(variant byte, key []byte) *answer {
	a, _ := c.find(variant, key)
	return a
}

// find is get that also returns the bytes' hash, which a miss hands on to
// admitHash and putHash rather than hashing the same bytes again.
func (c *answerCache) find(variant byte, key []byte) (*answer, uint64) {
	if c == nil {
		return nil, 0
	}
	h := c.hash(variant, key)
	if c.present[h&c.presentMask].Load() == 0 {
		c.m.misses.Inc()
		return nil, h
	}
	s := &c.shards[h&c.mask]
	s.mu.Lock()
	a, ok := s.lru.Get(h)
	s.mu.Unlock()
	// The full key, not only its hash: a collision is a miss.
	if ok && a.variant == variant && bytes.Equal(a.key, key) {
		c.m.hits.Inc()
		return a, h
	}
	c.m.misses.Inc()
	return nil, h
}

// fits reports whether an entry of these sizes may be stored; if not, it
// counts the refusal. The transports ask it after admit, so a first miss
// counts as first seen whatever its size, and gRPC encodes an answer for
// the cache only once its request was admitted.
func (c *answerCache) fits(keyLen, valueLen int) bool {
	if int64(keyLen+valueLen+answerOverhead) > c.maxEntry {
		c.m.refusedSize.Inc()
		return false
	}
	return true
}

// admit reports whether these request bytes missed before (their hash is
// in the doorkeeper), so that their answer is worth storing; if not, it
// records them and counts the refusal. Two requests whose hashes share a
// slot only make one of them wait for a third miss, or be stored on its
// second; neither ever answers for the other (get compares the bytes).
func (c *answerCache) admit(variant byte, key []byte) bool {
	return c.admitHash(c.hash(variant, key))
}

// admitHash is admit of the bytes whose hash (find) is h.
func (c *answerCache) admitHash(h uint64) bool {
	slot := &c.seen[h&c.seenMask]
	if slot.Load() == h {
		return true
	}
	slot.Store(h)
	c.m.refusedFirst.Inc()
	return false
}

// uncacheable counts an answer that may not be stored: its wait was
// counted from the clock.
func (c *answerCache) uncacheable() {
	if c != nil {
		c.m.refusedClock.Inc()
	}
}

// put stores a, whose key, enc and header nothing writes to any more,
// evicting the least recently used entries of its shard to stay in bounds.
func (c *answerCache) put(a *answer) {
	if c == nil {
		return
	}
	c.putHash(a, c.hash(a.variant, a.key))
}

// putHash is put of an answer whose key's hash (find) is h.
func (c *answerCache) putHash(a *answer, h uint64) {
	if c == nil {
		return
	}
	a.size = int64(len(a.key) + len(a.enc.Bytes) + answerOverhead)
	for k, vs := range a.header {
		a.size += int64(len(k) + 16)
		for _, v := range vs {
			a.size += int64(len(v) + 16)
		}
	}
	if a.size > c.maxEntry {
		c.m.refusedSize.Inc()
		return
	}
	s := &c.shards[h&c.mask]
	s.mu.Lock()
	defer s.mu.Unlock()
	// A concurrent miss of the same request, or a collision: the newer
	// answer replaces the older (counted as an eviction).
	s.lru.Remove(h)
	for s.bytes+a.size > s.maxBytes {
		if _, _, ok := s.lru.RemoveOldest(); !ok {
			break
		}
	}
	s.bytes += a.size
	c.m.stores.Inc()
	c.m.entries.Inc()
	c.m.bytes.Add(float64(a.size))
	// Counted before it can be found; h is not held (removed above).
	c.present[h&c.presentMask].Add(1)
	s.lru.Add(h, a) // may evict the oldest entry, over the entry bound
}

// presentAgrees reports whether every presence count is the number of
// entries held whose hash falls in its slot, for tests.
func (c *answerCache) presentAgrees() bool {
	want := make([]int32, len(c.present))
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		for _, h := range s.lru.Keys() {
			want[h&c.presentMask]++
		}
		s.mu.Unlock()
	}
	for i := range want {
		if c.present[i].Load() != want[i] {
			return false
		}
	}
	return true
}

// len and size are the entries and bytes held, for tests.
func (c *answerCache) len() (n int, size int64) {
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		n += s.lru.Len()
		size += s.bytes
		s.mu.Unlock()
	}
	return n, size
}

// purge removes every entry (a policy swap). The doorkeeper keeps its
// hashes: under the new generation they are other keys.
func (c *answerCache) purge() {
	if c == nil {
		return
	}
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		s.lru.Purge()
		s.mu.Unlock()
	}
}
