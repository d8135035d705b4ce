package search

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// A segment is one immutable file of the index: the documents (records)
// it covers and an inverted index over their terms.
//
//	header   "CCSEARCH" + version (uint32)
//	docs     nDocs × docSize bytes: file (uint32), offset (uint64),
//	         length (uint32), terms in the record (uint32)
//	postings per term: (doc delta, term frequency) as uvarints
//	dict     the terms in byte order, in blocks of blockTerms entries:
//	         uvarint len, term, uvarint df, uvarint postings offset,
//	         uvarint postings length
//	blocks   nBlocks × uint32: where each block of dict starts
//	footer   footerSize bytes: the sections' offsets and counts, then the
//	         magic again
//
// Every number is little-endian. Every read is bounds-checked: a file that
// does not hold together is errDamaged, and the index is rebuilt.
const (
	segMagic   = "CCSEARCH"
	segVersion = 1
	docSize    = 20
	blockTerms = 32
	footerSize = 8*8 + 8
	headerSize = 12
)

var errDamaged = errors.New("search index is damaged")

// doc is one record in a segment.
type doc struct {
	file   uint32 // index into the manifest's files
	off    uint64 // byte offset of the line in the session file
	length uint32 // bytes of the line, without '\n'
	terms  uint32 // the record's length in terms (BM25's document length)
}

// builder accumulates documents in memory until it is written as a
// segment. It is not safe for concurrent use: each indexing worker has
// its own.
type builder struct {
	ids      map[string]uint32 // term → term id
	names    []string          // term id → term
	postings [][]byte          // term id → encoded (doc delta, tf)
	lastDoc  []uint32          // term id → last doc added (+1; 0 = none)
	tf       []uint32          // term id → occurrences in the current doc
	df       []uint32          // term id → documents with the term
	docs     []doc
	totalDL  uint64
	bytes    int64 // postings bytes, to decide when to flush

	scratch []uint32
	tok     tokenizer
}

// newBuilder sizes the term map for about terms distinct terms (growing
// a map of millions of terms rehashes it many times over).
func newBuilder(terms int) *builder {
	return &builder{ids: make(map[string]uint32, terms)}
}

// add indexes one record's text as the next document. A term's postings
// are appended in document order, so they need no sorting; within the
// document, the first occurrence of a term notes it and later ones count.
func (b *builder) add(d doc, text []byte) {
	id := uint32(len(b.docs))
	mark := id + 1 // lastDoc value meaning "seen in this document"
	seen := b.scratch[:0]
	n := 0
	b.tok.reset(text)
	for {
		tok, ok := b.tok.next()
		if !ok {
			break
		}
		n++
		tid, found := b.ids[string(tok.term)]
		if !found {
			tid = uint32(len(b.names))
			name := string(tok.term)
			b.ids[name] = tid
			b.names = append(b.names, name)
			b.postings = append(b.postings, nil)
			b.lastDoc = append(b.lastDoc, 0)
			b.tf = append(b.tf, 0)
			b.df = append(b.df, 0)
		}
		if b.lastDoc[tid] == mark {
			b.tf[tid]++
			continue
		}
		// The delta to the term's previous document, written once the
		// document's term frequencies are known.
		delta := id
		if prev := b.lastDoc[tid]; prev != 0 {
			delta = id - (prev - 1)
		}
		b.lastDoc[tid] = mark
		b.tf[tid] = 1
		b.df[tid]++
		seen = append(seen, tid, delta)
	}
	d.terms = uint32(n)
	b.totalDL += uint64(n)
	b.docs = append(b.docs, d)
	for i := 0; i < len(seen); i += 2 {
		tid := seen[i]
		p := b.postings[tid]
		k := len(p)
		p = binary.AppendUvarint(p, uint64(seen[i+1]))
		p = binary.AppendUvarint(p, uint64(b.tf[tid]))
		b.postings[tid] = p
		b.bytes += int64(len(p) - k)
	}
	b.scratch = seen
}

func (b *builder) empty() bool { return len(b.docs) == 0 }

// termPostings is one term's postings, ready to be written.
type termPostings struct {
	term     string
	df       int
	postings []byte
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
	order := make([]key, len(b.names))
	for i, n := range b.names {
		var p [8]byte
		copy(p[:], n)
		order[i] = key{binary.BigEndian.Uint64(p[:]), uint32(i)}
	}
	slices.SortFunc(order, func(x, y key) int {
		if x.prefix != y.prefix {
			if x.prefix < y.prefix {
				return -1
			}
			return 1
		}
		return strings.Compare(b.names[x.tid], b.names[y.tid])
	})
	next := 0
	return writeSegment(dir, b.docs, b.totalDL, func() (termPostings, bool) {
		if next >= len(order) {
			return termPostings{}, false
		}
		tid := order[next].tid
		next++
		return termPostings{term: b.names[tid], df: int(b.df[tid]), postings: b.postings[tid]}, true
	})
}

