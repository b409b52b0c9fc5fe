package sanitize

// keywordDFA finds every occurrence of a set of lower-case ASCII keywords
// in a text, ASCII case-insensitively, in one pass and without copying or
// lowering the text: an Aho-Corasick automaton with its failure links
// folded into a dense transition table over byte classes. A byte that no
// keyword contains is class 0 and sends every state back to the root, so
// ordinary prose costs one table load per byte.
//
// It replaces a general Aho-Corasick library here because that library's
// string entry point copies the text, allocates one value per hit and
// walks 256-wide rows per state (several MB for gitleaks' keywords), which
// made the keyword pass alone cost more than the 5 ns per byte the whole
// sanitiser has.
type keywordDFA struct {
	class  [256]uint8
	nclass int
	// next[row+class] is the next state's row (state*nclass); keywords
	// end in the states whose rows are outRow or more.
	next    []uint32
	outRow  uint32
	recip   uint64   // ceil(2^32 / nclass), for emit's division
	out     []uint32 // state -> start of its keywords in outs; out[s+1] ends them
	outs    []uint16 // keyword indexes, by state
	length  []uint16 // keyword index -> length
	longest int
}

// kwHit is one keyword occurrence: its index and where it starts.
type kwHit struct {
	kw  uint16
	pos int32
}

// newKeywordDFA returns nil when the table would not fit 31-bit rows.
func newKeywordDFA(keywords []string) *keywordDFA {
	d := &keywordDFA{length: make([]uint16, len(keywords))}
	for _, k := range keywords {
		for i := 0; i < len(k); i++ {
			b := k[i]
			if d.class[b] == 0 {
				d.nclass++
				d.class[b] = uint8(d.nclass)
			}
		}
	}
	d.nclass++ // class 0 included
	for b := 'A'; b <= 'Z'; b++ {
		d.class[b] = d.class[b+'a'-'A']
	}
	// The trie.
	type node struct {
		child map[uint8]int
		kws   []uint16
		fail  int
	}
	nodes := []node{{child: map[uint8]int{}}}
	for ki, k := range keywords {
		d.length[ki] = uint16(len(k))
		d.longest = max(d.longest, len(k))
		s := 0
		for i := 0; i < len(k); i++ {
			c := d.class[k[i]]
			t, ok := nodes[s].child[c]
			if !ok {
				t = len(nodes)
				nodes = append(nodes, node{child: map[uint8]int{}})
				nodes[s].child[c] = t
			}
			s = t
		}
		nodes[s].kws = append(nodes[s].kws, uint16(ki))
	}
	// Breadth-first: failure links, inherited outputs, dense transitions.
	next := make([]int, len(nodes)*d.nclass)
	queue := []int{0}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for c := 0; c < d.nclass; c++ {
			t, ok := nodes[s].child[uint8(c)]
			if !ok {
				if s != 0 {
					next[s*d.nclass+c] = next[nodes[s].fail*d.nclass+c]
				}
				continue
			}
			if s != 0 {
				nodes[t].fail = next[nodes[s].fail*d.nclass+c]
				nodes[t].kws = append(nodes[t].kws, nodes[nodes[t].fail].kws...)
			}
			next[s*d.nclass+c] = t
			queue = append(queue, t)
		}
	}
	if len(nodes)*d.nclass >= 1<<31 {
		return nil
	}
	// States are renumbered so that those where keywords end come last
	// (the root, where none ends, stays 0): a walk then tells a keyword's
	// end by comparing the row it loaded with outRow, off the chain of
	// dependent loads, instead of stripping a flag bit from every entry.
	id := make([]int, len(nodes))
	n := 0
	for pass := 0; pass < 2; pass++ {
		for st := range nodes {
			if (len(nodes[st].kws) > 0) == (pass == 1) {
				id[st] = n
				n++
			}
		}
	}
	order := make([]int, len(nodes)) // new id -> node
	outStates := 0
	for st := range nodes {
		order[id[st]] = st
		if len(nodes[st].kws) > 0 {
			outStates++
		}
	}
	d.outRow = uint32((len(nodes) - outStates) * d.nclass)
	d.recip = (1<<32 + uint64(d.nclass) - 1) / uint64(d.nclass)
	d.out = make([]uint32, len(nodes)+1)
	for ns, st := range order {
		d.out[ns] = uint32(len(d.outs))
		d.outs = append(d.outs, nodes[st].kws...)
	}
	d.out[len(nodes)] = uint32(len(d.outs))
	d.next = make([]uint32, len(next))
	for k, t := range next {
		st, c := k/d.nclass, k%d.nclass
		d.next[id[st]*d.nclass+c] = uint32(id[t] * d.nclass)
	}
	return d
}

// walk2 steps the two walks in r over s0[i:] and s1[i:] (of one length)
// and returns the index of the first step after which one of them is in a
// state where keywords end, len(s0) when there is none. It is a leaf, so
// that the walks' states stay in registers: in find's loop, whose hits
// call emit, the compiler kept them on the stack, and a store and reload
// on each walk's chain of dependent loads made every step slower.
func (d *keywordDFA) walk2(s0, s1 string, r *[2]uint32, i int) int {
	next, class, outRow := d.next, &d.class, d.outRow
	s1 = s1[:len(s0)]
	r0, r1 := r[0], r[1]
	for ; i < len(s0); i++ {
		r0 = next[r0+uint32(class[s0[i]])]
		r1 = next[r1+uint32(class[s1[i]])]
		if r0 >= outRow || r1 >= outRow {
			break
		}
	}
	r[0], r[1] = r0, r1
	return i
}

// find appends every keyword occurrence in s to hits (not in position
// order), walking two halves of s at once: the automaton's next state
// depends on the last load, so two independent walks keep the processor
// busy during each other's loads. The first walk goes on past the middle
// far enough to see every keyword that starts before it.
func (d *keywordDFA) find(s string, hits []kwHit) []kwHit {
	next, class, outRow := d.next, &d.class, d.outRow
	half := len(s) / 2
	var r [2]uint32
	for i := 0; ; i++ {
		if i = d.walk2(s[:half], s[half:2*half], &r, i); i == half {
			break
		}
		if r[0] >= outRow {
			hits = d.emit(hits, int(r[0]), i, len(s))
		}
		if r[1] >= outRow {
			hits = d.emit(hits, int(r[1]), half+i, len(s))
		}
	}
	ra, rb := r[0], r[1]
	// The rest of the second half (one byte when len(s) is odd).
	for j := 2 * half; j < len(s); j++ {
		if rb = next[rb+uint32(class[s[j]])]; rb >= outRow {
			hits = d.emit(hits, int(rb), j, len(s))
		}
	}
	// The first walk past the middle: keywords that start before it.
	for i := half; i < min(len(s), half+d.longest-1) && ra != 0; i++ {
		if ra = next[ra+uint32(class[s[i]])]; ra >= outRow {
			hits = d.emit(hits, int(ra), i, half)
		}
	}
	return hits
}

// emit appends the keywords that end at i in the state at row, when they
// start before limit.
func (d *keywordDFA) emit(hits []kwHit, row, i, limit int) []kwHit {
	st := int(uint64(row) * d.recip >> 32) // row / nclass: row is a multiple of it below 2^31
	for _, k := range d.outs[d.out[st]:d.out[st+1]] {
		if pos := i + 1 - int(d.length[k]); pos < limit {
			hits = append(hits, kwHit{kw: k, pos: int32(pos)})
		}
	}
	return hits
}
