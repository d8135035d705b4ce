//go:build !unix

package storage

import "io/fs"

// Inode is 0 where inode numbers are not known.
func Inode(fs.FileInfo) uint64 { return 0 }
