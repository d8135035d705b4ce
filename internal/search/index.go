package search

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/clawdcode/clawdcode/internal/storage"
)

const (
	dirName      = "search"
	manifestName = "manifest.json"
	lockName     = "lock"
	// manifestVersion is the index's format (segVersion the segments').
	// An index of an older one is rebuilt.
	manifestVersion = 2
	// flushBytes bounds a builder's postings in memory; past it the
	// worker writes a segment and starts another.
	flushBytes = 48 << 20
	// flushTerms bounds a builder's distinct terms (each costs about
	// 100 bytes of maps and slices, whatever its postings).
	flushTerms = 1 << 19
	// lockWait bounds how long a search waits for another process's.
	lockWait = 30 * time.Second
)

// manifest is the index's table of contents: which bytes of which
// session files the segments cover. Writing it (atomically) is what
// commits an update; segment files it does not name are leftovers of an
// update that did not finish, and are removed.
type manifest struct {
	Version  int         `json:"version"`
	Files    []fileEntry `json:"files"`
	Segments []segEntry  `json:"segments"`
}

// fileEntry is one session file. Its position in Files is the file
// number the segments' documents carry, so entries are never removed:
// a file deleted or replaced is marked Dead, its documents are skipped
// and dropped when their segment is merged, and a replacement gets a new
// entry.
type fileEntry struct {
	Path    string `json:"path"` // relative to CLAWDCODE_HOME
	Session string `json:"session"`
	Project string `json:"project"`
	Offset  int64  `json:"offset"` // bytes of whole lines indexed
	ID      uint64 `json:"id,omitempty"`
	Dead    bool   `json:"dead,omitempty"`
}

type segEntry struct {
	Name    string `json:"name"`
	Docs    int    `json:"docs"`
	TotalDL uint64 `json:"terms"`
	Size    int64  `json:"size"`
}

// Index is the search index of one store. Its methods take the index's
// lock (an flock under $CLAWDCODE_HOME/search) for their whole run, so
// processes that search at once take turns; writers of sessions never
// touch it.
type Index struct {
	store *storage.Store
	dir   string
	warn  func(string)
}

// New returns the index of store; warn (may be nil) hears about an index
// rebuilt because it was damaged.
func New(store *storage.Store, warn func(string)) *Index {
	if warn == nil {
		warn = func(string) {}
	}
	return &Index{store: store, dir: filepath.Join(store.Home(), dirName), warn: warn}
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

// work is the new bytes of one session file.
type work struct {
	file  int
	path  string
	start int64
	size  int64
	end   int64 // set by the worker: offset after the last whole line
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

// scan compares the session files with the manifest. It marks files that
// vanished or were replaced as dead (changed) and returns the files with
// new bytes.
func (ix *Index) scan(m *manifest) (jobs []*work, changed bool, err error) {
	projects, err := ix.store.Projects()
	if err != nil {
		return nil, false, err
	}
	live := make(map[string]int, len(m.Files))
	for i, f := range m.Files {
		if !f.Dead {
			live[f.Path] = i
		}
	}
	seen := make(map[int]bool, len(live))
	home := ix.store.Home()
	for _, p := range projects {
		files, err := p.SessionFiles()
		if err != nil {
			continue // a project directory unreadable or removed meanwhile
		}
		for _, sf := range files {
			abs, fi := sf.Path, sf.Info
			rel, err := filepath.Rel(home, abs)
			if err != nil {
				continue
			}
			id := fileID(fi)
			i, ok := live[rel]
			if ok && m.Files[i].ID == id && id != 0 && fi.Size() < m.Files[i].Offset {
				// Session files only grow past what was indexed (a torn
				// tail is never indexed): the manifest is wrong.
				return nil, false, fmt.Errorf("%s: offset %d past the end of %s: %w", manifestName, m.Files[i].Offset, rel, errDamaged)
			}
			if ok && (m.Files[i].ID != id || fi.Size() < m.Files[i].Offset) {
				m.Files[i].Dead = true // replaced: index it anew
				changed = true
				ok = false
			}
			if !ok {
				i = len(m.Files)
				m.Files = append(m.Files, fileEntry{Path: rel, Session: sf.ID, Project: p.Root, ID: id})
				changed = true
			}
			seen[i] = true
			if fi.Size() > m.Files[i].Offset {
				jobs = append(jobs, &work{file: i, path: abs, start: m.Files[i].Offset, size: fi.Size()})
			}
		}
	}
	for _, i := range live {
		if !seen[i] {
			m.Files[i].Dead = true
			changed = true
		}
	}
	return jobs, changed, nil
}

// index reads the jobs' new bytes with one worker per CPU, each writing
// its own segments.
func (ix *Index) index(ctx context.Context, jobs []*work) ([]segEntry, error) {
	sort.Slice(jobs, func(i, j int) bool { return jobs[i].size-jobs[i].start > jobs[j].size-jobs[j].start })
	workers := min(runtime.GOMAXPROCS(0), len(jobs))
	if workers > 1 && total(jobs) < 4<<20 {
		workers = 1 // not worth a second segment
	}
	var (
		mu    sync.Mutex
		next  int
		out   []segEntry
		first error
		wg    sync.WaitGroup
	)
	take := func() *work {
		mu.Lock()
		defer mu.Unlock()
		if next >= len(jobs) || first != nil {
			return nil
		}
		next++
		return jobs[next-1]
	}
	fail := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		if first == nil {
			first = err
		}
	}
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			hint := int(min(total(jobs)/int64(workers)/64, flushTerms))
			b := newBuilder(hint)
			r := newFileReader()
			flush := func() bool {
				if b.empty() {
					return true
				}
				name, err := b.write(ix.dir)
				if err != nil {
					fail(err)
					return false
				}
				mu.Lock()
				out = append(out, segEntry{Name: name, Docs: len(b.docs), TotalDL: b.totalDL})
				mu.Unlock()
				b = newBuilder(hint)
				return true
			}
			for j := take(); j != nil; j = take() {
				if err := ctx.Err(); err != nil {
					fail(err)
					return
				}
				if err := r.read(j, b); err != nil {
					fail(err)
					return
				}
				if (b.bytes > flushBytes || len(b.names) > flushTerms) && !flush() {
					return
				}
			}
			flush()
		}()
	}
	wg.Wait()
	if first != nil {
		return nil, first
	}
	for i := range out {
		out[i].Size = fileSize(filepath.Join(ix.dir, out[i].Name))
	}
	return out, nil
}

func total(jobs []*work) int64 {
	var n int64
	for _, j := range jobs {
		n += j.size - j.start
	}
	return n
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
	b, err := encodeManifest(m)
	if err != nil {
		return fmt.Errorf("write search index: %w", err)
	}
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
