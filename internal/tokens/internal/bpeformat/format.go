// Package bpeformat is what the writer of the rank tables (bpegen) and
// their reader (package tokens) must agree on: the magic, the slot layout
// and the hash. The format itself is described in bpegen's doc.
package bpeformat

const (
	// Magic opens a table file; its last byte is the format's version.
	Magic = "ccbpe\x00\x00\x02"
	// RankBits of a slot hold the rank; the rest the hash's tag.
	RankBits = 18
	RankMask = 1<<RankBits - 1
	// Empty is a free slot.
	Empty = 0xFFFFFFFF
)

// Hash is FNV-1a, 64 bits, with murmur3's finaliser: FNV's low bits depend
// only on the input's low bits, and a token's slot is chosen by them.
func Hash(b []byte) uint64 {
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

// Tag is the part of a slot that h contributes: its top bits, above the
// rank.
func Tag(h uint64) uint32 { return uint32(h>>(64-(32-RankBits))) << RankBits }
