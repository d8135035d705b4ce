//go:build !unix

package search

import (
	"os"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// mapFile reads a segment file into memory where mmap is not available.
func mapFile(path string) ([]byte, func() error, error) {
	data, err := storage.ReadRegular(path)
	if err != nil {
		return nil, nil, err
	}
	return data, func() error { return nil }, nil
}

// release does nothing where segments are read into memory.
func release([]byte) {}
