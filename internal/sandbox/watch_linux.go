package sandbox

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"golang.org/x/sys/unix"
)

// watcher tells the sandbox at once when a protected path is renamed
// over, made or removed by any program: a rename over a path a host keeps
// read-only takes its mount off the old file, in the host too, and every
// command still running there could write the new one until the host
// ends. It watches the directories that hold the hosts' protected paths
// (inotify), and the sandbox ends such a host as soon as it hears of it,
// not when the next command starts. The window left is the moment
// between the rename and the host's end.
type watcher struct {
	f *os.File

	mu      sync.Mutex
	dirs    map[int]string  // watch descriptor → directory
	watched map[string]bool // the directories
	names   map[string]bool // the protected paths
}

// watchMask: what changes a directory entry (a rename over one, a new
// one, one removed).
const watchMask = unix.IN_MOVED_TO | unix.IN_MOVED_FROM | unix.IN_CREATE | unix.IN_DELETE | unix.IN_ONLYDIR

// newWatcher starts watching; changed is called (from the watcher's own
// goroutine) with each protected path whose entry changed.
func newWatcher(changed func(path string)) (*watcher, error) {
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return nil, fmt.Errorf("inotify: %w", err)
	}
	w := &watcher{f: os.NewFile(uintptr(fd), "inotify"), dirs: map[int]string{},
		watched: map[string]bool{}, names: map[string]bool{}}
	go w.read(changed)
	return w, nil
}

// add watches paths (a host's protected paths). A directory that cannot
// be watched is left to the check before each command.
func (w *watcher) add(paths []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, p := range paths {
		w.names[p] = true
		dir := filepath.Dir(p)
		if w.watched[dir] {
			continue
		}
		var wd int
		var err error
		if rc, cerr := w.f.SyscallConn(); cerr == nil {
			_ = rc.Control(func(fd uintptr) { wd, err = unix.InotifyAddWatch(int(fd), dir, watchMask) })
		}
		if err == nil && wd > 0 {
			w.dirs[wd], w.watched[dir] = dir, true
		}
	}
}

// read hands on each event that names a watched path until the watcher
// is closed.
func (w *watcher) read(changed func(path string)) {
	buf := make([]byte, 64*(unix.SizeofInotifyEvent+unix.NAME_MAX+1))
	for {
		n, err := w.f.Read(buf)
		if err != nil {
			return
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			wd := int(int32(binary.NativeEndian.Uint32(buf[off:])))
			size := int(binary.NativeEndian.Uint32(buf[off+12:]))
			name := buf[off+unix.SizeofInotifyEvent : min(n, off+unix.SizeofInotifyEvent+size)]
			off += unix.SizeofInotifyEvent + size
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			w.mu.Lock()
			dir, ok := w.dirs[wd]
			path := filepath.Join(dir, string(name))
			watched := ok && len(name) > 0 && w.names[path]
			w.mu.Unlock()
			if watched {
				changed(path)
			}
		}
	}
}

// close stops the watcher.
func (w *watcher) close() { _ = w.f.Close() }
