package search

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"
	"slices"
)

// builder accumulates documents in memory until it is written as a
// segment. It is not safe for concurrent use: each indexing worker has
// its own.
//
// Its memory is bounded by the budget it is made with, whatever it is
// fed: every table is allocated once, at its share of the budget, and
// reused after each flush (full reports when one of them cannot take the
// next document). Nothing in it holds a pointer, so the garbage collector
// never walks it: before this, a builder's millions of term strings and
// postings slices were most of an index build's collection work, and its
// peak grew with the cores (one 48 MiB builder each).
//
// Terms live in an open-addressing table over one byte arena; each term's
// postings are a chain of blocks in another arena, each block twice the
// size of the one before up to maxBlock (a rare term takes 16 bytes, a
// common one a few long blocks).
type builder struct {
	seed  maphash.Seed
	slots []uint64 // a term's hash tag (high 32 bits) and id + 1; 0 empty

	// per term id, in one entry, so that a lookup and an update touch
	// one cache line beside the term's bytes and its last block
	ents []termEntry

	terms []byte // term bytes
	arena []byte // postings blocks: next (uint32), then payload
	docs  []doc

	totalDL uint64
	scratch []uint32
	tok     tokenizer
	// the document being added (see add)
	docTerms []byte
	docToks  []docTok
	sink     uint64 // keeps add's first pass from being optimised away
}

// termEntry is what the builder knows of a term: where its bytes are,
// its counts as documents are added, and where its postings are (its
// first and last block, how much of the last is written and its size
// class).
type termEntry struct {
	ref        uint64 // offset of its bytes in terms << 8 | their length
	lastDoc    uint32 // last doc added + 1 (0: none)
	tf         uint32 // occurrences in the current doc
	df         uint32 // documents with the term
	head, tail uint32
	used       uint16
	level      uint8
}

const (
	minBlock = 16
	maxBlock = 2048
	// termCost is what a term costs beyond its bytes and postings: its
	// slots (two at most half full, 16 bytes) and its entry (32), plus
	// what writing it as a segment takes (its sort key, 16, and its entry
	// in the dictionary built in memory, about 12 beyond its bytes, which
	// may double as it grows: 40).
	termCost = 16 + 32 + 56
	docCost  = 24 // a doc in memory
)

// newBuilder makes a builder that holds at most about budget bytes.
func newBuilder(budget int64) *builder {
	// Half for terms (their bytes at about 12 each on average, maxTerm
	// at most), 42 % for postings, 8 % for documents: measured on a
	// gigabyte of generated sessions with their long tail of distinct
	// terms (identifiers, numbers, hashes), the three fill about
	// together, at 100 bytes of postings and half a document per term.
	maxTerms := max(1024, int(budget/2/(termCost+12)))
	maxDocs := max(1024, int(budget*8/100/docCost))
	nSlots := 1
	for nSlots < 2*maxTerms {
		nSlots <<= 1
	}
	return &builder{
		seed:  maphash.MakeSeed(),
		slots: make([]uint64, nSlots),
		ents:  make([]termEntry, 0, maxTerms),
		terms: make([]byte, 0, maxTerms*12),
		arena: make([]byte, 0, max(1<<20, budget*42/100)),
		docs:  make([]doc, 0, maxDocs),
	}
}

func (b *builder) empty() bool { return len(b.docs) == 0 }

// full reports whether the builder may not take a document of n bytes of
// text: its terms, their bytes, its postings or its documents could
// overflow their tables. A document of n bytes has at most n/2+1 terms
// (each a letter or digit and a separator) of at most maxTerm bytes, and
// a posting takes at most 10 bytes plus a new block's 2 KiB.
func (b *builder) full(n int) bool {
	if b.empty() {
		return false // a document is always taken by an empty builder
	}
	terms := n/2 + 1
	return len(b.ents)+terms > cap(b.ents) ||
		len(b.terms)+min(terms*maxTerm, n) > cap(b.terms) ||
		len(b.arena)+terms*(10+minBlock)+maxBlock > cap(b.arena) ||
		len(b.docs) == cap(b.docs)
}