// writeSegment writes a segment from its documents and its terms in byte
// order (next returns false after the last). The file is written under a
// temporary name and renamed, so a segment file is whole or absent.
func writeSegment(dir string, docs []doc, totalDL uint64, next func() (termPostings, bool)) (name string, err error) {
	f, err := os.CreateTemp(dir, "seg-*.tmp")
	if err != nil {
		return "", fmt.Errorf("write search index: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	w := &countWriter{buf: make([]byte, 0, 1<<20), f: f}
	var hdr [headerSize]byte
	copy(hdr[:], segMagic)
	binary.LittleEndian.PutUint32(hdr[8:], segVersion)
	w.write(hdr[:])
	docsOff := w.n
	var rec [docSize]byte
	for _, d := range docs {
		binary.LittleEndian.PutUint32(rec[0:], d.file)
		binary.LittleEndian.PutUint64(rec[4:], d.off)
		binary.LittleEndian.PutUint32(rec[12:], d.length)
		binary.LittleEndian.PutUint32(rec[16:], d.terms)
		w.write(rec[:])
	}
	// Postings first, then the dictionary that points into them; the
	// dictionary is built in memory (it is small beside the postings).
	postOff := w.n
	var dict []byte
	var blocks []uint32
	nTerms := 0
	for {
		tp, ok := next()
		if !ok {
			break
		}
		if nTerms%blockTerms == 0 {
			blocks = append(blocks, uint32(len(dict)))
		}
		nTerms++
		dict = binary.AppendUvarint(dict, uint64(len(tp.term)))
		dict = append(dict, tp.term...)
		dict = binary.AppendUvarint(dict, uint64(tp.df))
		dict = binary.AppendUvarint(dict, uint64(w.n-postOff))
		dict = binary.AppendUvarint(dict, uint64(len(tp.postings)))
		w.write(tp.postings)
	}
	postLen := w.n - postOff
	dictOff := w.n
	w.write(dict)
	blocksOff := w.n
	var u4 [4]byte
	for _, o := range blocks {
		binary.LittleEndian.PutUint32(u4[:], o)
		w.write(u4[:])
	}
	var foot [footerSize]byte
	for i, v := range []uint64{uint64(len(docs)), uint64(docsOff), uint64(postOff), uint64(postLen), uint64(dictOff), uint64(len(dict)), uint64(blocksOff), uint64(len(blocks))} {
		binary.LittleEndian.PutUint64(foot[i*8:], v)
	}
	_ = totalDL // recorded in the manifest
	copy(foot[64:], segMagic)
	w.write(foot[:])
	if err := w.flush(); err != nil {
		return "", fmt.Errorf("write search index: %w", err)
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("write search index: %w", err)
	}
	final := f.Name()[:len(f.Name())-len(".tmp")] + ".seg"
	if err := os.Rename(f.Name(), final); err != nil {
		return "", fmt.Errorf("write search index: %w", err)
	}
	return filepath.Base(final), nil
}

type countWriter struct {
	buf []byte
	f   *os.File
	n   int
	err error
}

func (w *countWriter) write(p []byte) {
	w.n += len(p)
	if w.err != nil {
		return
	}
	if len(w.buf)+len(p) > cap(w.buf) {
		w.flush()
		if len(p) > cap(w.buf) {
			_, w.err = w.f.Write(p)
			return
		}
	}
	w.buf = append(w.buf, p...)
}

func (w *countWriter) flush() error {
	if w.err == nil && len(w.buf) > 0 {
		_, w.err = w.f.Write(w.buf)
	}
	w.buf = w.buf[:0]
	return w.err
}

// segment is an open segment file, mapped into memory.
type segment struct {
	name     string
	data     []byte
	unmap    func() error
	nDocs    int
	docs     []byte
	postings []byte
	dict     []byte
	blocks   []byte
	nBlocks  int
}

func openSegment(path string) (*segment, error) {
	data, unmap, err := mapFile(path)
	if err != nil {
		return nil, err
	}
	s := &segment{name: filepath.Base(path), data: data, unmap: unmap}
	if err := s.parse(); err != nil {
		unmap()
		return nil, fmt.Errorf("%s: %w", s.name, err)
	}
	return s, nil
}

func (s *segment) close() error {
	if s.unmap == nil {
		return nil
	}
	return s.unmap()
}

func (s *segment) parse() error {
	d := s.data
	if len(d) < headerSize+footerSize || string(d[:8]) != segMagic || string(d[len(d)-8:]) != segMagic {
		return errDamaged
	}
	if binary.LittleEndian.Uint32(d[8:]) != segVersion {
		return errDamaged
	}
	foot := d[len(d)-footerSize:]
	var v [8]uint64
	for i := range v {
		v[i] = binary.LittleEndian.Uint64(foot[i*8:])
	}
	nDocs, docsOff, postOff, postLen, dictOff, dictLen, blocksOff, nBlocks := v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]
	end := uint64(len(d) - footerSize)
	if docsOff != headerSize || nDocs > end/docSize || docsOff+nDocs*docSize != postOff ||
		postOff+postLen != dictOff || dictOff+dictLen != blocksOff || nBlocks > end/4 || blocksOff+nBlocks*4 != end {
		return errDamaged
	}
	s.nDocs = int(nDocs)
	s.docs = d[docsOff:postOff]
	s.postings = d[postOff:dictOff]
	s.dict = d[dictOff:blocksOff]
	s.blocks = d[blocksOff:end]
	s.nBlocks = int(nBlocks)
	// The blocks' first terms are read when a lookup needs them: opening
	// a segment touches only its footer, whatever its size.
	return nil
}

// firstTerm is the first term of block i.
func (s *segment) firstTerm(i int) ([]byte, bool) {
	off := binary.LittleEndian.Uint32(s.blocks[i*4:])
	if uint64(off) >= uint64(len(s.dict)) {
		return nil, false
	}
	t, _, ok := readTerm(s.dict, int(off))
	return t, ok
}

func (s *segment) doc(i int) doc {
	r := s.docs[i*docSize:]
	return doc{
		file:   binary.LittleEndian.Uint32(r[0:]),
		off:    binary.LittleEndian.Uint64(r[4:]),
		length: binary.LittleEndian.Uint32(r[12:]),
		terms:  binary.LittleEndian.Uint32(r[16:]),
	}
}

// dictEntry is one term of the dictionary.
type dictEntry struct {
	term     []byte
	df       int
	postings []byte
}

func readTerm(dict []byte, off int) ([]byte, int, bool) {
	n, k := binary.Uvarint(dict[off:])
	if k <= 0 || n > uint64(len(dict)-off-k) {
		return nil, 0, false
	}
	off += k
	return dict[off : off+int(n)], off + int(n), true
}

// entryAt decodes the dictionary entry at off and returns where the next
// one starts.
func (s *segment) entryAt(off int) (dictEntry, int, error) {
	t, off, ok := readTerm(s.dict, off)
	if !ok {
		return dictEntry{}, 0, errDamaged
	}
	var vals [3]uint64
	for i := range vals {
		v, k := binary.Uvarint(s.dict[off:])
		if k <= 0 {
			return dictEntry{}, 0, errDamaged
		}
		vals[i] = v
		off += k
	}
	po, pl := vals[1], vals[2]
	if po > uint64(len(s.postings)) || pl > uint64(len(s.postings))-po {
		return dictEntry{}, 0, errDamaged
	}
	return dictEntry{term: t, df: int(vals[0]), postings: s.postings[po : po+pl]}, off, nil
}

// lookup finds a term; found is false when the segment does not have it.
func (s *segment) lookup(term []byte) (e dictEntry, found bool, err error) {
	// The last block whose first term is <= term.
	damaged := false
	b := sort.Search(s.nBlocks, func(i int) bool {
		t, ok := s.firstTerm(i)
		damaged = damaged || !ok
		return bytes.Compare(t, term) > 0
	}) - 1
	if damaged {
		return dictEntry{}, false, errDamaged
	}
	if b < 0 {
		return dictEntry{}, false, nil
	}
	off := int(binary.LittleEndian.Uint32(s.blocks[b*4:]))
	end := len(s.dict)
	if b+1 < s.nBlocks {
		end = int(binary.LittleEndian.Uint32(s.blocks[(b+1)*4:]))
	}
	for off < end {
		e, next, err := s.entryAt(off)
		if err != nil {
			return dictEntry{}, false, err
		}
		switch c := bytes.Compare(e.term, term); {
		case c == 0:
			return e, true, nil
		case c > 0:
			return dictEntry{}, false, nil
		}
		off = next
	}
	return dictEntry{}, false, nil
}

// posting is one document of a term's postings.
type posting struct {
	doc uint32
	tf  uint32
}

// decodePostings appends a term's postings to dst.
func decodePostings(p []byte, nDocs int, dst []posting) ([]posting, error) {
	var doc uint64
	first := true
	for len(p) > 0 {
		d, k := binary.Uvarint(p)
		if k <= 0 {
			return dst, errDamaged
		}
		p = p[k:]
		tf, k := binary.Uvarint(p)
		if k <= 0 {
			return dst, errDamaged
		}
		p = p[k:]
		if first {
			doc = d
			first = false
		} else {
			doc += d
		}
		if doc >= uint64(nDocs) {
			return dst, errDamaged
		}
		dst = append(dst, posting{doc: uint32(doc), tf: uint32(tf)})
	}
	return dst, nil
}
