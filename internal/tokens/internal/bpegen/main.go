// Command bpegen writes the BPE rank tables package tokens embeds, one
// file per encoding, from the .tiktoken files tiktoken-go-loader embeds.
//
// Provenance: the ranks are OpenAI's (openai/tiktoken, MIT), published at
// openaipublic.blob.core.windows.net/encodings/<name>.tiktoken and copied
// verbatim into github.com/pkoukk/tiktoken-go-loader (MIT) under assets/;
// this program reads them through that module's OfflineLoader at the
// version go.mod pins, so the tables are exactly the ranks tiktoken-go
// loads. Run it with `go generate ./internal/tokens` after changing either
// module's version; the tokens tests compare the tables with tiktoken-go.
//
// The file format (integers little-endian):
//
//	bpeformat.Magic
//	n, the number of ranks (they are 0..n-1), and nb, the number of
//	  buckets (two uint32)
//	buckets[nb]: bpeformat.BucketEntries uint64 entries each, one cache
//	  line; an entry is bpeformat.Empty, or a token's bpeformat.Key with
//	  its rank in the low bpeformat.RankBits bits. A bucket's entries are
//	  packed at its start. A token is in one of its two bpeformat.Buckets
//	  (bucketized cuckoo hashing, filled to 97 %).
//
// The tokens' bytes are not kept: a lookup compares keys (see
// bpeformat.Key), so a count touches only the buckets, 1.6 MiB for
// o200k_base where the bytes and their offsets took 2.2 MiB more.
//
// The reader (tokens.bpeTable) opens it without parsing or allocating.
package main

import (
	"encoding/binary"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"

	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"

	"github.com/clawdcode/clawdcode/internal/tokens/internal/bpeformat"
)

func main() {
	out := flag.String("out", "bpedata", "directory to write <encoding>.ranks into")
	flag.Parse()
	for _, name := range []string{"o200k_base", "cl100k_base"} {
		if err := generate(*out, name); err != nil {
			fmt.Fprintln(os.Stderr, "bpegen:", err)
			os.Exit(1)
		}
	}
}

func generate(dir, name string) error {
	ranks, err := tiktokenloader.NewOfflineLoader().LoadTiktokenBpe(name + ".tiktoken")
	if err != nil {
		return fmt.Errorf("load %s: %w", name, err)
	}
	data, err := encode(ranks)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return os.WriteFile(filepath.Join(dir, name+".ranks"), data, 0o644)
}

// encode lays ranks out in the format above.
func encode(ranks map[string]int) ([]byte, error) {
	n := len(ranks)
	if n >= bpeformat.RankMask {
		return nil, fmt.Errorf("%d ranks do not fit %d bits", n, bpeformat.RankBits)
	}
	tokens := make([]string, n)
	for tok, r := range ranks {
		if r < 0 || r >= n || tokens[r] != "" {
			return nil, fmt.Errorf("ranks are not 0..%d each once (rank %d)", n-1, r)
		}
		tokens[r] = tok
	}
	keys := make(map[uint64]string, n)
	for _, tok := range tokens {
		k := bpeformat.Key(bpeformat.Hash([]byte(tok)))
		if other, ok := keys[k]; ok {
			return nil, fmt.Errorf("tokens %q and %q share a key: change bpeformat.Hash", other, tok)
		}
		keys[k] = tok
	}
	nb := uint32((n*100/97)/bpeformat.BucketEntries + 1)
	for {
		t, ok := fill(tokens, nb)
		if ok {
			return t.bytes(n), nil
		}
		nb += nb/100 + 1
	}
}

// cuckoo is a table being filled: each entry with its token's hash, which
// an entry moved to its other bucket needs.
type cuckoo struct {
	nb      uint32
	entries [][bpeformat.BucketEntries]uint64
	hashes  [][bpeformat.BucketEntries]uint64
	used    []int
	rng     *rand.Rand
}

// fill puts every token into a table of nb buckets, or reports that one
// found no room.
func fill(tokens []string, nb uint32) (*cuckoo, bool) {
	t := &cuckoo{
		nb:      nb,
		entries: make([][bpeformat.BucketEntries]uint64, nb),
		hashes:  make([][bpeformat.BucketEntries]uint64, nb),
		used:    make([]int, nb),
		rng:     rand.New(rand.NewPCG(22, uint64(nb))), // the same file from the same ranks
	}
	for r, tok := range tokens {
		h := bpeformat.Hash([]byte(tok))
		if !t.insert(bpeformat.Key(h)|uint64(r), h) {
			return nil, false
		}
	}
	return t, true
}

// insert puts an entry into one of its buckets, moving others to theirs
// (a random walk) when both are full.
func (t *cuckoo) insert(e, h uint64) bool {
	b1, b2 := bpeformat.Buckets(h, t.nb)
	b := b1
	if t.used[b2] < t.used[b1] {
		b = b2
	}
	for range 100000 {
		if t.used[b] < bpeformat.BucketEntries {
			t.entries[b][t.used[b]], t.hashes[b][t.used[b]] = e, h
			t.used[b]++
			return true
		}
		j := t.rng.IntN(bpeformat.BucketEntries)
		t.entries[b][j], e = e, t.entries[b][j]
		t.hashes[b][j], h = h, t.hashes[b][j]
		if o1, o2 := bpeformat.Buckets(h, t.nb); o1 == b {
			b = o2
		} else {
			b = o1
		}
	}
	return false
}

func (t *cuckoo) bytes(n int) []byte {
	out := make([]byte, 0, len(bpeformat.Magic)+8+int(t.nb)*bpeformat.BucketBytes)
	out = append(out, bpeformat.Magic...)
	out = binary.LittleEndian.AppendUint32(out, uint32(n))
	out = binary.LittleEndian.AppendUint32(out, t.nb)
	for b := range t.entries {
		for j, e := range t.entries[b] {
			if j >= t.used[b] {
				e = bpeformat.Empty
			}
			out = binary.LittleEndian.AppendUint64(out, e)
		}
	}
	return out
}
