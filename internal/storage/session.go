package storage

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/clawdcode/clawdcode/internal/buildinfo"
)

// Session is one session file opened for appending by this process. It
// holds the session's write lock until Close. Its methods are safe for
// concurrent use (they serialise on a mutex).
type Session struct {
	id      string
	path    string
	dir     string
	root    string
	project *Project

	mu        sync.Mutex
	f         *os.File // O_RDWR|O_APPEND, holding the session's flock
	size      int64    // bytes in the file: the offset of the next line
	created   bool     // this process created the file (see Close)
	needNL    bool     // the file ends inside a line (torn write)
	last      string
	buf       bytes.Buffer
	enc       *json.Encoder
	git       *gitHead
	entry     indexEntry
	dirSynced bool
	closed    bool
}

// Create starts a new session (id = random UUID v4) and holds its write
// lock. The first Create of a project creates its directory.
func (p *Project) Create(ctx context.Context) (*Session, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	u, err := uuid.NewRandom()
	if err != nil {
		return nil, fmt.Errorf("create session: %w", err)
	}
	return p.createSession(u.String())
}

// CreateID is Create with a given id: an imported session keeps its
// source's id. A session of that id in this project is ErrSessionExists.
func (p *Project) CreateID(ctx context.Context, id string) (*Session, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := checkID(id); err != nil {
		return nil, err
	}
	s, err := p.createSession(id)
	if errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("create session %s: %w", id, ErrSessionExists)
	}
	return s, err
}

// createSession creates the session file id in the project's directory,
// claiming the directory first unless this Project did already; when the
// directory has gone since, it is claimed again.
func (p *Project) createSession(id string) (*Session, error) {
	for retry := false; ; retry = true {
		dir, err := p.claimedDir()
		if err != nil {
			return nil, fmt.Errorf("create session: %w", err)
		}
		s, err := p.create(dir, id)
		if retry || !errors.Is(err, fs.ErrNotExist) {
			return s, err
		}
		p.forgetClaim()
	}
}

func (p *Project) create(dir, id string) (*Session, error) {
	path := filepath.Join(dir, id+".jsonl")
	// The OS errors name the file, whose name is the session id.
	f, err := OpenRegular(path, os.O_RDWR|os.O_CREATE|os.O_EXCL|os.O_APPEND, filePerm)
	if err != nil {
		return nil, fmt.Errorf("create session: %w", err)
	}
	s := p.newSession(id, path, dir, f)
	s.created = true
	if err := s.takeLock(); err != nil {
		s.removeEmpty()
		f.Close()
		return nil, err
	}
	s.entry = indexEntry{SessionInfo: SessionInfo{ID: id, Project: p.Root}, Usage: &UsageSummary{}}
	return s, nil
}

// Open opens an existing session for appending, taking its write lock:
// ErrSessionBusy (naming the session) if another process — or another
// Session in this one — holds it, ErrNotFound if there is no such session
// (or it was removed since it was listed), ErrNotRegular if the session's
// name is a symbolic link or anything else but a regular file.
func (p *Project) Open(ctx context.Context, id string) (*Session, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := checkID(id); err != nil {
		return nil, err
	}
	dir := p.dir()
	path := filepath.Join(dir, id+".jsonl")
	f, err := OpenRegular(path, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			// The path would only repeat the id; say what happened.
			return nil, &notFoundError{id: id}
		}
		return nil, fmt.Errorf("open session %s: %w", id, err)
	}
	s := p.newSession(id, path, dir, f)
	if err := s.takeLock(); err != nil {
		f.Close()
		return nil, err
	}
	if err := s.attach(); err != nil {
		s.release()
		if errors.Is(err, ErrNotFound) {
			return nil, &notFoundError{id: id}
		}
		return nil, fmt.Errorf("open session %s: %w", id, err)
	}
	return s, nil
}

func (p *Project) newSession(id, path, dir string, f *os.File) *Session {
	s := &Session{id: id, path: path, dir: dir, root: p.Root, project: p, f: f, git: newGitHead(p.Root)}
	if b, ok := encodeBuffers.Get().(*[]byte); ok {
		s.buf = *bytes.NewBuffer((*b)[:0])
	}
	s.enc = json.NewEncoder(&s.buf)
	s.enc.SetEscapeHTML(false)
	return s
}

// takeLock takes the session's flock, waiting at most busyGrace. The lock is on the
// session file itself, through the descriptor Append writes with (so it is
// the very file opened without following a symlink); the kernel drops it
// when the process dies, so a crash never leaves a session locked.
func (s *Session) takeLock() error {
	ok, err := tryLockSoon(s.f)
	if err != nil {
		return fmt.Errorf("lock session %s: %w", s.id, err)
	}
	if !ok {
		return &busyError{id: s.id}
	}
	return nil
}