// reset empties the builder, keeping its tables.
func (b *builder) reset() {
	clear(b.slots)
	b.ents = b.ents[:0]
	b.terms, b.arena, b.docs = b.terms[:0], b.arena[:0], b.docs[:0]
	b.totalDL = 0
}

// termID returns the id of term, whose hash is h, adding it when new.
func (b *builder) termID(term []byte, h uint64) uint32 {
	tag := h >> 32 << 32
	mask := uint64(len(b.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := b.slots[i]
		if s == 0 {
			return b.addTerm(i, tag, term)
		}
		if s&^0xffffffff != tag {
			continue
		}
		id := uint32(s) - 1
		if ref := b.ents[id].ref; int(ref&0xff) == len(term) && bytes.Equal(b.terms[ref>>8:ref>>8+ref&0xff], term) {
			return id
		}
	}
}

func (b *builder) addTerm(slot, tag uint64, term []byte) uint32 {
	if 2*(len(b.ents)+1) > len(b.slots) {
		// Only a document larger than the budget gets here (full turns
		// every other away first): the table grows for it.
		b.growSlots()
		return b.termID(term, maphash.Bytes(b.seed, term))
	}
	id := uint32(len(b.ents))
	b.slots[slot] = tag | uint64(id+1)
	ref := uint64(len(b.terms))<<8 | uint64(len(term))
	b.terms = append(b.terms, term...)
	blk := b.newBlock(0)
	b.ents = append(b.ents, termEntry{ref: ref, head: blk, tail: blk})
	return id
}

// growSlots doubles the term table.
func (b *builder) growSlots() {
	b.slots = make([]uint64, 2*len(b.slots))
	mask := uint64(len(b.slots) - 1)
	for id := range b.ents {
		h := maphash.Bytes(b.seed, b.term(uint32(id)))
		i := h & mask
		for b.slots[i] != 0 {
			i = (i + 1) & mask
		}
		b.slots[i] = h>>32<<32 | uint64(id+1)
	}
}

func blockSize(level uint8) int { return minBlock << level }

// newBlock appends an empty block of the size class and returns where.
func (b *builder) newBlock(level uint8) uint32 {
	off := len(b.arena)
	b.arena = slices.Grow(b.arena, blockSize(level)) // only past the budget (see addTerm)
	b.arena = b.arena[:off+blockSize(level)]
	clear(b.arena[off : off+4]) // no next block yet
	return uint32(off)
}

// appendPosting appends a posting (the doc delta and the term frequency)
// to term id's postings.
func (b *builder) appendPosting(id, delta, tf uint32) {
	ph := &b.ents[id]
	start := int(ph.tail) + 4 + int(ph.used)
	end := int(ph.tail) + blockSize(ph.level)
	if end-start >= 2*binary.MaxVarintLen32 {
		// Room for any posting: written in place.
		n := binary.PutUvarint(b.arena[start:], uint64(delta))
		n += binary.PutUvarint(b.arena[start+n:], uint64(tf))
		ph.used += uint16(n)
		return
	}
	var enc [2 * binary.MaxVarintLen32]byte
	n := binary.PutUvarint(enc[:], uint64(delta))
	n += binary.PutUvarint(enc[n:], uint64(tf))
	for p := enc[:n]; len(p) > 0; {
		if start == end {
			lvl := ph.level
			if blockSize(lvl) < maxBlock {
				lvl++
			}
			nb := b.newBlock(lvl)
			binary.LittleEndian.PutUint32(b.arena[ph.tail:], nb)
			ph.tail, ph.used, ph.level = nb, 0, lvl
			start, end = int(nb)+4, int(nb)+blockSize(lvl)
		}
		k := copy(b.arena[start:end], p)
		ph.used += uint16(k)
		start += k
		p = p[k:]
	}
}

// postings calls fn with term id's postings, block by block.
func (b *builder) postings(id uint32, fn func([]byte)) {
	e := &b.ents[id]
	blk, lvl := e.head, uint8(0)
	for blk != e.tail {
		size := blockSize(lvl)
		fn(b.arena[int(blk)+4 : int(blk)+size])
		blk = binary.LittleEndian.Uint32(b.arena[blk:])
		if size < maxBlock {
			lvl++
		}
	}
	fn(b.arena[int(blk)+4 : int(blk)+4+int(e.used)])
}

// add indexes one record's text as the next document (the caller checks
// full first). A term's postings are appended in document order, so they
// need no sorting; within the document, the first occurrence of a term
// notes it and later ones count.
//
// The terms are looked up in two passes: the first hashes each term and
// loads its first slot, the second looks it up. Most of a long tail's
// lookups miss the processor's caches (the table is megabytes); loads
// that depend on nothing before them are overlapped by the processor,
// where the lookups one after another each waited for the last (a
// quarter more bytes indexed per second of CPU).
func (b *builder) add(d doc, text []byte) {
	id := uint32(len(b.docs))
	mark := id + 1 // lastDoc value meaning "seen in this document"
	seen := b.scratch[:0]
	b.docTerms, b.docToks = b.docTerms[:0], b.docToks[:0]
	mask := uint64(len(b.slots) - 1)
	var sink uint64
	b.tok.reset(text)
	for {
		tok, ok := b.tok.next()
		if !ok {
			break
		}
		h := maphash.Bytes(b.seed, tok.term)
		sink ^= b.slots[h&mask]
		b.docToks = append(b.docToks, docTok{hash: h, end: uint32(len(b.docTerms) + len(tok.term))})
		b.docTerms = append(b.docTerms, tok.term...)
	}
	b.sink = sink
	start := uint32(0)
	for _, t := range b.docToks {
		tid := b.termID(b.docTerms[start:t.end], t.hash)
		start = t.end
		st := &b.ents[tid]
		if st.lastDoc == mark {
			st.tf++
			continue
		}
		// The delta to the term's previous document, written once the
		// document's term frequencies are known.
		delta := id
		if prev := st.lastDoc; prev != 0 {
			delta = id - (prev - 1)
		}
		st.lastDoc, st.tf = mark, 1
		st.df++
		seen = append(seen, tid, delta)
	}
	n := len(b.docToks)
	d.terms = uint32(n)
	b.totalDL += uint64(n)
	b.docs = append(b.docs, d)
	for i := 0; i < len(seen); i += 2 {
		tid := seen[i]
		b.appendPosting(tid, seen[i+1], b.ents[tid].tf)
	}
	b.scratch = seen
	if cap(b.docTerms) > bigLine {
		b.docTerms, b.docToks = nil, nil // a huge record's: not kept
	}
}

// docTok is a term of the document being added: its hash and where its
// bytes end in docTerms.
type docTok struct {
	hash uint64
	end  uint32
}

// term returns the bytes of term id.
func (b *builder) term(id uint32) []byte {
	ref := b.ents[id].ref
	return b.terms[ref>>8 : ref>>8+ref&0xff]
}

// write writes the builder's documents as a segment file in dir and
// returns its name.
func (b *builder) write(dir string) (string, error) {
	// Sort by the first eight bytes as an integer, then by the whole
	// term among equal prefixes: most comparisons are one integer's.
	type key struct {
		prefix uint64
		tid    uint32
	}
	order := make([]key, len(b.ents))
	for i := range order {
		var p [8]byte
		copy(p[:], b.term(uint32(i)))
		order[i] = key{binary.BigEndian.Uint64(p[:]), uint32(i)}
	}
	slices.SortFunc(order, func(x, y key) int {
		if x.prefix != y.prefix {
			if x.prefix < y.prefix {
				return -1
			}
			return 1
		}
		return bytes.Compare(b.term(x.tid), b.term(y.tid))
	})
	next := 0
	return writeSegment(dir, b.docs, b.totalDL, func() (termPostings, bool) {
		if next >= len(order) {
			return termPostings{}, false
		}
		tid := order[next].tid
		next++
		return termPostings{term: b.term(tid), df: int(b.ents[tid].df), parts: func(fn func([]byte)) { b.postings(tid, fn) }}, true
	})
}
