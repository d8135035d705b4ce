// Package bpeformat is what the writer of the rank tables (bpegen) and
// their reader (package tokens) must agree on: the magic, the entry
// layout, the hash and where a token's buckets are. The format itself is
// described in bpegen's doc.
package bpeformat

const (
	// Magic opens a table file; its last byte is the format's version.
	Magic = "ccbpe\x00\x00\x03"
	// RankBits of an entry hold the rank; the other 46 are the token's Key.
	RankBits = 18
	RankMask = 1<<RankBits - 1
	// BucketEntries entries of 8 bytes make a bucket, one 64-byte cache line.
	BucketEntries = 8
	BucketBytes   = 8 * BucketEntries
	// Empty is a free entry. No token's entry is all ones: its rank would
	// be RankMask, and a table holds fewer ranks than that.
	Empty = ^uint64(0)
)

// Hash is FNV-1a, 64 bits, with murmur3's finaliser: FNV's low bits depend
// only on the input's low bits.
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

// Key is what of h an entry keeps beside the rank: its top 46 bits. A
// lookup takes an entry whose key is its own for the token, without
// comparing bytes; bpegen checks that no two tokens share a key, so only
// a string that is no token can be taken for one, with odds of 2^-46 per
// entry compared (at most 16 a lookup).
func Key(h uint64) uint64 { return h &^ RankMask }

// Buckets are the two buckets, of nb, a token of hash h may be in. They
// come from a remix of h (splitmix64's finaliser), so tokens that share a
// bucket share no bits of their keys by construction.
func Buckets(h uint64, nb uint32) (uint32, uint32) {
	m := h + 0x9e3779b97f4a7c15
	m = (m ^ m>>30) * 0xbf58476d1ce4e5b9
	m = (m ^ m>>27) * 0x94d049bb133111eb
	m ^= m >> 31
	return uint32(uint64(uint32(m)) * uint64(nb) >> 32), uint32(m >> 32 * uint64(nb) >> 32)
}
