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
	// Renumber the documents that stay.
	remap := make([][]int32, len(segs))
	var docs []doc
	var totalDL uint64
	for i, s := range segs {
		if err := s.verifyAll(); err != nil {
			return segEntry{}, nil, fmt.Errorf("%s: %w", s.name, err)
		}
		remap[i] = make([]int32, s.nDocs)
		for d := range s.nDocs {
			dd, _ := s.doc(d) // verified above
			if int(dd.file) >= len(m.Files) {
				return segEntry{}, nil, fmt.Errorf("%s: %w", s.name, errDamaged)
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
	// Walk the dictionaries together in term order.
	type cursor struct {
		s   *segment
		blk []byte
		b   int // block index of blk
		off int
		e   dictEntry
		ok  bool
	}
	curs := make([]*cursor, len(segs))
	advance := func(c *cursor) error {
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
	for i, s := range segs {
		curs[i] = &cursor{s: s, b: -1}
		if err := advance(curs[i]); err != nil {
			return segEntry{}, nil, err
		}
	}
	var (
		scratch []posting
		out     []byte
		iterErr error
		term    []byte
	)
	next := func() (termPostings, bool) {
		for {
			var min []byte
			for _, c := range curs {
				if c.ok && (min == nil || bytes.Compare(c.e.term, min) < 0) {
					min = c.e.term
				}
			}
			if min == nil {
				return termPostings{}, false
			}
			term = append(term[:0], min...)
			out = out[:0]
			df := 0
			last := -1
			for i, c := range curs {
				if !c.ok || !bytes.Equal(c.e.term, term) {
					continue
				}
				var err error
				scratch, err = decodePostings(c.e.postings, c.s.nDocs, scratch[:0])
				if err != nil {
					iterErr = err
					return termPostings{}, false
				}
				for _, p := range scratch {
					nd := remap[i][p.doc]
					if nd < 0 {
						continue
					}
					delta := int(nd) - last
					if last < 0 {
						delta = int(nd)
					}
					out = binary.AppendUvarint(out, uint64(delta))
					out = binary.AppendUvarint(out, uint64(p.tf))
					last = int(nd)
					df++
				}
				if err := advance(c); err != nil {
					iterErr = err
					return termPostings{}, false
				}
			}
			if df > 0 {
				return termPostings{term: string(term), df: df, postings: out}, true
			}
		}
	}
	name, err := writeSegment(ix.dir, docs, totalDL, next)
	if err == nil && iterErr != nil {
		os.Remove(filepath.Join(ix.dir, name))
		err = fmt.Errorf("search index: %w", iterErr)
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
