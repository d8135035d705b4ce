package storage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	jsonv1 "github.com/go-json-experiment/json/v1"
)

const (
	indexName = "index.json"
	indexLock = "index.lock"
	// indexVersion 2: entries of version 1 may have counted a file in
	// another program's JSON spelling as empty (its lines were judged by
	// byte patterns alone), so they are rebuilt from the files.
	indexVersion = 2
	// indexLockWait bounds how long a writer waits for another process's
	// index update; past it the index is written anyway (it is a cache the
	// files can always rebuild).
	indexLockWait = 2 * time.Second
)

// SessionInfo is one row of the per-project index.
type SessionInfo struct {
	ID       string    `json:"id"`
	Title    string    `json:"title"`
	Created  time.Time `json:"created"`
	Updated  time.Time `json:"updated"`
	Messages int       `json:"messages"` // user + assistant records (summaries not counted)
	Tokens   int       `json:"tokens"`   // last known context tokens
	Size     int64     `json:"size"`
	Project  string    `json:"project"`
	// Parent is the session a subagent session runs for ("" = none): it
	// is listed under it, not on its own.
	Parent string `json:"parent,omitempty"`
}

// indexEntry is a SessionInfo plus what tells whether it still describes
// its file, and how far into the file it has counted.
type indexEntry struct {
	SessionInfo
	ModTime  int64 `json:"mtime"`   // file mtime (unix ns) when indexed
	Scanned  int64 `json:"scanned"` // bytes of whole lines counted
	TitleSet bool  `json:"titleSet,omitempty"`
	// FileTitle is the title of the last title record in the file, which
	// Append carries in every later record's Listing.
	FileTitle string `json:"fileTitle,omitempty"`
	// Usage is the session's usage summary (usage.go), nil when none was
	// ever made; it may be behind the file, never ahead of it.
	Usage *UsageSummary `json:"usage,omitempty"`
}

// listing is what Append writes into a record's Listing.
func (e *indexEntry) listing() *Listing {
	return &Listing{Messages: e.Messages, Tokens: e.Tokens, Title: e.FileTitle, Parent: e.Parent}
}

type indexFile struct {
	Version  int           `json:"version"`
	Sessions []*indexEntry `json:"sessions"`
}

func (e *indexEntry) fresh(fi fs.FileInfo) bool {
	return e.Size == fi.Size() && e.ModTime == fi.ModTime().UnixNano()
}

// observe folds one record into the entry: the same rules whether the
// record comes from Append or from a scan of the file. content is the
// message's text, or the title of a TypeTitle record.
func (e *indexEntry) observe(typ string, ts time.Time, summary bool, content string, usage *Usage, postTokens int) {
	if !ts.IsZero() {
		if e.Created.IsZero() {
			e.Created = ts
		}
		if ts.After(e.Updated) {
			e.Updated = ts
		}
	}
	switch typ {
	case TypeUser:
		if summary {
			if postTokens > 0 {
				e.Tokens = postTokens
			}
			return
		}
		e.Messages++
		if e.Title == "" && !e.TitleSet {
			e.Title = Title(content)
		}
	case TypeAssistant:
		e.Messages++
		if usage != nil && usage.InputTokens+usage.OutputTokens > 0 {
			e.Tokens = usage.InputTokens + usage.OutputTokens
		}
	case TypeTitle:
		if t := Title(content); t != "" {
			e.Title, e.TitleSet, e.FileTitle = t, true, t
		}
	}
}

func (e *indexEntry) observeRecord(r *Record) {
	var content string
	var usage *Usage
	if r.Message != nil {
		content, usage = r.Message.Content, r.Message.Usage
	}
	if r.Type == TypeTitle {
		content = r.Title
	}
	if r.Subtype == SubtypeSubagentStart && r.Subagent != nil {
		e.Parent = r.Subagent.SessionID
	}
	post := 0
	if r.CompactMetadata != nil {
		post = r.CompactMetadata.PostTokens
	}
	e.observe(r.Type, r.Timestamp, r.IsCompactSummary, content, usage, post)
}

