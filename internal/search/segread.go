package search

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"path/filepath"
	"sort"
)

// segment is an open segment file, mapped into memory. What it reads is
// verified against the segment's checksums first (see the format in
// segment.go); it is used by one goroutine at a time (under the index's
// lock), so the notes of what is verified need no lock.
type segment struct {
	name     string
	data     []byte
	unmap    func() error
	nDocs    int
	docs     []byte
	postings []byte
	dict     []byte
	blocks   []byte // nBlocks × (offset, CRC)
	nBlocks  int
	docCRCs  []byte

	blockOK []bool // dictionary blocks verified
	docsOK  []bool // runs of docBlock documents verified
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

// releaseMin is the smallest segment whose pages a search gives back
// once it has scored it (release): smaller ones cost little, and would
// only be read again.
const releaseMin = 8 << 20

func (s *segment) close() error {
	if s.unmap == nil {
		return nil
	}
	err := s.unmap()
	s.unmap = nil
	return err
}

// parse checks the header and footer and the tables they describe.
func (s *segment) parse() error {
	d := s.data
	if len(d) < headerSize+footerSize || string(d[:8]) != segMagic || string(d[len(d)-8:]) != segMagic {
		return errDamaged
	}
	if binary.LittleEndian.Uint32(d[8:]) != segVersion {
		return errDamaged
	}
	foot := d[len(d)-footerSize:]
	var v [9]uint64
	for i := range v {
		v[i] = binary.LittleEndian.Uint64(foot[i*8:])
	}
	nDocs, docsOff, postOff, postLen, dictOff, dictLen, blocksOff, nBlocks, crcsOff := v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8]
	end := uint64(len(d) - footerSize)
	nRuns := (nDocs + docBlock - 1) / docBlock
	if docsOff != headerSize || nDocs > end/docSize || docsOff+nDocs*docSize != postOff ||
		postLen > end || postOff+postLen != dictOff || dictLen > end || dictOff+dictLen != blocksOff ||
		nBlocks > end/8 || blocksOff+nBlocks*8 != crcsOff || crcsOff+nRuns*4 != end {
		return errDamaged
	}
	meta := crc32.Checksum(d[:headerSize], castagnoli())
	meta = crc32.Update(meta, castagnoli(), d[blocksOff:end])
	meta = crc32.Update(meta, castagnoli(), foot[:9*8])
	if meta != binary.LittleEndian.Uint32(foot[9*8:]) {
		return errDamaged
	}
	s.nDocs = int(nDocs)
	s.docs = d[docsOff:postOff]
	s.postings = d[postOff:dictOff]
	s.dict = d[dictOff:blocksOff]
	s.blocks = d[blocksOff:crcsOff]
	s.docCRCs = d[crcsOff:end]
	s.nBlocks = int(nBlocks)
	prev := -1
	for i := range s.nBlocks {
		off := int64(binary.LittleEndian.Uint32(s.blocks[i*8:]))
		if off <= int64(prev) || off >= int64(len(s.dict)) || (i == 0 && off != 0) {
			return errDamaged
		}
		prev = int(off)
	}
	if s.nBlocks == 0 && len(s.dict) != 0 {
		return errDamaged
	}
	s.blockOK = make([]bool, s.nBlocks)
	s.docsOK = make([]bool, nRuns)
	return nil
}

// block returns the bytes of dictionary block i, verified.
func (s *segment) block(i int) ([]byte, error) {
	off := binary.LittleEndian.Uint32(s.blocks[i*8:])
	end := uint32(len(s.dict))
	if i+1 < s.nBlocks {
		end = binary.LittleEndian.Uint32(s.blocks[(i+1)*8:])
	}
	b := s.dict[off:end]
	if !s.blockOK[i] {
		if crc32.Checksum(b, castagnoli()) != binary.LittleEndian.Uint32(s.blocks[i*8+4:]) {
			return nil, errDamaged
		}
		s.blockOK[i] = true
	}
	return b, nil
}

// verifyAll verifies every block and document (a merge reads them all).
func (s *segment) verifyAll() error {
	for i := range s.nBlocks {
		if _, err := s.block(i); err != nil {
			return err
		}
	}
	for i := range s.nDocs {
		if _, err := s.doc(i); err != nil {
			return err
		}
	}
	return nil
}

