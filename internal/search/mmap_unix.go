//go:build unix

package search

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// mapFile maps a segment file read-only: a search touches only the pages
// of the terms it looks up, so a large index costs no read up front.
func mapFile(path string) ([]byte, func() error, error) {
	f, err := storage.OpenRegular(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if fi.Size() == 0 {
		return nil, func() error { return nil }, nil
	}
	if fi.Size() != int64(int(fi.Size())) {
		return nil, nil, fmt.Errorf("%s: too large to map", path)
	}
	data, err := unix.Mmap(int(f.Fd()), 0, int(fi.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, nil, fmt.Errorf("map %s: %w", path, err)
	}
	return data, func() error { return unix.Munmap(data) }, nil
}

// release gives back the pages of a mapped segment that a search has
// read: they stay in the page cache, and fault in again if read again,
// but no longer count in the process's memory. A search whose words are
// in most records reads every segment's document table (20 bytes a
// record: 200 MB over 10 GB of sessions), one segment at a time.
func release(data []byte) {
	if len(data) >= releaseMin {
		_ = unix.Madvise(data, unix.MADV_DONTNEED)
	}
}
