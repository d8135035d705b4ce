package search

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
)

// Merging keeps the number of segments small without rewriting large
// ones for small gains: while the segment before the newest is no larger
// than the newest (and under mergeCap), the two are merged, as a binary
// counter carries, so small updates make small segments that merge with
// each other; and past maxSegs segments, the adjacent pair smallest
// together is merged. Documents of dead files are dropped by a merge.
const (
	mergeCap = 32 << 20
	maxSegs  = 48
)

func (ix *Index) mergeTail(ctx context.Context, st *state) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		n := len(st.segs)
		size := func(i int) int64 { return st.m.Segments[i].Size }
		at := -1
		switch {
		case n >= 2 && size(n-2) <= size(n-1) && size(n-2) < mergeCap:
			at = n - 2
		case n > maxSegs:
			for i := 0; i+1 < n; i++ {
				if at < 0 || size(i)+size(i+1) < size(at)+size(at+1) {
					at = i
				}
			}
		}
		if at < 0 {
			return nil
		}
		e, s, err := ix.merge(st.m, st.segs[at:at+2])
		if err != nil {
			return err
		}
		for _, old := range st.segs[at : at+2] {
			old.close()
		}
		st.segs = append(append(st.segs[:at:at], s), st.segs[at+2:]...)
		st.m.Segments = append(append(st.m.Segments[:at:at], e), st.m.Segments[at+2:]...)
	}
}

// merge writes one segment holding the live documents of segs, in order.
func (ix *Index) merge(m *manifest, segs []*segment) (segEntry, *segment, error) {
	remap, docs, totalDL, err := liveDocs(m, segs)
	if err != nil {
		return segEntry{}, nil, err
	}
	it := &mergeIter{remap: remap, curs: make([]*dictCursor, len(segs))}
	for i, s := range segs {
		it.curs[i] = &dictCursor{s: s, b: -1}
		if err := it.curs[i].advance(); err != nil {
			return segEntry{}, nil, err
		}
	}
	next, iterErr := it.next, &it.err
	name, err := writeSegment(ix.dir, docs, totalDL, next)
	if err == nil && *iterErr != nil {
		os.Remove(filepath.Join(ix.dir, name))
		err = fmt.Errorf("search index: %w", *iterErr)
	}
	if err != nil {
		return segEntry{}, nil, err
	}
	path := filepath.Join(ix.dir, name)
	s, err := openSegment(path)
	if err != nil {
		return segEntry{}, nil, fmt.Errorf("search index: %w", err)
	}
	return segEntry{Name: name, Docs: len(docs), TotalDL: totalDL, Size: fileSize(path)}, s, nil
}

// liveDocs verifies segs whole and numbers the documents that stay (those
// of files not dead) in order: remap[i][d] is document d of segs[i] in the
// merged segment, or -1.
func liveDocs(m *manifest, segs []*segment) (remap [][]int32, docs []doc, totalDL uint64, err error) {
	remap = make([][]int32, len(segs))
	for i, s := range segs {
		if err := s.verifyAll(); err != nil {
			return nil, nil, 0, fmt.Errorf("%s: %w", s.name, err)
		}
		remap[i] = make([]int32, s.nDocs)
		for d := range s.nDocs {
			dd, _ := s.doc(d) // verified above
			if int(dd.file) >= len(m.Files) {
				return nil, nil, 0, fmt.Errorf("%s: %w", s.name, errDamaged)
			}
			if m.Files[dd.file].Dead {
				remap[i][d] = -1
				continue
			}
			remap[i][d] = int32(len(docs))
			docs = append(docs, dd)
			totalDL += uint64(dd.terms)
		}
	}
	return remap, docs, totalDL, nil
}

// dictCursor walks one segment's dictionary in term order.
type dictCursor struct {
	s   *segment
	blk []byte
	b   int // block index of blk
	off int
	e   dictEntry
	ok  bool
}

// advance moves to the next entry; ok turns false past the last.
func (c *dictCursor) advance() error {
	for c.off >= len(c.blk) {
		if c.b+1 >= c.s.nBlocks {
			c.ok = false
			return nil
		}
		c.b++
		blk, err := c.s.block(c.b)
		if err != nil {
			return err
		}
		c.blk, c.off = blk, 0
	}
	e, next, err := c.s.entryAt(c.blk, c.off)
	if err != nil {
		return err
	}
	c.e, c.off, c.ok = e, next, true
	return nil
}

// mergeIter yields the merged postings of every term, in term order, from
// the dictionaries walked together; err is why it stopped early.
type mergeIter struct {
	remap   [][]int32
	curs    []*dictCursor
	scratch []posting
	out     []byte
	term    []byte
	err     error
}

func (it *mergeIter) next() (termPostings, bool) {
	for {
		var least []byte
		for _, c := range it.curs {
			if c.ok && (least == nil || bytes.Compare(c.e.term, least) < 0) {
				least = c.e.term
			}
		}
		if least == nil {
			return termPostings{}, false
		}
		it.term = append(it.term[:0], least...)
		it.out = it.out[:0]
		df, last := 0, -1
		for i, c := range it.curs {
			if !c.ok || !bytes.Equal(c.e.term, it.term) {
				continue
			}
			if df, last, it.err = it.take(i, c, df, last); it.err != nil {
				return termPostings{}, false
			}
		}
		if df > 0 {
			return termPostings{term: it.term, df: df, postings: it.out}, true
		}
	}
}

// take appends cursor c's postings of the current term, renumbered, to
// it.out and moves c on.
func (it *mergeIter) take(i int, c *dictCursor, df, last int) (int, int, error) {
	var err error
	it.scratch, err = decodePostings(c.e.postings, c.s.nDocs, it.scratch[:0])
	if err != nil {
		return df, last, err
	}
	for _, p := range it.scratch {
		nd := it.remap[i][p.doc]
		if nd < 0 {
			continue
		}
		delta := int(nd) - last
		if last < 0 {
			delta = int(nd)
		}
		it.out = binary.AppendUvarint(it.out, uint64(delta))
		it.out = binary.AppendUvarint(it.out, uint64(p.tf))
		last = int(nd)
		df++
	}
	return df, last, c.advance()
}