// doc returns document i, verifying its run of documents the first time.
func (s *segment) doc(i int) (doc, error) {
	if i < 0 || i >= s.nDocs {
		return doc{}, errDamaged
	}
	if run := i / docBlock; !s.docsOK[run] {
		end := min((run+1)*docBlock, s.nDocs)
		if crc32.Checksum(s.docs[run*docBlock*docSize:end*docSize], castagnoli()) != binary.LittleEndian.Uint32(s.docCRCs[run*4:]) {
			return doc{}, errDamaged
		}
		s.docsOK[run] = true
	}
	r := s.docs[i*docSize:]
	return doc{
		file:   binary.LittleEndian.Uint32(r[0:]),
		off:    binary.LittleEndian.Uint64(r[4:]),
		length: binary.LittleEndian.Uint32(r[12:]),
		terms:  binary.LittleEndian.Uint32(r[16:]),
	}, nil
}

// dictEntry is one term of the dictionary.
type dictEntry struct {
	term     []byte
	df       int
	postings []byte
}

func readTerm(dict []byte, off int) ([]byte, int, bool) {
	if off < 0 || off >= len(dict) {
		return nil, 0, false
	}
	n, k := binary.Uvarint(dict[off:])
	if k <= 0 || n > uint64(len(dict)-off-k) {
		return nil, 0, false
	}
	off += k
	return dict[off : off+int(n)], off + int(n), true
}

// entryAt decodes the dictionary entry at off of a verified block and
// returns where the next one starts; its postings are verified.
func (s *segment) entryAt(blk []byte, off int) (dictEntry, int, error) {
	t, off, ok := readTerm(blk, off)
	if !ok {
		return dictEntry{}, 0, errDamaged
	}
	var vals [3]uint64
	for i := range vals {
		v, k := binary.Uvarint(blk[off:])
		if k <= 0 {
			return dictEntry{}, 0, errDamaged
		}
		vals[i] = v
		off += k
	}
	if off+4 > len(blk) {
		return dictEntry{}, 0, errDamaged
	}
	sum := binary.LittleEndian.Uint32(blk[off:])
	off += 4
	df, po, pl := vals[0], vals[1], vals[2]
	if po > uint64(len(s.postings)) || pl > uint64(len(s.postings))-po || df == 0 || df > uint64(s.nDocs) {
		return dictEntry{}, 0, errDamaged
	}
	p := s.postings[po : po+pl]
	if crc32.Checksum(p, castagnoli()) != sum {
		return dictEntry{}, 0, errDamaged
	}
	return dictEntry{term: t, df: int(df), postings: p}, off, nil
}

// lookup finds a term; found is false when the segment does not have it.
func (s *segment) lookup(term []byte) (e dictEntry, found bool, err error) {
	// The last block whose first term is <= term.
	var first error
	b := sort.Search(s.nBlocks, func(i int) bool {
		blk, err := s.block(i)
		if err != nil {
			first = err
			return true
		}
		t, _, ok := readTerm(blk, 0)
		if !ok {
			first = errDamaged
			return true
		}
		return bytes.Compare(t, term) > 0
	}) - 1
	if first != nil {
		return dictEntry{}, false, first
	}
	if b < 0 {
		return dictEntry{}, false, nil
	}
	blk, err := s.block(b)
	if err != nil {
		return dictEntry{}, false, err
	}
	for off := 0; off < len(blk); {
		t, _, ok := readTerm(blk, off)
		if !ok {
			return dictEntry{}, false, errDamaged
		}
		switch c := bytes.Compare(t, term); {
		case c > 0:
			return dictEntry{}, false, nil
		case c == 0:
			e, _, err := s.entryAt(blk, off)
			return e, err == nil, err
		}
		if _, off, err = s.skipEntry(blk, off); err != nil {
			return dictEntry{}, false, err
		}
	}
	return dictEntry{}, false, nil
}

// skipEntry steps over the entry at off without reading its postings.
func (s *segment) skipEntry(blk []byte, off int) ([]byte, int, error) {
	t, off, ok := readTerm(blk, off)
	if !ok {
		return nil, 0, errDamaged
	}
	for range 3 {
		_, k := binary.Uvarint(blk[off:])
		if k <= 0 {
			return nil, 0, errDamaged
		}
		off += k
	}
	if off+4 > len(blk) {
		return nil, 0, errDamaged
	}
	return t, off + 4, nil
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
			if d == 0 {
				return dst, errDamaged // documents strictly increase
			}
			doc += d
		}
		if doc >= uint64(nDocs) || tf == 0 {
			return dst, errDamaged
		}
		dst = append(dst, posting{doc: uint32(doc), tf: uint32(tf)})
	}
	return dst, nil
}
