package tokens

import (
	"errors"
	"fmt"
)

// The rank tables are written by internal/bpegen (see its doc for the
// format and the provenance of the data) and embedded in the binary.
//
// Why a table of our own rather than tiktoken-go's loader: the loader
// parses a base64 text file into a map[string]int of 200,000 entries and
// the library then builds a reverse map and a sorted copy, which costs a
// process ~200 ms of CPU and ~47 MiB on its first exact count (the turns
// near a compaction). This table is read where it lies: opening it checks
// a header and takes three sub-strings, so it costs no parsing and no
// heap, and only the pages the counted text touches are ever read in.
//
//go:generate go run ./internal/bpegen -out bpedata

const (
	bpeMagic    = "ccbpe\x00\x00\x02"
	bpeRankBits = 18
	bpeRankMask = 1<<bpeRankBits - 1
	bpeEmpty    = 0xFFFFFFFF
)

// bpeTable maps token bytes to ranks (and back) over an encoded table.
// It is immutable and safe for concurrent use.
type bpeTable struct {
	n       int
	mask    uint64
	offsets string // (n+1) uint32
	slots   string // mask+1 uint32
	blob    string
}

var errBadTable = errors.New("malformed rank table")

// openTable checks data's header and sizes and returns the table over it.
func openTable(data string) (*bpeTable, error) {
	const head = len(bpeMagic) + 8
	if len(data) < head || data[:len(bpeMagic)] != bpeMagic {
		return nil, errBadTable
	}
	n, bits := int(u32(data, len(bpeMagic))), int(u32(data, len(bpeMagic)+4))
	if n >= 1<<bpeRankBits || bits < 1 || bits > 30 {
		return nil, fmt.Errorf("%w: %d ranks in 2^%d slots", errBadTable, n, bits)
	}
	offEnd := head + 4*(n+1)
	slotEnd := offEnd + 4<<bits
	if len(data) < slotEnd {
		return nil, fmt.Errorf("%w: %d bytes, want more than %d", errBadTable, len(data), slotEnd)
	}
	t := &bpeTable{n: n, mask: 1<<bits - 1, offsets: data[head:offEnd], slots: data[offEnd:slotEnd], blob: data[slotEnd:]}
	if int(u32(t.offsets, 4*n)) != len(t.blob) {
		return nil, fmt.Errorf("%w: the tokens' bytes are cut", errBadTable)
	}
	return t, nil
}

// rank returns the rank of the token spelled b, or -1 when b is no token.
func (t *bpeTable) rank(b []byte) int {
	h := fnv1a(b)
	tag := uint32(h>>(64-(32-bpeRankBits))) << bpeRankBits
	for i := h & t.mask; ; i = (i + 1) & t.mask {
		s := u32(t.slots, int(4*i))
		if s == bpeEmpty {
			return -1
		}
		if s&^bpeRankMask == tag && t.token(int(s&bpeRankMask)) == string(b) {
			return int(s & bpeRankMask)
		}
	}
}

// token returns the bytes of rank r.
func (t *bpeTable) token(r int) string {
	return t.blob[u32(t.offsets, 4*r):u32(t.offsets, 4*r+4)]
}

// fnv1a is FNV-1a, 64 bits, with murmur3's finaliser (FNV's low bits
// depend only on the input's low bits), as internal/bpegen hashes.
func fnv1a(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h ^= uint64(c)
		h *= 1099511628211
	}
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	return h ^ h>>33
}

func u32(s string, i int) uint32 {
	_ = s[i+3]
	return uint32(s[i]) | uint32(s[i+1])<<8 | uint32(s[i+2])<<16 | uint32(s[i+3])<<24
}
