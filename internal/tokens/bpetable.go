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
// a header and takes three sub-strings, so it costs no parsing and no
// heap, and only the pages the counted text touches are ever read in.
//
//go:generate go run ./internal/bpegen -out bpedata

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
	const head = len(bpeformat.Magic) + 8
	if len(data) < head || data[:len(bpeformat.Magic)] != bpeformat.Magic {
		return nil, errBadTable
	}
	n, bits := int(u32(data, len(bpeformat.Magic))), int(u32(data, len(bpeformat.Magic)+4))
	if n >= 1<<bpeformat.RankBits || bits < 1 || bits > 30 {
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
	h := bpeformat.Hash(b)
	tag := bpeformat.Tag(h)
	for i := h & t.mask; ; i = (i + 1) & t.mask {
		s := u32(t.slots, int(4*i))
		if s == bpeformat.Empty {
			return -1
		}
		if s&^bpeformat.RankMask == tag && t.token(int(s&bpeformat.RankMask)) == string(b) {
			return int(s & bpeformat.RankMask)
		}
	}
}

// token returns the bytes of rank r.
func (t *bpeTable) token(r int) string {
	return t.blob[u32(t.offsets, 4*r):u32(t.offsets, 4*r+4)]
}

func u32(s string, i int) uint32 {
	_ = s[i+3]
	return uint32(s[i]) | uint32(s[i+1])<<8 | uint32(s[i+2])<<16 | uint32(s[i+3])<<24
}
