package tokens

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"path"
	"strings"

	"github.com/pkoukk/tiktoken-go-loader/assets"
)

// embeddedRanks is the BpeLoader clawdcode gives tiktoken-go: it reads
// the rank files tiktoken-go-loader embeds, as tiktokenloader's own
// OfflineLoader does (a test holds the two to the same map), with a
// fraction of its garbage: OfflineLoader copies the 3.6 MB o200k file
// twice, splits it into 200,000 strings and allocates each token three
// times over (46 MB, ~90 ms of CPU).
type embeddedRanks struct{}

// LoadTiktokenBpe returns the ranks of the file tiktoken-go names by its
// download address; only its base name is used.
func (embeddedRanks) LoadTiktokenBpe(file string) (map[string]int, error) {
	f, err := openRankFile(path.Base(file))
	if err != nil {
		return nil, err
	}
	ranks := make(map[string]int, len(f.starts))
	err = f.each(func(token string, rank int) { ranks[token] = rank })
	return ranks, err
}

// rankFile is one of tiktoken-go-loader's rank files ("<base64 token>
// <rank>" lines) held in memory for repeated passes, with where each line
// starts and a hash of each line's token. A pass that looks for some
// tokens (find) tests one bit per line and reads only the few lines that
// may hold one of them: ~2 ms for o200k's 200,000 lines, where parsing
// the file costs ~7 ms and loading it into a map ~70 ms.
type rankFile struct {
	name    string
	data    []byte
	starts  []uint32 // where each line starts in data
	hashes  []uint32 // fnv1a of each line's base64 token
	decoded int      // the most bytes the tokens decode to
}

// openRankFile reads the embedded rank file name and checks its lines.
func openRankFile(name string) (*rankFile, error) {
	data, err := assets.Assets.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("read %s of tiktoken-go-loader: %w", name, err)
	}
	lines := bytes.Count(data, []byte{'\n'}) + 1
	f := &rankFile{name: name, data: data, starts: make([]uint32, 0, lines), hashes: make([]uint32, 0, lines)}
	for at := 0; at < len(data); {
		// The token runs to the space; its hash is taken on the way. The
		// rank is read when the line is (find, each).
		h, end := uint32(fnvOffset), at
		for end < len(data) && data[end] != ' ' && data[end] != '\n' {
			h = (h ^ uint32(data[end])) * fnvPrime
			end++
		}
		if end == at || end == len(data) || data[end] != ' ' {
			if end == at && end < len(data) && data[end] == '\n' {
				at++ // an empty line
				continue
			}
			return nil, fmt.Errorf("%s line %d: not a token and a rank", name, len(f.starts)+1)
		}
		f.starts = append(f.starts, uint32(at))
		f.hashes = append(f.hashes, h)
		f.decoded += base64.StdEncoding.DecodedLen(end - at)
		next := bytes.IndexByte(data[end:], '\n')
		if next < 0 {
			break
		}
		at = end + next + 1
	}
	return f, nil
}

// line returns the token (base64) and rank (digits) of line i.
func (f *rankFile) line(i int) (token, rank []byte) {
	rest := f.data[f.starts[i]:]
	if end := bytes.IndexByte(rest, '\n'); end >= 0 {
		rest = rest[:end]
	}
	token, rank, _ = bytes.Cut(rest, []byte{' '})
	return token, rank
}

// find returns the ranks of those of wanted that are tokens. The file's
// tokens are compared in their base64 form, which is the standard
// encoding's (a test checks every line), so no line is decoded.
func (f *rankFile) find(wanted map[string]struct{}) (map[string]int, error) {
	byBase64 := make(map[string]string, len(wanted))
	var maybe bloom
	var buf []byte
	for t := range wanted {
		buf = base64.StdEncoding.AppendEncode(buf[:0], []byte(t))
		byBase64[string(buf)] = t
		maybe.add(fnv1a(buf))
	}
	found := map[string]int{}
	for i, h := range f.hashes {
		if !maybe.has(h) {
			continue
		}
		token, rank := f.line(i)
		t, ok := byBase64[string(token)]
		if !ok {
			continue
		}
		r, err := parseRank(rank)
		if err != nil {
			return nil, fmt.Errorf("%s line %d: %w", f.name, i+1, err)
		}
		found[t] = r
	}
	return found, nil
}

// each calls fn with every token and its rank. The tokens are slices of
// one string, grown once to the most they can take, so it never moves
// and what it has handed out is never written again.
func (f *rankFile) each(fn func(token string, rank int)) error {
	var all strings.Builder
	all.Grow(f.decoded)
	buf := make([]byte, 0, 256)
	for i := range f.starts {
		token, rank := f.line(i)
		n, err := base64.StdEncoding.Decode(buf[:cap(buf)], token)
		if err != nil {
			return fmt.Errorf("%s line %d: %w", f.name, i+1, err)
		}
		r, err := parseRank(rank)
		if err != nil {
			return fmt.Errorf("%s line %d: %w", f.name, i+1, err)
		}
		start := all.Len()
		all.Write(buf[:n])
		fn(all.String()[start:], r)
	}
	return nil
}

// parseRank reads a rank's decimal digits (strconv.Atoi would take a
// string, a copy per line).
func parseRank(b []byte) (int, error) {
	if len(b) == 0 || len(b) > 9 {
		return 0, fmt.Errorf("rank %q", b)
	}
	r := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("rank %q", b)
		}
		r = r*10 + int(c-'0')
	}
	return r, nil
}

// bloom is a one-hash Bloom filter of 2^18 bits (32 KB): a pass over the
// rank file tests a line's hash against it first, and looks the line up
// among the wanted tokens only when it may be one of them, which most
// lines are not.
type bloom [1 << 18 / 64]uint64

func (f *bloom) add(h uint32) { f[h/64%uint32(len(f))] |= 1 << (h % 64) }

func (f *bloom) has(h uint32) bool { return f[h/64%uint32(len(f))]&(1<<(h%64)) != 0 }

// fnv1a is the 32-bit FNV-1a hash of b.
func fnv1a(b []byte) uint32 {
	h := uint32(fnvOffset)
	for _, c := range b {
		h = (h ^ uint32(c)) * fnvPrime
	}
	return h
}

const (
	fnvOffset = 2166136261
	fnvPrime  = 16777619
)
