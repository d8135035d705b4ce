package tokens

import (
	"bufio"
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
// fraction of its garbage. OfflineLoader copies the 3.6 MB o200k file
// twice, splits it into 200,000 strings and allocates each token three
// times over (46 MB, ~90 ms of CPU); this reads the file twice through a
// small buffer, first to size what it builds, and decodes every token
// into one string, which the map's keys share.
type embeddedRanks struct{}

// LoadTiktokenBpe returns the ranks of the file tiktoken-go names by its
// download address; only its base name is used.
func (embeddedRanks) LoadTiktokenBpe(file string) (map[string]int, error) {
	return loadRanks(path.Base(file))
}

// loadRanks parses an embedded rank file ("<base64 token> <rank>" lines).
func loadRanks(name string) (map[string]int, error) {
	count, size := 0, 0
	err := eachRankLine(name, func(token []byte, _ []byte) error {
		count++
		size += base64.StdEncoding.DecodedLen(len(token))
		return nil
	})
	if err != nil {
		return nil, err
	}
	// Every key is a slice of one string: the builder is grown once to
	// the most the tokens can take, so it never moves, and what it has
	// handed out is never written again.
	var all strings.Builder
	all.Grow(size)
	ranks := make(map[string]int, count)
	buf := make([]byte, 0, 256)
	err = eachRankLine(name, func(token, rank []byte) error {
		n, err := base64.StdEncoding.Decode(buf[:cap(buf)], token)
		if err != nil {
			return err
		}
		r, err := parseRank(rank)
		if err != nil {
			return err
		}
		start := all.Len()
		all.Write(buf[:n])
		ranks[all.String()[start:]] = r
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ranks, nil
}

// scanRanks returns the ranks of those of wanted that are tokens of the
// embedded rank file name, in one pass over it that keeps nothing else.
// The file's tokens are compared in their base64 form, which is the
// standard encoding's (a test checks every line), so no line is decoded.
func scanRanks(name string, wanted map[string]struct{}) (map[string]int, error) {
	byBase64 := make(map[string]string, len(wanted))
	var buf []byte
	for t := range wanted {
		buf = base64.StdEncoding.AppendEncode(buf[:0], []byte(t))
		byBase64[string(buf)] = t
	}
	found := map[string]int{}
	err := eachRankLine(name, func(token, rank []byte) error {
		t, ok := byBase64[string(token)]
		if !ok {
			return nil
		}
		r, err := parseRank(rank)
		if err != nil {
			return err
		}
		found[t] = r
		return nil
	})
	if err != nil {
		return nil, err
	}
	return found, nil
}

// eachRankLine calls fn with the base64 token and the rank of each line
// of the embedded file name.
func eachRankLine(name string, fn func(token, rank []byte) error) error {
	f, err := assets.Assets.Open(name)
	if err != nil {
		return fmt.Errorf("open %s of tiktoken-go-loader: %w", name, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		token, rank, ok := bytes.Cut(sc.Bytes(), []byte{' '})
		if !ok || len(token) > 256/3*4 {
			return fmt.Errorf("%s line %d: not a token and a rank", name, n)
		}
		if err := fn(token, rank); err != nil {
			return fmt.Errorf("%s line %d: %w", name, n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read %s: %w", name, err)
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