// attach reads what Append needs from an existing file: its size, whether
// it ends inside a torn line, the last good record's uuid (searched
// backwards from the end) and the session's index entry.
func (s *Session) attach() error {
	fi, err := s.f.Stat()
	if err != nil {
		return err
	}
	// A session removed between our open and our lock must not be
	// written: the lock would be on an unlinked file.
	cur, err := os.Lstat(s.path)
	if err != nil || !os.SameFile(fi, cur) {
		return ErrNotFound
	}
	s.size = fi.Size()
	if s.size > 0 {
		var b [1]byte
		if _, err := s.f.ReadAt(b[:], s.size-1); err != nil {
			return err
		}
		s.needNL = b[0] != '\n'
	}
	if s.last, err = lastRecordUUID(s.f, s.size); err != nil {
		return err
	}
	e, err := s.project.currentEntry(s.dir, s.id, fi)
	if err != nil {
		return err
	}
	s.entry = *e
	return nil
}

// lastRecordUUID walks the lines of f backwards from size and returns the
// uuid of the last one that parses, "" if none does.
func lastRecordUUID(f *os.File, size int64) (string, error) {
	end := size
	for end > 0 {
		lineEnd := end
		var b [1]byte
		if _, err := f.ReadAt(b[:], end-1); err != nil {
			return "", err
		}
		if b[0] == '\n' {
			lineEnd--
		}
		start, err := lineStartBefore(f, lineEnd, nil)
		if err != nil {
			return "", err
		}
		// Only the line's first bytes: the uuid is among the common
		// fields, and the line may be a 200 MB tool result.
		line, whole, err := linePrefix(f, start, lineEnd)
		if err != nil {
			return "", err
		}
		if whole {
			var r struct {
				UUID string `json:"uuid"`
			}
			if json.Unmarshal(line, &r) == nil && r.UUID != "" {
				return r.UUID, nil
			}
		} else if id, err := longLineUUID(f, b[0], start, lineEnd, line); err != nil || id != "" {
			return id, err
		}
		end = start
	}
	return "", nil
}

// longLineUUID is the uuid of the line [start, end) of f past its prefix
// ("" when it is no record): last is the byte after it.
func longLineUUID(f *os.File, last byte, start, end int64, prefix []byte) (string, error) {
	if ok, err := lastLineIsRecord(f, last, start, end); err != nil || !ok {
		return "", err
	}
	if h, ok := ParseHead(prefix); ok {
		return h.UUID, nil
	}
	// Another program's encoding: only the whole line tells.
	return decodedUUID(f, start)
}

// decodedUUID decodes the line at off for its uuid ("" when it is none).
func decodedUUID(f *os.File, off int64) (string, error) {
	line, _, err := readLineAt(f, off)
	if err != nil {
		return "", err
	}
	var r struct {
		UUID string `json:"uuid"`
	}
	if json.Unmarshal(line, &r) != nil {
		return "", nil
	}
	return r.UUID, nil
}

func (s *Session) ID() string { return s.id }

// Path is the session file.
func (s *Session) Path() string { return s.path }

// Append fills the common fields left empty (uuid, parentUuid, sessionId,
// timestamp, cwd, gitBranch, version) in r itself, writes the record as
// one line with a single write(2) on an O_APPEND descriptor, and returns
// the byte offset at which the line starts. The record is in the OS page
// cache when Append returns (it survives a crash of the process, not of
// the machine; see Sync).
func (s *Session) Append(r *Record) (offset int64, err error) {
	offs, err := s.AppendBatch(r)
	if err != nil {
		return 0, err
	}
	return offs[0], nil
}

// AppendBatch is Append for several records that belong together (a
// compaction's boundary and its summary): it fills each one's common fields
// as Append does, each record's parent being the one before it, and writes
// all the lines with ONE write(2) on the O_APPEND descriptor. It returns the
// byte offset of each line. No other append, of this process or another
// (which cannot hold the lock), lands between them. One write is not a
// transaction: a crash of the machine, or a short write on a full disk, can
// still keep only a prefix of it — but then the lines lost or torn are the
// last ones, so a reader sees the first records without the later ones
// (LoadLive ignores a boundary whose summary did not make it). On error
// nothing is returned, and the session's parent chain does not advance.
func (s *Session) AppendBatch(recs ...*Record) ([]int64, error) {
	return s.appendBatch(recs, nil)
}

