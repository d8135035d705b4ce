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
