//go:build !linux

package storage

import (
	"io/fs"
	"os"
	"path/filepath"
)

// statAt is os.Lstat of name in the open directory dir.
func statAt(dir *os.File, name string) (fs.FileInfo, error) {
	return os.Lstat(filepath.Join(dir.Name(), name))
}

// openAt is OpenRegular(name, O_RDONLY) in the open directory dir.
func openAt(dir *os.File, name string) (*os.File, error) {
	return OpenRegular(filepath.Join(dir.Name(), name), os.O_RDONLY, 0)
}
