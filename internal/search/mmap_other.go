//go:build !unix

package search

import (
	"os"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// fileID is 0 where inodes are not known: a replaced file is then told
// only by its size.
func fileID(os.FileInfo) uint64 { return 0 }

// mapFile reads a segment file into memory where mmap is not available.
func mapFile(path string) ([]byte, func() error, error) {
	data, err := storage.ReadRegular(path)
	if err != nil {
		return nil, nil, err
	}
	return data, func() error { return nil }, nil
}

// mapRange reads n bytes of f from off where mmap is not available.
func mapRange(f *os.File, off, n int64) ([]byte, func() error, error) {
	data := make([]byte, n)
	k, err := f.ReadAt(data, off)
	if k < len(data) {
		return nil, nil, err
	}
	return data, func() error { return nil }, nil
}
