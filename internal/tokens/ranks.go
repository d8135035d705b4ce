package tokens

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"math/bits"
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
// <rank>" lines), read where it is embedded in the binary, never copied
// whole, and indexed by a hash of each line's token: a chained hash table
// of three arrays in the file's line order — where each line starts, and
// the line before it in its bucket with spare bits of its hash above —
// and the last line of each bucket. find reads only the lines whose hash
// matches a wanted token's (one in a few thousand more than those).
//
// Why so, and not a table of slots or the file in memory: a turn near the
// compaction trigger is a process of its own that counts a message or
// two, and in a fresh process every page of new memory is a page fault,
// which on a loaded machine costs microseconds. A copy of o200k's 3.6 MB
// and a 2 MiB open-addressing table were ~2,000 faults and ~15 ms of CPU
// there; these arrays are 1.8 MB, written in order but for the buckets
// (256 KiB, which stay in cache), in one pass over the file.
type rankFile struct {
	name   string
	file   io.ReaderAt // the embedded file
	size   int64
	starts []uint32 // where each line starts
	// next is, for each line, the line before it in its bucket (plus
	// one, 0 = none) in its low lineBits, and the rest of the line's hash
	// above them.
	next     []uint32
	last     []uint32 // each bucket's last line, plus one
	lineBits uint
	// decoded is the most bytes the tokens decode to.
	decoded int
	seed    maphash.Seed
}

// rankBuckets is how many buckets a rankFile's index has: a bucket holds
// about three of o200k's lines.
const rankBuckets = 1 << 16

// openRankFile reads the embedded rank file name once and indexes its
// lines.
func openRankFile(name string) (*rankFile, error) {
	f, err := assets.Assets.Open(name)
	if err != nil {
		return nil, fmt.Errorf("read %s of tiktoken-go-loader: %w", name, err)
	}
	ra, ok := f.(io.ReaderAt)
	info, statErr := f.Stat()
	if !ok || statErr != nil {
		return nil, fmt.Errorf("read %s of tiktoken-go-loader: not a file that can be read at an offset", name)
	}
	// A line is at least seven bytes ("AA== 0\n"); o200k's are ~18.
	most := info.Size()/7 + 1
	rf := &rankFile{name: name, file: ra, size: info.Size(), seed: maphash.MakeSeed(),
		lineBits: uint(bits.Len64(uint64(most))), last: make([]uint32, rankBuckets)}
	if info.Size() >= 1<<32 || rf.lineBits > 24 {
		return nil, fmt.Errorf("%s: too large to index (%d bytes)", name, info.Size())
	}
	guess := int(info.Size()/16) + 1
	rf.starts, rf.next = make([]uint32, 0, guess), make([]uint32, 0, guess)
	err = eachLine(f, func(at int64, line []byte) error {
		sp := bytes.IndexByte(line, ' ')
		if sp <= 0 {
			return fmt.Errorf("%s line %d: not a token and a rank", name, len(rf.starts)+1)
		}
		b, check := rf.hash(line[:sp])
		rf.starts = append(rf.starts, uint32(at))
		rf.next = append(rf.next, rf.last[b]|check)
		rf.last[b] = uint32(len(rf.starts))
		rf.decoded += base64.StdEncoding.DecodedLen(sp)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return rf, nil
}

// hash returns the bucket of a base64 token and the rest of its hash,
// above lineBits, as next holds it.
func (f *rankFile) hash(token []byte) (bucket int, check uint32) {
	h := maphash.Bytes(f.seed, token)
	return int(h >> 48), uint32(h) << f.lineBits
}

// eachLine calls fn with every line of r that is not empty (without its
// newline) and where it starts. The line is fn's only until it returns.
func eachLine(r io.Reader, fn func(at int64, line []byte) error) error {
	buf := make([]byte, 64<<10)
	var base int64 // where buf starts in r
	n := 0         // the bytes in buf
	for {
		m, err := r.Read(buf[n:])
		n += m
		i := 0
		for {
			j := bytes.IndexByte(buf[i:n], '\n')
			if j < 0 {
				break
			}
			if j > 0 {
				if err := fn(base+int64(i), buf[i:i+j]); err != nil {
					return err
				}
			}
			i += j + 1
		}
		switch {
		case err == io.EOF && i < n:
			return fn(base+int64(i), buf[i:n])
		case err == io.EOF:
			return nil
		case err != nil:
			return err
		case i == 0 && n == len(buf):
			return fmt.Errorf("a line longer than %d bytes at %d", len(buf), base)
		}
		// The start of a line the next read completes.
		n = copy(buf, buf[i:n])
		base += int64(i)
	}
}

// line reads line i into buf and returns its token (base64) and rank
// (digits).
func (f *rankFile) line(i int, buf []byte) (token, rank []byte, err error) {
	end := f.size
	if i+1 < len(f.starts) {
		end = int64(f.starts[i+1])
	}
	n := end - int64(f.starts[i])
	if n > int64(cap(buf)) {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	if _, err := f.file.ReadAt(buf, int64(f.starts[i])); err != nil && !errors.Is(err, io.EOF) {
		return nil, nil, fmt.Errorf("%s: %w", f.name, err)
	}
	token, rank, _ = bytes.Cut(bytes.TrimSuffix(buf, []byte{'\n'}), []byte{' '})
	return token, rank, nil
}

// find returns the ranks of those of wanted that are tokens. A token is
// looked up by its base64 form, which is how every line spells it (the
// standard encoding's, a test checks), so no line is decoded.
func (f *rankFile) find(wanted []string) (map[string]int, error) {
	found := map[string]int{}
	lineMask := uint32(1)<<f.lineBits - 1
	var b64 []byte
	buf := make([]byte, 256)
	for _, t := range wanted {
		b64 = base64.StdEncoding.AppendEncode(b64[:0], []byte(t))
		b, check := f.hash(b64)
		for e := f.last[b]; e != 0; e = f.next[e-1] & lineMask {
			if f.next[e-1]&^lineMask != check {
				continue
			}
			token, rank, err := f.line(int(e-1), buf)
			if err != nil {
				return nil, err
			}
			if !bytes.Equal(token, b64) {
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

// each calls fn with every token and its rank, in the file's order. The
// tokens are slices of one string, grown once to the most they can take,
// so it never moves and what it has handed out is never written again.
func (f *rankFile) each(fn func(token string, rank int)) error {
	var all strings.Builder
	all.Grow(f.decoded)
	buf := make([]byte, 0, 256)
	return eachLine(io.NewSectionReader(f.file, 0, f.size), func(_ int64, line []byte) error {
		token, rank, _ := bytes.Cut(line, []byte{' '})
		n, err := base64.StdEncoding.Decode(buf[:cap(buf)], token)
		if err != nil {
			return fmt.Errorf("%s: token %s: %w", f.name, token, err)
		}
		r, err := parseRank(rank)
		if err != nil {
			return fmt.Errorf("%s: token %s: %w", f.name, token, err)
		}
		from := all.Len()
		all.Write(buf[:n])
		fn(all.String()[from:], r)
		return nil
	})
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
