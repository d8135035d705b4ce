package cli

import (
	"bytes"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/search"
)

// An index build shows nothing in its first second; after it, one line
// of files, MB and the share done, rewritten in place, and cleared when
// the build is done. A build that never showed clears nothing.
func TestIndexProgressLine(t *testing.T) {
	t.Parallel()
	var w bytes.Buffer
	show := indexProgress(&w)
	show(search.Progress{Files: 1, TotalFiles: 10, Bytes: 1 << 20, TotalBytes: 100 << 20, Elapsed: 500 * time.Millisecond})
	if w.Len() != 0 {
		t.Fatalf("shown within the first second: %q", w.String())
	}
	show(search.Progress{Files: 4, TotalFiles: 10, Bytes: 48 << 20, TotalBytes: 100 << 20, Elapsed: 1200 * time.Millisecond})
	show(search.Progress{Files: 10, TotalFiles: 10, Bytes: 100 << 20, TotalBytes: 100 << 20, Elapsed: 2 * time.Second, Done: true})
	want := "\r\033[Kindexing sessions: 4 of 10 files, 48 of 100 MB, 48%" + "\r\033[K"
	if w.String() != want {
		t.Errorf("progress %q, want %q", w.String(), want)
	}
	w.Reset()
	quick := indexProgress(&w)
	quick(search.Progress{Files: 1, TotalFiles: 1, Bytes: 10, TotalBytes: 10, Elapsed: time.Millisecond, Done: true})
	if w.Len() != 0 {
		t.Errorf("a quick build wrote %q", w.String())
	}
}
