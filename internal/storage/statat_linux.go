//go:build linux

package storage

import (
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"
)

// statAt is os.Lstat of name in the open directory dir, without walking
// the directory's path again for every file: listing or searching a
// project of 10,000 sessions stats each of them, and the path walk was
// most of a stat's cost. Its Sys is a *unix.Stat_t.
func statAt(dir *os.File, name string) (fs.FileInfo, error) {
	var st unix.Stat_t
	for {
		err := unix.Fstatat(int(dir.Fd()), name, &st, unix.AT_SYMLINK_NOFOLLOW)
		if err == nil {
			return &statInfo{name: name, st: st}, nil
		}
		if err != unix.EINTR {
			return nil, &fs.PathError{Op: "lstat", Path: filepath.Join(dir.Name(), name), Err: err}
		}
	}
}

// statInfo is the fs.FileInfo of a unix.Stat_t.
type statInfo struct {
	name string
	st   unix.Stat_t
}

func (i *statInfo) Name() string       { return i.name }
func (i *statInfo) Size() int64        { return i.st.Size }
func (i *statInfo) ModTime() time.Time { return time.Unix(i.st.Mtim.Unix()) }
func (i *statInfo) IsDir() bool        { return i.Mode().IsDir() }
func (i *statInfo) Sys() any           { return &i.st }

func (i *statInfo) Mode() fs.FileMode {
	m := fs.FileMode(i.st.Mode & 0o777)
	switch i.st.Mode & unix.S_IFMT {
	case unix.S_IFBLK:
		m |= fs.ModeDevice
	case unix.S_IFCHR:
		m |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFDIR:
		m |= fs.ModeDir
	case unix.S_IFIFO:
		m |= fs.ModeNamedPipe
	case unix.S_IFLNK:
		m |= fs.ModeSymlink
	case unix.S_IFSOCK:
		m |= fs.ModeSocket
	}
	return m
}

// openAt is OpenRegular(name, O_RDONLY) in the open directory dir,
// without walking the directory's path again (see statAt).
func openAt(dir *os.File, name string) (*os.File, error) {
	path := filepath.Join(dir.Name(), name)
	for {
		fd, err := unix.Openat(int(dir.Fd()), name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		if err == unix.EINTR {
			continue
		}
		if err == unix.ELOOP || err == unix.ENXIO {
			return nil, &notRegularError{path: path, what: describeNonRegular(path)}
		}
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: path, Err: err}
		}
		f := os.NewFile(uintptr(fd), path)
		if _, err := keepRegular(f, path); err != nil {
			return nil, err
		}
		return f, nil
	}
}
