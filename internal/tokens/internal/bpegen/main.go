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
// The file format (all integers little-endian uint32):
//
//	bpeformat.Magic
//	n, the number of ranks (they are 0..n-1), and bits, log2 of the slots
//	offsets[n+1]: rank r's bytes are blob[offsets[r]:offsets[r+1]]
//	slots[1<<bits]: 0xFFFFFFFF for empty, else rank | tag<<18, where a
//	  token's home slot is the low bits of its bpeformat.Hash and tag is
//	  the hash's top 14 bits; collisions probe linearly
//	blob: the tokens' bytes, in rank order
//
// The reader (tokens.bpeTable) opens it without parsing or allocating.
package main

import (
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
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
	if n >= 1<<bpeformat.RankBits {
		return nil, fmt.Errorf("%d ranks do not fit %d bits", n, bpeformat.RankBits)
	}
	tokens := make([]string, n)
	for tok, r := range ranks {
		if r < 0 || r >= n || tokens[r] != "" {
			return nil, fmt.Errorf("ranks are not 0..%d each once (rank %d)", n-1, r)
		}
		tokens[r] = tok
	}
	bits := 1
	for 1<<bits < n+n/4 { // load factor at most 4/5: fewer pages touched; the tags settle most misses
		bits++
	}
	slots := make([]uint32, 1<<bits)
	for i := range slots {
		slots[i] = bpeformat.Empty
	}
	var blob bytes.Buffer
	offsets := make([]uint32, 0, n+1)
	mask := uint64(len(slots) - 1)
	for r, tok := range tokens {
		offsets = append(offsets, uint32(blob.Len()))
		blob.WriteString(tok)
		h := bpeformat.Hash([]byte(tok))
		i := h & mask
		for slots[i] != bpeformat.Empty {
			i = (i + 1) & mask
		}
		slots[i] = uint32(r) | bpeformat.Tag(h)
	}
	offsets = append(offsets, uint32(blob.Len()))
	var out bytes.Buffer
	out.WriteString(bpeformat.Magic)
	for _, v := range [][]uint32{{uint32(n), uint32(bits)}, offsets, slots} {
		if err := binary.Write(&out, binary.LittleEndian, v); err != nil {
			return nil, err
		}
	}
	out.Write(blob.Bytes())
	return out.Bytes(), nil
}
