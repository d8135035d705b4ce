package tokens

import (
	"errors"
	"fmt"

	"github.com/clawdcode/clawdcode/internal/tokens/internal/bpeformat"
)

// The rank tables are written by internal/bpegen (see its doc for the
// format and the provenance of the data) and embedded in the binary.
//
// Why a table of our own rather than tiktoken-go's loader: the loader
// parses a base64 text file into a map[string]int of 200,000 entries and
// the library then builds a reverse map and a sorted copy, which costs a
// process ~200 ms of CPU and ~47 MiB on its first exact count (the turns
// near a compaction). This table is read where it lies: opening it checks
// a header and takes a sub-string, so it costs no parsing and no heap,
// and only the pages the counted text touches are read in. A lookup reads
// one or two 64-byte buckets and compares keys, not bytes, so a count
// touches nothing but the buckets (1.6 MiB for o200k_base).
//
//go:generate go run ./internal/bpegen -out bpedata

// bpeTable maps token bytes to ranks over an encoded table. It is
// immutable and safe for concurrent use.
type bpeTable struct {
	n       int
	nb      uint32
	buckets string // nb × bpeformat.BucketBytes
}

var errBadTable = errors.New("malformed rank table")

// openTable checks data's header and size and returns the table over it.
func openTable(data string) (*bpeTable, error) {
	const head = len(bpeformat.Magic) + 8
	if len(data) < head || data[:len(bpeformat.Magic)] != bpeformat.Magic {
		return nil, errBadTable
	}
	n, nb := int(u32(data, len(bpeformat.Magic))), u32(data, len(bpeformat.Magic)+4)
	if n >= bpeformat.RankMask || nb == 0 || uint64(nb)*bpeformat.BucketEntries < uint64(n) {
		return nil, fmt.Errorf("%w: %d ranks in %d buckets", errBadTable, n, nb)
	}
	if want := head + int(nb)*bpeformat.BucketBytes; len(data) != want {
		return nil, fmt.Errorf("%w: %d bytes, want %d", errBadTable, len(data), want)
	}
	return &bpeTable{n: n, nb: nb, buckets: data[head:]}, nil
}

// rank returns the rank of the token spelled b, or -1 when b is no token.
func (t *bpeTable) rank(b []byte) int {
	h := bpeformat.Hash(b)
	key := bpeformat.Key(h)
	b1, b2 := bpeformat.Buckets(h, t.nb)
	if r := t.inBucket(b1, key); r >= 0 || b2 == b1 {
		return r
	}
	return t.inBucket(b2, key)
}

// inBucket returns the rank of the entry of bucket b whose key is key, or
// -1 when there is none.
func (t *bpeTable) inBucket(b uint32, key uint64) int {
	at := int(b) * bpeformat.BucketBytes
	bucket := t.buckets[at : at+bpeformat.BucketBytes]
	for i := 0; i < bpeformat.BucketBytes; i += 8 {
		e := u64(bucket, i)
		if e == bpeformat.Empty {
			return -1
		}
		if e&^bpeformat.RankMask == key {
			return int(e & bpeformat.RankMask)
		}
	}
	return -1
}

func u32(s string, i int) uint32 {
	_ = s[i+3]
	return uint32(s[i]) | uint32(s[i+1])<<8 | uint32(s[i+2])<<16 | uint32(s[i+3])<<24
}

func u64(s string, i int) uint64 {
	_ = s[i+7]
	return uint64(u32(s, i)) | uint64(u32(s, i+4))<<32
}
