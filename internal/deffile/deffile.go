// Package deffile reads the definition files a user or a repository drops
// into a directory for clawdcode to pick up: custom commands
// (.clawdcode/commands/*.md, CONTRACT §9) now, subagent types
// (.clawdcode/agents/*.md, §12) when they come. Read is the one check they
// share, so that a definition file is read the same way everywhere.
//
// A definition file is sent to the model when it is used, so a cloned
// repository must not be able to make clawdcode read anything else of the
// user's: a symbolic link (`review.md -> ~/.aws/credentials`), a device, a
// FIFO or a directory is refused, and so is a name that is not directly
// inside the directory. The file is opened without following a link
// (O_NOFOLLOW) and checked on the open descriptor, so a link swapped in
// after the check is refused too. The directory itself is taken as given
// (a user's $CLAWDCODE_HOME/commands may well be a link to dotfiles).
//
// Read is safe for concurrent use.
package deffile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// ErrNotRegular is wrapped by Read's error for anything but a regular file
// directly inside the directory.
var ErrNotRegular = errors.New("not a regular file inside its directory")

// Read returns the content of the file name directly inside dir, at most
// limit bytes long. The error names what was refused (a symbolic link, a
// directory, a file too large) without the path, for the caller's warning
// to give.
func Read(dir, name string, limit int64) ([]byte, error) {
	if name == "" || name == "." || name == ".." || strings.ContainsRune(name, filepath.Separator) {
		return nil, fmt.Errorf("%w: the name %q", ErrNotRegular, name)
	}
	path := filepath.Join(dir, name)
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if err := regular(fi); err != nil {
		return nil, err
	}
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, unix.ELOOP) {
			return nil, fmt.Errorf("%w: a symbolic link", ErrNotRegular)
		}
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return nil, err
	}
	if err := regular(fi); err != nil {
		return nil, err
	}
	if fi.Size() > limit {
		return nil, fmt.Errorf("larger than %d KiB", limit>>10)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("larger than %d KiB", limit>>10)
	}
	return data, nil
}

// regular refuses anything but a regular file. A link's target is not
// named: it is the repository's text, and the warning goes to a terminal.
func regular(fi os.FileInfo) error {
	switch mode := fi.Mode(); {
	case mode.IsRegular():
		return nil
	case mode&os.ModeSymlink != 0:
		return fmt.Errorf("%w: a symbolic link", ErrNotRegular)
	case mode.IsDir():
		return fmt.Errorf("%w: a directory", ErrNotRegular)
	default:
		return fmt.Errorf("%w: %v", ErrNotRegular, mode.Type())
	}
}
