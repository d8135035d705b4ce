package tokens

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"hash/maphash"
	"path"
	"slices"
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
// <rank>" lines) held in memory and indexed by a hash of each line's
// token, so that the ranks of a few thousand strings are found in well
// under a millisecond (find), where loading the file into a map costs
// ~70 ms. The index is a hash table laid out flat: the lines whose hash
// falls in bucket b (its top bits) are starts[first[b]:first[b+1]], their
// hashes beside them. Reading and indexing o200k's 200,000 lines costs
// ~5 ms and ~6 MiB.
type rankFile struct {
	name    string
	data    []byte
	first   []uint32 // where each bucket's lines begin in starts and hashes
	starts  []uint32 // where each line starts in data, by bucket
	hashes  []uint32 // the hash of each line's base64 token, by bucket
	decoded int      // the most bytes the tokens decode to
	seed    maphash.Seed
}

// rankBuckets is how many buckets a rankFile's index has: a bucket holds
// about three of o200k's lines.
const rankBuckets = 1 << 16

// openRankFile reads the embedded rank file name and indexes its lines.
func openRankFile(name string) (*rankFile, error) {
	data, err := assets.Assets.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("read %s of tiktoken-go-loader: %w", name, err)
	}
	lines := bytes.Count(data, []byte{'\n'}) + 1
	starts, hashes := make([]uint32, 0, lines), make([]uint32, 0, lines)
	f := &rankFile{name: name, data: data, first: make([]uint32, rankBuckets+1), seed: maphash.MakeSeed()}
	for at := 0; at < len(data); {
		// A line is the token, a space and the rank, which is read when
		// the line is (find, each).
		line := data[at:]
		if n := bytes.IndexByte(line, '\n'); n >= 0 {
			line = line[:n]
		}
		next := at + len(line) + 1
		if len(line) == 0 {
			at = next
			continue
		}
		sp := bytes.IndexByte(line, ' ')
		if sp <= 0 {
			return nil, fmt.Errorf("%s line %d: not a token and a rank", name, len(starts)+1)
		}
		h := f.hash(line[:sp])
		starts, hashes = append(starts, uint32(at)), append(hashes, h)
		f.first[bucketOf(h)+1]++
		f.decoded += base64.StdEncoding.DecodedLen(sp)
		at = next
	}
	for b := range rankBuckets {
		f.first[b+1] += f.first[b]
	}
	f.starts, f.hashes = make([]uint32, len(starts)), make([]uint32, len(starts))
	next := slices.Clone(f.first[:rankBuckets])
	for i, h := range hashes {
		b := bucketOf(h)
		f.starts[next[b]], f.hashes[next[b]] = starts[i], h
		next[b]++
	}
	return f, nil
}

func bucketOf(h uint32) uint32 { return h >> 16 }

// line returns the token (base64) and rank (digits) of the line at start.
func (f *rankFile) line(start uint32) (token, rank []byte) {
	rest := f.data[start:]
	if end := bytes.IndexByte(rest, '\n'); end >= 0 {
		rest = rest[:end]
	}
	token, rank, _ = bytes.Cut(rest, []byte{' '})
	return token, rank
}

// find returns the ranks of those of wanted that are tokens. A token is
// looked up by its base64 form, which is how every line spells it (the
// standard encoding's, a test checks), so no line is decoded.
func (f *rankFile) find(wanted map[string]struct{}) (map[string]int, error) {
	found := map[string]int{}
	var buf []byte
	for t := range wanted {
		buf = base64.StdEncoding.AppendEncode(buf[:0], []byte(t))
		h := f.hash(buf)
		b := bucketOf(h)
		for i := f.first[b]; i < f.first[b+1]; i++ {
			if f.hashes[i] != h {
				continue
			}
			token, rank := f.line(f.starts[i])
			if !bytes.Equal(token, buf) {
				continue
			}
			r, err := parseRank(rank)
			if err != nil {
				return nil, fmt.Errorf("%s: token %s: %w", f.name, token, err)
			}
			found[t] = r
			break
		}
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
	for _, start := range f.starts {
		token, rank := f.line(start)
		n, err := base64.StdEncoding.Decode(buf[:cap(buf)], token)
		if err != nil {
			return fmt.Errorf("%s: token %s: %w", f.name, token, err)
		}
		r, err := parseRank(rank)
		if err != nil {
			return fmt.Errorf("%s: token %s: %w", f.name, token, err)
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

// hash is the index's hash of a base64 token.
func (f *rankFile) hash(token []byte) uint32 { return uint32(maphash.Bytes(f.seed, token)) }
