package search

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/clawdcode/clawdcode/internal/storage"
)

const (
	dirName      = "search"
	manifestName = "manifest"
	// oldManifestName is the JSON manifest of format 2 and before: an
	// index that has it is rebuilt.
	oldManifestName = "manifest.json"
	lockName        = "lock"
	// manifestVersion is the index's format (segVersion the segments').
	// An index of an older one is rebuilt.
	manifestVersion = 3
	// lockWait bounds how long a search waits for another process's.
	lockWait = 30 * time.Second
)

// Index is the search index of one store. Its methods take the index's
// lock (an flock under $CLAWDCODE_HOME/search) for their whole run, so
// processes that search at once take turns; writers of sessions never
// touch it.
type Index struct {
	store    *storage.Store
	dir      string
	warn     func(string)
	progress func(Progress)
	now      func() time.Time // the clock the change stamps are judged by
}

// New returns the index of store; warn (may be nil) hears about an index
// rebuilt because it was damaged.
func New(store *storage.Store, warn func(string)) *Index {
	if warn == nil {
		warn = func(string) {}
	}
	return &Index{store: store, dir: filepath.Join(store.Home(), dirName), warn: warn, now: time.Now}
}

// state is the index opened under the lock.
type state struct {
	m    *manifest
	segs []*segment
}

func (st *state) close() {
	for _, s := range st.segs {
		s.close()
	}
	st.segs = nil
}

// withLock runs fn holding the index's lock.
func (ix *Index) withLock(ctx context.Context, fn func() error) error {
	if err := os.MkdirAll(ix.dir, 0o700); err != nil {
		return fmt.Errorf("search index: %w", err)
	}
	// Never an index through a symbolic link: it would write elsewhere.
	if fi, err := os.Lstat(ix.dir); err != nil || !fi.IsDir() {
		return fmt.Errorf("search index: %s is not a directory", ix.dir)
	}
	l, err := storage.OpenRegular(filepath.Join(ix.dir, lockName), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("lock search index: %w", err)
	}
	defer l.Close() // releases the lock
	defer dropSpare()
	wctx, cancel := context.WithTimeout(ctx, lockWait)
	defer cancel()
	if err := storage.LockFile(wctx, l, 5*time.Millisecond); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("lock search index: %w (another clawdcode search holds it)", err)
	}
	return fn()
}

// Update brings the index up to date with the session files: it reads
// only the bytes appended since the last update. Search does it first.
func (ix *Index) Update(ctx context.Context) error {
	return ix.withLock(ctx, func() error {
		st, err := ix.open(ctx)
		if err != nil {
			return err
		}
		st.close()
		return nil
	})
}

// open loads the manifest and segments and catches up with the session
// files. An index that is damaged (it fails a checksum or a bounds check)
// is reported through warn, once, and rebuilt from the files; one of an
// older format is rebuilt without a word.
func (ix *Index) open(ctx context.Context) (*state, error) {
	st, err := ix.load()
	if err == nil {
		err = ix.catchUp(ctx, st)
		if err != nil {
			st.close()
		}
	}
	switch {
	case errors.Is(err, errOldFormat):
		return ix.rebuild(ctx, nil)
	case errors.Is(err, errDamaged):
		return ix.rebuild(ctx, err)
	case err != nil:
		return nil, err
	}
	return st, nil
}

// rebuild indexes every session file anew; damaged, when not nil, is
// why, and is reported.
func (ix *Index) rebuild(ctx context.Context, damaged error) (*state, error) {
	if damaged != nil {
		ix.warn(fmt.Sprintf("search index under %s is damaged (%v); rebuilding it from the session files", ix.dir, damaged))
	}
	// Whatever the old manifest named goes; the new one names only what
	// this rebuild writes.
	os.Remove(filepath.Join(ix.dir, manifestName))
	os.Remove(filepath.Join(ix.dir, oldManifestName))
	ix.removeLeftovers(&manifest{})
	st := &state{m: &manifest{Version: manifestVersion}}
	if err := ix.catchUp(ctx, st); err != nil {
		st.close()
		return nil, err
	}
	return st, nil
}