// appendBatch is AppendBatch; before, when set, is called before each
// record is filled and encoded, with the offsets of the records before it
// (a batch whose records refer to large texts gives it offsets that do not
// count a change the Redactor makes in a text).
func (s *Session) appendBatch(recs []*Record, before func(i int, r *Record, offs []int64)) ([]int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, fmt.Errorf("append to session %s: %w", s.id, ErrClosed)
	}
	if len(recs) == 0 {
		return nil, nil
	}
	b, err := s.encodeBatch(recs, before)
	if err != nil {
		return nil, fmt.Errorf("append to session %s: %w", s.id, err)
	}
	line, from := b.line, s.size
	n, err := s.f.Write(line)
	if err != nil && n > 0 {
		// A short write (a full disk): take the partial line back
		// out, so the file is as it was and no later load meets it.
		// Only bytes of this write are cut, under the session's lock:
		// complete lines are never rewritten.
		if s.f.Truncate(s.size) == nil {
			n = 0
		}
	}
	s.size += int64(n)
	if n > 0 {
		s.needNL = line[n-1] != '\n'
	}
	if s.buf.Cap() > 1<<20 {
		s.buf = bytes.Buffer{} // do not pin the memory of one huge record
	}
	if err != nil {
		// The *PathError names the session file, hence the session; the
		// caller says what it was appending.
		return nil, err
	}
	s.last = b.last
	s.entry = b.entry
	s.entry.Scanned = s.size
	s.entry.Usage = s.entry.Usage.appended(recs, from, s.size)
	touchProject(s.dir)
	return b.offs, nil
}

// encodedBatch is a batch ready to be written: its bytes, each line's
// offset, and the session's last uuid and index entry once it is.
type encodedBatch struct {
	line  []byte
	offs  []int64
	last  string
	entry indexEntry
}

// encodeBatch fills and encodes recs, each after the one before, into the
// bytes of one write: s.buf, or, when records refer to large texts, one
// buffer of the final size holding them (see LargeText).
func (s *Session) encodeBatch(recs []*Record, before func(i int, r *Record, offs []int64)) (*encodedBatch, error) {
	s.buf.Reset()
	if s.needNL {
		// Close the torn line left by a crash, so it stays one bad
		// line and never glues onto this record.
		s.buf.WriteByte('\n')
	}
	b := &encodedBatch{offs: make([]int64, len(recs)), last: s.last, entry: s.entry}
	red := s.project.store.currentRedactor()
	var spans []largeSpan
	grow := 0
	for i, r := range recs {
		if before != nil {
			before(i, r, b.offs[:i])
		}
		if err := s.fill(r, b.last); err != nil {
			return nil, err
		}
		prev := b.entry
		b.entry.observeRecord(r)
		r.Listing = b.entry.listing()
		start, large := s.buf.Len(), r.Large // (redactLine may decode r again)
		b.offs[i] = s.size + int64(start+grow)
		if err := s.enc.Encode(r); err != nil {
			return nil, fmt.Errorf("encode %s record: %w", r.Type, err)
		}
		if red != nil {
			redactLine(red, &s.buf, start, r)
			// The index entry learns from the record as stored, never
			// from a secret the line no longer holds.
			b.entry = prev
			b.entry.observeRecord(r)
		}
		if large != nil {
			r.Large = large
			sp, g, err := findLarge(s.buf.Bytes()[start:], start, large)
			if err != nil {
				return nil, err
			}
			spans, grow = append(spans, sp...), grow+g
		}
		b.last = r.UUID
	}
	b.line = s.buf.Bytes()
	if len(spans) == 0 {
		return b, nil
	}
	out, err := expandLarge(b.line, spans, grow)
	if err != nil {
		return nil, err
	}
	if red != nil {
		// The texts were not in the lines redacted above.
		out = red.Redact(out)
		lineOffsets(out, s.needNL, s.size, b.offs)
	}
	b.line = out
	return b, nil
}

// fill sets the common fields r leaves empty; parent is the uuid of the
// record written just before it ("" at the start of the file).
func (s *Session) fill(r *Record, parent string) error {
	if r.UUID == "" {
		u, err := uuid.NewRandom()
		if err != nil {
			return err
		}
		r.UUID = u.String()
	}
	if r.ParentUUID == nil && parent != "" {
		r.ParentUUID = &parent
	}
	if r.SessionID == "" {
		r.SessionID = s.id
	}
	if r.Timestamp.IsZero() {
		r.Timestamp = time.Now()
	}
	r.Timestamp = r.Timestamp.UTC()
	if r.CWD == "" {
		r.CWD = s.root
	}
	if r.GitBranch == "" {
		r.GitBranch = s.git.Branch()
	}
	if r.Version == "" {
		r.Version = buildinfo.Version
	}
	return nil
}

// Sync fsyncs the session file (and, the first time, its directory, so a
// new file's name survives a power loss too). Every record appended before
// Sync returns is on stable storage.
func (s *Session) Sync() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return fmt.Errorf("sync session %s: %w", s.id, ErrClosed)
	}
	if err := s.f.Sync(); err != nil {
		return fmt.Errorf("sync session %s: %w", s.id, err)
	}
	if !s.dirSynced {
		if err := syncDir(s.dir); err != nil {
			return fmt.Errorf("sync session %s: %w", s.id, err)
		}
		s.dirSynced = true
	}
	return nil
}

