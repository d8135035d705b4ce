//go:build unix

package storage

import (
	"io/fs"
	"syscall"

	"golang.org/x/sys/unix"
)

// Inode is the inode number of what fi describes (0 when unknown): a
// file replaced under the same name has another.
func Inode(fi fs.FileInfo) uint64 {
	switch st := fi.Sys().(type) {
	case *syscall.Stat_t:
		return uint64(st.Ino)
	case *unix.Stat_t:
		return uint64(st.Ino)
	}
	return 0
}
