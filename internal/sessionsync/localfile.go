package sessionsync

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// maxSegment is the most bytes a segment gets when a push cuts new bytes
// into segments (a single longer line gets one of its own): big enough
// that a gigabyte is 128 objects, small enough to hold a few in memory
// while they upload.
const maxSegment = 8 << 20

// lineEnd is the end of the last whole line of the size bytes of f: what a
// push may send (a line still being written, or torn by a crash, is not).
func lineEnd(f *os.File, size int64) (int64, error) {
	buf := make([]byte, 64<<10)
	for end := size; end > 0; {
		n := min(int64(len(buf)), end)
		b := buf[:n]
		if _, err := f.ReadAt(b, end-n); err != nil {
			return 0, err
		}
		if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
			return end - n + int64(i) + 1, nil
		}
		end -= n
	}
	return 0, nil
}

// readAt reads the bytes [start, end) of f.
func readAt(f *os.File, start, end int64) ([]byte, error) {
	b := make([]byte, end-start)
	if _, err := f.ReadAt(b, start); err != nil && err != io.EOF {
		return nil, err
	}
	return b, nil
}

// nextCut is where the segment starting at start ends: the end of the
// last whole line within maxSegment bytes, or of the first line when that
// is longer, never past end (which ends a line).
func nextCut(f *os.File, start, end int64) (int64, error) {
	if end-start <= maxSegment {
		return end, nil
	}
	b, err := readAt(f, start, start+maxSegment)
	if err != nil {
		return 0, err
	}
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		return start + int64(i) + 1, nil
	}
	// One line longer than a segment: it is a segment of its own.
	buf := make([]byte, 1<<20)
	for at := start + maxSegment; at < end; {
		n := min(int64(len(buf)), end-at)
		if _, err := f.ReadAt(buf[:n], at); err != nil {
			return 0, err
		}
		if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
			return at + int64(i) + 1, nil
		}
		at += n
	}
	return end, nil
}

// sumAt is the hex SHA-256 of the bytes [start, end) of f.
func sumAt(f *os.File, start, end int64) (string, error) {
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(f, start, end-start)); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// common is how much of the local file f (its whole lines end at size)
// the store's session h holds too: the longest prefix that is the same on
// both sides, cut back to a line's end. The first trusted bytes are taken
// as the same (the state's hint, when it is not past either side); every
// segment after them is compared by hash with the local bytes, and the
// one where they part is fetched to find the very line.
func (r *remote) common(ctx context.Context, f *os.File, size int64, h *head, trusted int64) (int64, error) {
	if h == nil {
		return 0, nil
	}
	if trusted > size || trusted > h.Size {
		trusted = 0
	}
	at := trusted
	for _, s := range h.Segments {
		if s.End <= at {
			continue
		}
		if s.End <= size {
			sum, err := sumAt(f, s.Start, s.End)
			if err != nil {
				return 0, err
			}
			if sum == s.SHA256 {
				at = s.End
				continue
			}
		}
		if s.Start >= size {
			break
		}
		// The local file ends inside this segment, or parts from it.
		data, err := r.getSegment(ctx, s)
		if err != nil {
			return 0, err
		}
		local, err := readAt(f, at, min(s.End, size))
		if err != nil {
			return 0, err
		}
		theirs := data[at-s.Start:]
		n := 0
		for n < len(local) && n < len(theirs) && local[n] == theirs[n] {
			n++
		}
		// Back to the end of the last line both hold whole.
		if i := bytes.LastIndexByte(local[:n], '\n'); i >= 0 {
			at += int64(i) + 1
		}
		break
	}
	return at, nil
}

// boundaryWord is in every line that may be a compaction's boundary.
var boundaryWord = []byte(storage.SubtypeCompactBoundary)

// lastBoundary is the offset (within data, the bytes of whole lines) of
// the last line that is a compaction's boundary, -1 when none is.
func lastBoundary(data []byte) int {
	for end := len(data); end > 0; {
		i := bytes.LastIndex(data[:end], boundaryWord)
		if i < 0 {
			return -1
		}
		start := bytes.LastIndexByte(data[:i], '\n') + 1
		stop := i + bytes.IndexByte(data[i:], '\n')
		if stop < i {
			stop = len(data)
		}
		var r struct {
			Type    string `json:"type"`
			Subtype string `json:"subtype"`
		}
		if storage.DecodeLine(data[start:stop], &r) == nil && r.Type == storage.TypeSystem && r.Subtype == storage.SubtypeCompactBoundary {
			return start
		}
		end = start
	}
	return -1
}

// openLocal opens a session file to read its bytes.
func openLocal(path string) (*os.File, error) {
	f, err := storage.OpenRegular(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, fmt.Errorf("read session file: %w", err)
	}
	return f, nil
}
