package search

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"sync"
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
//	         uvarint postings length, CRC-32C of the postings (uint32)
//	blocks   nBlocks × (uint32 where the block starts in dict, uint32
//	         CRC-32C of the block's bytes)
//	doc CRCs one CRC-32C (uint32) per docBlock documents of docs
//	footer   footerSize bytes: the sections' offsets and counts, the
//	         CRC-32C of the header, blocks, doc CRCs and those numbers,
//	         then the magic again
//
// Every number is little-endian. Every byte is verified before it is
// trusted: the footer's checksum when the segment is opened (it covers
// what opening reads), a dictionary block's or a run of documents' the
// first time one is read, a term's postings' each time they are. Opening
// therefore reads 8 bytes per 32 terms and 4 per 1,024 documents, and a
// search verifies only what it reads. Anything that fails is errDamaged,
// and the index is rebuilt.
const (
	segMagic   = "CCSEARCH"
	segVersion = 2
	docSize    = 20
	docBlock   = 1024
	blockTerms = 32
	footerSize = 9*8 + 8 + 8
	headerSize = 12
)

var errDamaged = errors.New("search index is damaged")

// castagnoli is CRC-32C, which the CPU computes (SSE 4.2, ARMv8) at
// several GB/s.
// It is made on first use: making it at start-up cost every run of
// clawdcode, searching or not, a tenth of a millisecond and 9 KiB.
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// doc is one record in a segment.
type doc struct {
	file   uint32 // index into the manifest's files
	off    uint64 // byte offset of the line in the session file
	length uint32 // bytes of the line, without '\n'
	terms  uint32 // the record's length in terms (BM25's document length)
}

// termPostings is one term's postings, ready to be written.
type termPostings struct {
	term     []byte
	df       int
	postings []byte
	// parts, when set, gives the postings in parts instead.
	parts func(fn func([]byte))
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
	docCRCs := writeDocs(w, docs)
	// Postings first, then the dictionary that points into them.
	postOff := w.n
	dict, blocks := writePostings(w, next)
	postLen := w.n - postOff
	dictOff := w.n
	w.write(dict)
	// The tables that opening reads, and the footer, under one checksum.
	meta := crc32.Checksum(hdr[:], castagnoli())
	blocksOff := w.n
	var table []byte
	for i, o := range blocks {
		end := len(dict)
		if i+1 < len(blocks) {
			end = int(blocks[i+1])
		}
		table = binary.LittleEndian.AppendUint32(table, o)
		table = binary.LittleEndian.AppendUint32(table, crc32.Checksum(dict[o:end], castagnoli()))
	}
	crcsOff := w.n + len(table)
	for _, c := range docCRCs {
		table = binary.LittleEndian.AppendUint32(table, c)
	}
	w.write(table)
	meta = crc32.Update(meta, castagnoli(), table)
	var foot [footerSize]byte
	for i, v := range []uint64{uint64(len(docs)), uint64(docsOff), uint64(postOff), uint64(postLen), uint64(dictOff), uint64(len(dict)), uint64(blocksOff), uint64(len(blocks)), uint64(crcsOff)} {
		binary.LittleEndian.PutUint64(foot[i*8:], v)
	}
	_ = totalDL // recorded in the manifest
	meta = crc32.Update(meta, castagnoli(), foot[:9*8])
	binary.LittleEndian.PutUint32(foot[9*8:], meta)
	copy(foot[footerSize-8:], segMagic)
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

// writeDocs writes the document table and returns the checksum of each
// run of docBlock documents.
func writeDocs(w *countWriter, docs []doc) []uint32 {
	var rec [docSize]byte
	var docCRCs []uint32
	var crc uint32
	for i, d := range docs {
		binary.LittleEndian.PutUint32(rec[0:], d.file)
		binary.LittleEndian.PutUint64(rec[4:], d.off)
		binary.LittleEndian.PutUint32(rec[12:], d.length)
		binary.LittleEndian.PutUint32(rec[16:], d.terms)
		w.write(rec[:])
		crc = crc32.Update(crc, castagnoli(), rec[:])
		if (i+1)%docBlock == 0 || i == len(docs)-1 {
			docCRCs = append(docCRCs, crc)
			crc = 0
		}
	}
	return docCRCs
}

// writePostings writes each term's postings as next yields them and
// returns the dictionary that points into them, built in memory (it is
// small beside the postings), with the offset of each block of blockTerms
// terms in it.
func writePostings(w *countWriter, next func() (termPostings, bool)) (dict []byte, blocks []uint32) {
	postOff := w.n
	for nTerms := 0; ; nTerms++ {
		tp, ok := next()
		if !ok {
			return dict, blocks
		}
		if nTerms%blockTerms == 0 {
			blocks = append(blocks, uint32(len(dict)))
		}
		start := w.n
		crc := crc32.Checksum(tp.postings, castagnoli())
		w.write(tp.postings)
		if tp.parts != nil {
			tp.parts(func(p []byte) {
				crc = crc32.Update(crc, castagnoli(), p)
				w.write(p)
			})
		}
		dict = binary.AppendUvarint(dict, uint64(len(tp.term)))
		dict = append(dict, tp.term...)
		dict = binary.AppendUvarint(dict, uint64(tp.df))
		dict = binary.AppendUvarint(dict, uint64(start-postOff))
		dict = binary.AppendUvarint(dict, uint64(w.n-start))
		dict = binary.LittleEndian.AppendUint32(dict, crc)
	}
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