// load opens the manifest and its segments. A missing manifest is an
// empty index; one that fails its checksum or does not hold together, or
// a segment that does not match it, is errDamaged.
func (ix *Index) load() (*state, error) {
	st := &state{m: &manifest{Version: manifestVersion}}
	b, err := storage.ReadRegular(filepath.Join(ix.dir, manifestName))
	if errors.Is(err, fs.ErrNotExist) {
		if _, err := os.Lstat(filepath.Join(ix.dir, oldManifestName)); err == nil {
			return nil, errOldFormat
		}
		return st, nil
	}
	if err != nil {
		return nil, err
	}
	m, err := decodeManifest(b)
	if err != nil {
		return nil, err
	}
	st.m = m
	for _, e := range m.Segments {
		s, err := openSegment(filepath.Join(ix.dir, e.Name))
		if errors.Is(err, fs.ErrNotExist) {
			err = fmt.Errorf("%s: missing: %w", e.Name, errDamaged)
		}
		if err == nil && (s.nDocs != e.Docs || int64(len(s.data)) != e.Size) {
			s.close()
			err = fmt.Errorf("%s: %w", e.Name, errDamaged)
		}
		if err != nil {
			st.close()
			return nil, err
		}
		st.segs = append(st.segs, s)
	}
	return st, nil
}

// catchUp indexes what was appended to the session files since the
// manifest was written, merges segments and commits a new manifest.
func (ix *Index) catchUp(ctx context.Context, st *state) error {
	jobs, changed, err := ix.scan(st.m)
	if err != nil {
		return err
	}
	if len(jobs) == 0 && !changed && ix.tidy() {
		return nil
	}
	var added []segEntry
	if len(jobs) > 0 {
		if added, err = ix.index(ctx, jobs); err != nil {
			return err
		}
		for _, j := range jobs {
			st.m.Files[j.file].Offset = j.end
		}
	}
	for _, e := range added {
		s, err := openSegment(filepath.Join(ix.dir, e.Name))
		if err != nil {
			return fmt.Errorf("search index: %w", err)
		}
		st.m.Segments = append(st.m.Segments, e)
		st.segs = append(st.segs, s)
	}
	if err := ix.mergeTail(ctx, st); err != nil {
		return err
	}
	if err := ix.commit(st.m); err != nil {
		return err
	}
	ix.removeLeftovers(st.m)
	return nil
}

// tidy reports whether the directory holds nothing the manifest does not
// name (the common case, checked cheaply by counting).
func (ix *Index) tidy() bool {
	ents, err := os.ReadDir(ix.dir)
	if err != nil {
		return false
	}
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".tmp") {
			return false
		}
	}
	return true
}

func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// commit writes the manifest atomically: a temporary file renamed over
// the old one. It is not fsynced: the index is derived, and a manifest
// lost or torn by a power cut is rebuilt from the session files.
func (ix *Index) commit(m *manifest) error {
	b := encodeManifest(m)
	f, err := os.CreateTemp(ix.dir, "manifest-*.tmp")
	if err != nil {
		return fmt.Errorf("write search index: %w", err)
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), filepath.Join(ix.dir, manifestName))
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("write search index: %w", err)
	}
	return nil
}

// removeLeftovers deletes segment and temporary files the manifest does
// not name: merged-away segments, and what an interrupted update left.
func (ix *Index) removeLeftovers(m *manifest) {
	keep := make(map[string]bool, len(m.Segments))
	for _, s := range m.Segments {
		keep[s.Name] = true
	}
	ents, err := os.ReadDir(ix.dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		n := e.Name()
		if (strings.HasSuffix(n, ".seg") && !keep[n]) || strings.HasSuffix(n, ".tmp") {
			os.Remove(filepath.Join(ix.dir, n))
		}
	}
}
