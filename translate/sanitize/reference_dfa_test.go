package sanitize

// keywordDFARef is the keyword automaton as it was (its hits, in its
// order, are what candidatesRef sorts).
type keywordDFARef struct {
	class  [256]uint8
	nclass int
	// next[row+class] is the next state's row (state*nclass) shifted left
	// by one, with the low bit set when keywords end in that state.
	next    []uint32
	out     []uint32 // state -> start of its keywords in outs; out[s+1] ends them
	outs    []uint16 // keyword indexes, by state
	length  []uint16 // keyword index -> length
	longest int
}

// newKeywordDFA returns nil when the table would not fit 31-bit rows.
func newKeywordDFARef(keywords []string) *keywordDFARef {
	d := &keywordDFARef{length: make([]uint16, len(keywords))}
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
	d.out = make([]uint32, len(nodes)+1)
	for s := range nodes {
		d.out[s] = uint32(len(d.outs))
		d.outs = append(d.outs, nodes[s].kws...)
	}
	d.out[len(nodes)] = uint32(len(d.outs))
	d.next = make([]uint32, len(next))
	for k, t := range next {
		e := uint32(t*d.nclass) << 1
		if len(nodes[t].kws) > 0 {
			e |= 1
		}
		d.next[k] = e
	}
	return d
}

// find appends every keyword occurrence in s to hits (not in position
// order). The text is walked as two halves at once: the automaton's next
// state depends on the last load, so two independent walks keep the
// processor busy during each other's loads. The first half's walk goes on
// past the middle far enough to see every keyword that starts before it;
// the second starts at the root in the middle and so sees only keywords
// that start there or later.
func (d *keywordDFARef) find(s string, hits []kwHit) []kwHit {
	next, class := d.next, &d.class
	half := len(s) / 2
	ra, rb := 0, 0
	for i := 0; i < half; i++ {
		j := half + i
		ea := next[ra+int(class[s[i]])]
		eb := next[rb+int(class[s[j]])]
		ra, rb = int(ea>>1), int(eb>>1)
		if (ea|eb)&1 != 0 {
			if ea&1 != 0 {
				hits = d.emit(hits, ra, i, len(s))
			}
			if eb&1 != 0 {
				hits = d.emit(hits, rb, j, len(s))
			}
		}
	}
	// The rest of the second half (one byte when len(s) is odd).
	for j := 2 * half; j < len(s); j++ {
		e := next[rb+int(class[s[j]])]
		if rb = int(e >> 1); e&1 != 0 {
			hits = d.emit(hits, rb, j, len(s))
		}
	}
	// The first walk past the middle: keywords that start before it.
	for i := half; i < min(len(s), half+d.longest-1) && ra != 0; i++ {
		e := next[ra+int(class[s[i]])]
		if ra = int(e >> 1); e&1 != 0 {
			hits = d.emit(hits, ra, i, half)
		}
	}
	return hits
}

// emit appends the keywords that end at i in the state at row, when they
// start before limit.
func (d *keywordDFARef) emit(hits []kwHit, row, i, limit int) []kwHit {
	st := row / d.nclass
	for _, k := range d.outs[d.out[st]:d.out[st+1]] {
		if pos := i + 1 - int(d.length[k]); pos < limit {
			hits = append(hits, kwHit{kw: k, pos: int32(pos)})
		}
	}
	return hits
}