// List returns the project's sessions newest-updated first, from the index
// (refreshed from the files when missing, stale or corrupt: incrementally
// when a file only grew). It never parses a file the index describes.
//
// A session without a single user or assistant message is left out (and so
// is never what Latest, and thus -c, picks): its file was created but
// nothing readable was appended — a crash right after Create, or another
// process about to write its first message. There is nothing in it to
// resume; its full id still opens it.
func (p *Project) List() ([]SessionInfo, error) {
	dir := p.dir()
	entries, ok, err := p.scanIndex(p.readIndex(dir), false)
	if err != nil {
		return nil, err
	}
	if !ok {
		// Refresh under the index lock, from a fresh read, so that two
		// processes do not both rescan and overwrite each other.
		unlock := lockIndex(dir)
		defer unlock()
		entries, ok, err = p.scanIndex(p.readIndex(dir), true)
		if err != nil {
			return nil, err
		}
		if !ok { // else another process refreshed it while we waited
			m := make(map[string]*indexEntry, len(entries))
			for _, e := range entries {
				m[e.ID] = e
			}
			if err := p.writeIndex(dir, m); err != nil {
				// The entries came from the files; only the cache of
				// them is lost, and the next List scans again.
				p.store.indexUnwritable(err)
			}
		}
	}
	out := make([]SessionInfo, 0, len(entries))
	for _, e := range entries {
		// A session with a message, or one that opens with a summary (a
		// handoff's), is listed; one a crash left empty is not.
		if e.Messages > 0 || e.Tokens > 0 {
			out = append(out, e.SessionInfo)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Updated.Equal(out[j].Updated) {
			return out[i].Updated.After(out[j].Updated)
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

// scanIndex matches the index against the project's session files. ok is
// false when an entry is missing, stale or without a file; with refresh the
// stale entries are rebuilt from their files, else scanning stops there.
func (p *Project) scanIndex(idx map[string]*indexEntry, refresh bool) (entries []*indexEntry, ok bool, err error) {
	d, files, err := p.openSessionDir()
	if err != nil {
		return nil, false, err
	}
	if d != nil {
		defer d.Close()
	}
	ok = true
	seen := 0
	for _, sf := range files {
		id, fi := sf.ID, sf.Info
		old := idx[id]
		if old != nil {
			seen++
			if old.fresh(fi) {
				old.Project = p.Root
				entries = append(entries, old)
				continue
			}
		}
		ok = false
		if !refresh {
			return nil, false, nil
		}
		e, err := p.refreshEntryIn(d, sf.Path, id, old, fi)
		if err != nil {
			return nil, false, err
		}
		entries = append(entries, e)
	}
	if seen != len(idx) {
		ok = false // entries whose files are gone
	}
	return entries, ok, nil
}

// currentEntry returns the index entry of one session, refreshed from its
// file if stale, without writing the index.
func (p *Project) currentEntry(dir, id string, fi fs.FileInfo) (*indexEntry, error) {
	old := p.readIndex(dir)[id]
	if old != nil && old.fresh(fi) {
		return old, nil
	}
	return p.refreshEntry(filepath.Join(dir, id+".jsonl"), id, old, fi)
}

// refreshEntry brings old (nil if none) up to date with the file described
// by fi: from the file's head and last line when its records carry their
// Listing (see quickEntry), else by counting only the new bytes when the
// file just grew, else recounting from the start. A title set by SetTitle survives both; one
// saved with SaveTitle is also read back from its record, so it survives
// the loss of the index too.
func (p *Project) refreshEntry(path, id string, old *indexEntry, fi fs.FileInfo) (*indexEntry, error) {
	return p.refreshEntryIn(nil, path, id, old, fi)
}

// refreshEntryIn is refreshEntry with the project directory open (dir,
// nil if not): the file is opened in it (openAt), without walking its
// path again.
func (p *Project) refreshEntryIn(dir *os.File, path, id string, old *indexEntry, fi fs.FileInfo) (*indexEntry, error) {
	e := &indexEntry{SessionInfo: SessionInfo{ID: id}}
	from := int64(0)
	switch {
	case old != nil && fi.Size() > old.Size && old.Scanned <= fi.Size():
		*e = *old
		from = old.Scanned
	case old != nil && old.TitleSet:
		e.Title, e.TitleSet = old.Title, true
	}
	e.Project = p.Root
	var f *os.File
	var err error
	if dir != nil {
		f, err = openAt(dir, filepath.Base(path))
	} else {
		f, err = OpenRegular(path, os.O_RDONLY, 0)
	}
	if err != nil {
		return nil, fmt.Errorf("index session %s: %w", id, err)
	}
	defer f.Close()
	// The head and the last line are enough for a file whose records
	// carry their Listing; only other files are read whole.
	if q, ok, err := quickEntry(f, fi, id, p.Root, old); err != nil {
		return nil, fmt.Errorf("index session %s: %w", id, err)
	} else if ok {
		return q, nil
	}
	if _, err := f.Seek(from, io.SeekStart); err != nil {
		return nil, fmt.Errorf("index session %s: %w", id, err)
	}
	e.Scanned = from
	lr := newLineReader(f, from, from == 0, indexBuffer)
	for {
		line, off, complete, err := lr.next()
		if errors.Is(err, io.EOF) || (err == nil && !complete) {
			break // an incomplete last line is counted once it is whole
		}
		if err != nil {
			return nil, fmt.Errorf("index session %s: %w", id, err)
		}
		e.Scanned = off + int64(len(line)) + 1
		if h, ok := ParseHead(line); ok && !countsInListing(h.Type) {
			// Tool calls, results and system records are most of the
			// bytes and add nothing to the entry but their time: a line
			// in clawdcode's own encoding gives it without decoding.
			e.observe("", h.Timestamp, false, "", nil, 0)
			continue
		}
		e.observeLine(line)
	}
	mt := fi.ModTime()
	e.Size, e.ModTime = fi.Size(), mt.UnixNano()
	if e.Created.IsZero() {
		e.Created = mt.UTC()
	}
	if e.Updated.IsZero() {
		e.Updated = mt.UTC()
	}
	return e, nil
}

// observeLine folds one line that may change the listing (a user or
// assistant message, a title, or one in another program's spelling) into
// the entry; a line that does not decode is passed over.
func (e *indexEntry) observeLine(line []byte) {
	var pr probe
	if DecodeLine(line, &pr) != nil {
		return
	}
	var content string
	var usage *Usage
	if pr.Message != nil {
		usage = pr.Message.Usage
	}
	switch {
	case pr.Type == TypeTitle:
		content = pr.Title
	case pr.Type == TypeUser && !pr.IsCompactSummary && e.Title == "" && !e.TitleSet:
		// Only the first user message's text is ever read (the title):
		// the others are skipped without a copy.
		var m headProbe
		if DecodeLine(line, &m) == nil && m.Message != nil {
			content = m.Message.Content
		}
	}
	post := 0
	if pr.CompactMetadata != nil {
		post = pr.CompactMetadata.PostTokens
	}
	e.observe(pr.Type, pr.Timestamp, pr.IsCompactSummary, content, usage, post)
}

// countsInListing reports whether records of a type change a listing
// beyond its time.
func countsInListing(typ string) bool {
	return typ == TypeUser || typ == TypeAssistant || typ == TypeTitle
}

// lineTimestamp is a record's timestamp from the head of its line when it
// is in clawdcode's encoding, else from decoding the line (which must then
// be whole).
func lineTimestamp(line []byte, whole bool) (time.Time, bool) {
	if h, ok := ParseHead(line); ok {
		return h.Timestamp, true
	}
	var r struct {
		Timestamp time.Time `json:"timestamp"`
	}
	if !whole || DecodeLine(line, &r) != nil {
		return time.Time{}, false
	}
	return r.Timestamp, true
}

// probe is the part of a record the index needs; decoding into it skips
// the rest (tool inputs and results) without building it.
type probe struct {
	Type             string    `json:"type"`
	Timestamp        time.Time `json:"timestamp"`
	IsCompactSummary bool      `json:"isCompactSummary"`
	Title            string    `json:"title"`
	Message          *struct {
		Usage *Usage `json:"usage"`
	} `json:"message"`
	CompactMetadata *struct {
		PostTokens int `json:"postTokens"`
	} `json:"compactMetadata"`
}

// readIndex returns the index of dir; a missing or corrupt index is empty
// (and will be rebuilt from the files). It reads through the store's
// redactor: an index written before a secret was redacted from titles
// shows it redacted all the same.
func (p *Project) readIndex(dir string) map[string]*indexEntry {
	return readIndexRedacted(dir, p.store.currentRedactor())
}

// writeIndex replaces the index atomically: a reader sees the old or the
// new index, never a mix, even after a crash. It writes through the store's
// redactor (the titles of entries are derived from what the user typed).
func (p *Project) writeIndex(dir string, m map[string]*indexEntry) error {
	return writeIndexRedacted(dir, m, p.store.currentRedactor())
}

// indexOptions read and write index.json as encoding/json does, with the
// JSON v2 implementation: a warm listing of 10,000 sessions spent a third
// of its time in encoding/json's decoding of the index, which v2 does in
// about a third of the time.
var indexOptions = jsonv1.DefaultOptionsV1()

func readIndexRedacted(dir string, red Redactor) map[string]*indexEntry {
	b, err := ReadRegular(filepath.Join(dir, indexName))
	if err != nil {
		return nil
	}
	if red != nil {
		b = red.Redact(b)
	}
	var f indexFile
	if jsonv2.Unmarshal(b, &f, indexOptions) != nil || f.Version != indexVersion {
		return nil
	}
	m := make(map[string]*indexEntry, len(f.Sessions))
	for _, e := range f.Sessions {
		if e != nil && checkID(e.ID) == nil {
			m[e.ID] = e
		}
	}
	return m
}

func writeIndexRedacted(dir string, m map[string]*indexEntry, red Redactor) error {
	f := indexFile{Version: indexVersion, Sessions: make([]*indexEntry, 0, len(m))}
	for _, e := range m {
		f.Sessions = append(f.Sessions, e)
	}
	sort.Slice(f.Sessions, func(i, j int) bool { return f.Sessions[i].ID < f.Sessions[j].ID })
	b, err := jsonv2.Marshal(&f, indexOptions)
	if err != nil {
		return fmt.Errorf("encode index: %w", err)
	}
	if red != nil {
		b = red.Redact(b)
	}
	if err := writeFileAtomic(dir, indexName, b); err != nil {
		return err
	}
	removeStaleTemps(dir, indexName, time.Now())
	return nil
}

// staleTempAge is the age past which a temporary file of an atomic write
// belongs to no writer still at work: a write takes milliseconds, so such a
// file was left by a process that died between creating and renaming it.
const staleTempAge = time.Minute

// removeStaleTemps deletes the temporary files of name that crashed writes
// left in dir. It is best effort: a file it cannot remove now is tried
// again at the next write, and the index never depends on it.
func removeStaleTemps(dir, name string, now time.Time) {
	des, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	prefix := name + ".tmp-"
	for _, de := range des {
		if !strings.HasPrefix(de.Name(), prefix) || !de.Type().IsRegular() {
			continue
		}
		fi, err := de.Info()
		if err != nil || now.Sub(fi.ModTime()) < staleTempAge {
			continue
		}
		_ = os.Remove(filepath.Join(dir, de.Name()))
	}
}

// WriteFileAtomic replaces path by data (mode 0600) through a temporary
// file in its directory, synced and renamed: a reader sees the old content
// or the new, never a part. For small files clawdcode owns under
// CLAWDCODE_HOME.
func WriteFileAtomic(path string, data []byte) error {
	return writeFileAtomic(filepath.Dir(path), filepath.Base(path), data)
}

// writeFileAtomic replaces dir/name by data through a temporary file. Its
// errors are the OS's own, which name the file (temporary or final) that
// failed.
func writeFileAtomic(dir, name string, data []byte) (err error) {
	tmp, err := os.CreateTemp(dir, name+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err = tmp.Chmod(filePerm); err != nil {
		return err
	}
	if _, err = tmp.Write(data); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp.Name(), filepath.Join(dir, name)); err != nil {
		return err
	}
	return syncDir(dir)
}

// lockIndex serialises index updates between processes. If the lock cannot
// be had in indexLockWait the caller goes on without it.
func lockIndex(dir string) (unlock func()) {
	f, err := OpenRegular(filepath.Join(dir, indexLock), os.O_RDONLY|os.O_CREATE, filePerm)
	if err != nil {
		return func() {}
	}
	ctx, cancel := context.WithTimeout(context.Background(), indexLockWait)
	defer cancel()
	if err := LockFile(ctx, f, 10*time.Millisecond); err != nil {
		f.Close()
		return func() {}
	}
	return func() { f.Close() } // closing releases the lock
}

// storeEntry writes one session's entry into the index.
func (p *Project) storeEntry(dir string, e *indexEntry) {
	p.updateIndex(dir, func(m map[string]*indexEntry) { m[e.ID] = e })
}

// updateIndex applies fn to the index and writes it back. A write that
// fails is reported through the store's warning hook, never returned: the
// index is a cache of the session files, which List reads when an entry is
// missing or stale, so no operation may fail for its sake.
func (p *Project) updateIndex(dir string, fn func(map[string]*indexEntry)) {
	unlock := lockIndex(dir)
	defer unlock()
	m := p.readIndex(dir)
	if m == nil {
		m = map[string]*indexEntry{}
	}
	fn(m)
	if err := p.writeIndex(dir, m); err != nil {
		p.store.indexUnwritable(err)
	}
}
