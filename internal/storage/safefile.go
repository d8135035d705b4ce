package storage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
	"time"
)

// The files this package keeps under CLAWDCODE_HOME (session files,
// index.json, index.lock, the .project marker) are opened through
// OpenRegular: never through a symbolic link in the last element of the
// path, and only when what is there is a regular file. A symlinked
// <id>.jsonl would otherwise let a resume append records to whatever file
// the link names, outside CLAWDCODE_HOME; a FIFO would block the open
// forever. Other packages that keep files under CLAWDCODE_HOME (a search
// index, say) should open them the same way.

// ErrNotRegular is returned by OpenRegular (and so by every open of a
// session file, index or lock) for a path that is a symbolic link, a
// directory, a FIFO, a device or a socket.
var ErrNotRegular = errors.New("not a regular file")

// notRegularError names the path and what is there instead; it matches
// ErrNotRegular with errors.Is.
type notRegularError struct {
	path string
	what string
}

func (e *notRegularError) Error() string {
	return e.path + ": " + e.what + ", not a regular file"
}

func (e *notRegularError) Is(target error) bool { return target == ErrNotRegular }

// OpenRegular is os.OpenFile for files clawdcode owns: it does not follow a
// symbolic link in the last element of path (O_NOFOLLOW), does not block on
// a FIFO (O_NONBLOCK, which has no effect on a regular file), and fails with
// an error matching ErrNotRegular unless the file opened is a regular file.
// With O_CREATE the file is created with perm exactly (fchmod after the
// umask).
func OpenRegular(path string, flag int, perm os.FileMode) (*os.File, error) {
	f, err := os.OpenFile(path, flag|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, perm)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.ENXIO) {
			// ELOOP: the last element is a symlink; ENXIO: a FIFO
			// opened for writing with no reader, or a socket.
			return nil, &notRegularError{path: path, what: describeNonRegular(path)}
		}
		return nil, err
	}
	fi, err := keepRegular(f, path)
	if err != nil {
		return nil, err
	}
	if flag&os.O_CREATE != 0 && fi.Mode().Perm() != perm {
		if err := f.Chmod(perm); err != nil {
			f.Close()
			return nil, err
		}
	}
	return f, nil
}

// ReadRegular is os.ReadFile through OpenRegular.
func ReadRegular(path string) ([]byte, error) {
	f, err := OpenRegular(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// describeNonRegular says what stands at path, for an open that refused it.
func describeNonRegular(path string) string {
	fi, err := os.Lstat(path)
	if err != nil {
		return "not openable"
	}
	return describeMode(fi.Mode())
}

func describeMode(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}

// TryLockFile takes an exclusive flock on f without waiting; ok is false
// when another open file description holds it. The lock goes with f's open
// file description: closing f releases it, and so does the death of the
// process, so a crash never leaves a file locked.
func TryLockFile(f *os.File) (ok bool, err error) {
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, syscall.EWOULDBLOCK):
			return false, nil
		case errors.Is(err, syscall.EINTR):
			continue
		}
		return false, fmt.Errorf("lock %s: %w", f.Name(), err)
	}
}

// busyGrace is how long a lock held elsewhere is waited for before the
// session counts as busy. A session closed a moment ago in this process
// can stay locked for that long: a child being started just then (a tool's
// command) holds a copy of the descriptor between fork and exec, and a
// flock lasts until every copy is closed.
const busyGrace = 250 * time.Millisecond

// tryLockSoon is TryLockFile that waits out busyGrace before it answers
// that the lock is held elsewhere.
func tryLockSoon(f *os.File) (ok bool, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), busyGrace)
	defer cancel()
	switch err := LockFile(ctx, f, 10*time.Millisecond); {
	case err == nil:
		return true, nil
	case errors.Is(err, context.DeadlineExceeded):
		return false, nil
	default:
		return false, err
	}
}

// LockFile takes an exclusive flock on f, retrying every poll until ctx
// ends (then it returns ctx's error).
func LockFile(ctx context.Context, f *os.File, poll time.Duration) error {
	for {
		ok, err := TryLockFile(f)
		if err != nil || ok {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(poll):
		}
	}
}

// keepRegular stats f, just opened at path, and closes it unless it is a
// regular file.
func keepRegular(f *os.File, path string) (os.FileInfo, error) {
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, &notRegularError{path: path, what: describeMode(fi.Mode())}
	}
	return fi, nil
}
