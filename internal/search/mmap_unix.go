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