// SetTitle sets the session's title in the index (written on Flush/Close);
// it then no longer follows the first user message. The title lives in the
// index alone: a rebuild from the file derives it again. For a title the
// user chose, use SaveTitle. title passes through the store's redactor
// before it is shortened (see Title), so give it whole: a first message
// quoting the key makes a title without it, whole or cut.
func (s *Session) SetTitle(title string) {
	title = redactString(s.project.store.currentRedactor(), title)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.entry.Title = Title(title)
	s.entry.TitleSet = true
}

// SaveTitle appends a TypeTitle record carrying title and sets it as the
// session's title, like SetTitle. Because the record is in the file, the
// title survives a rebuild of the index (the last title record wins over
// the first user message). A blank title is ignored.
func (s *Session) SaveTitle(title string) error {
	if strings.TrimSpace(title) == "" {
		return nil
	}
	_, err := s.Append(&Record{Type: TypeTitle, Title: title})
	return err
}

// SetTokens records the last known context size for the index.
func (s *Session) SetTokens(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.entry.Tokens = n
}

// Info is the session's index entry as this process knows it.
func (s *Session) Info() SessionInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.entry.SessionInfo
}

// LoadLive returns the live context of this session: see Live. It reads
// the file as of the last Append.
func (s *Session) LoadLive(ctx context.Context) (*Live, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, fmt.Errorf("load session %s: %w", s.id, ErrClosed)
	}
	live, err := loadLive(ctx, s.f, s.path, s.size)
	if err != nil {
		return nil, fmt.Errorf("load session %s: %w", s.id, err)
	}
	return live, nil
}

// Flush writes the session's index entry now (Close does it too). An index
// that cannot be written is reported through the Store's warning hook (see
// SetWarn), not as an error: it is a cache of the files.
func (s *Session) Flush() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	return s.flushLocked()
}

func (s *Session) flushLocked() error {
	e, err := s.entryLocked()
	if err != nil {
		return err
	}
	s.project.storeEntry(s.dir, e)
	return nil
}

// entryLocked is the session's index entry as of now.
func (s *Session) entryLocked() (*indexEntry, error) {
	fi, err := s.f.Stat()
	if err != nil {
		return nil, fmt.Errorf("index session %s: %w", s.id, err)
	}
	e := s.entry
	e.Size = fi.Size()
	e.ModTime = fi.ModTime().UnixNano()
	// The same defaults a rebuild from the file would give.
	if e.Created.IsZero() {
		e.Created = fi.ModTime().UTC()
	}
	if e.Updated.IsZero() {
		e.Updated = fi.ModTime().UTC()
	}
	return &e, nil
}

// Close writes the index entry and releases the lock. Closing twice is a
// no-op. A session this process created and never wrote a byte to (its
// first append failed on a full disk, say) is removed, so a failed creation
// leaves nothing behind.
func (s *Session) Close() error {
	return s.closeWith(func(e *indexEntry) { s.project.storeEntry(s.dir, e) })
}

// closeWith closes the session, handing its index entry to store.
func (s *Session) closeWith(store func(*indexEntry)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	defer s.recycleBuffer()
	if s.removeEmpty() {
		return s.release()
	}
	e, err := s.entryLocked()
	if err == nil {
		store(e)
	}
	return errors.Join(err, s.release())
}

// encodeBuffers are the write buffers of closed sessions, for the next
// ones: a process that writes many sessions (an import of thousands) does
// not grow a new buffer for each, and leave it to the garbage collector.
var encodeBuffers sync.Pool // of *[]byte

// recycleBuffer gives the closed session's write buffer to the next
// session. appendBatch keeps it at most 1 MiB.
func (s *Session) recycleBuffer() {
	if b := s.buf.Bytes(); cap(b) > 0 {
		b = b[:0]
		encodeBuffers.Put(&b)
	}
	s.buf = bytes.Buffer{}
}

// removeEmpty removes the file of a session this process created when it
// is still empty, while the lock is held (so no other process can have
// opened it for writing). It reports whether it did.
func (s *Session) removeEmpty() bool {
	if !s.created || s.size != 0 {
		return false
	}
	fi, err := s.f.Stat()
	if err != nil || fi.Size() != 0 {
		return false
	}
	cur, err := os.Lstat(s.path)
	if err != nil || !os.SameFile(fi, cur) {
		return false
	}
	return os.Remove(s.path) == nil
}

func (s *Session) release() error {
	var errs []error
	if err := s.f.Close(); err != nil { // releases the flock too
		errs = append(errs, fmt.Errorf("close session %s: %w", s.id, err))
	}
	return errors.Join(errs...)
}
