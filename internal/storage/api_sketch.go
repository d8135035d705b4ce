package storage

// THIS FILE IS THE AGREED API SKETCH. The storage helper replaces the bodies
// (and may split this file); the signatures are what other packages compile
// against. Change a signature only together with its callers.

import (
	"context"
	"errors"
	"time"
)

var (
	ErrNotFound    = errors.New("session not found")
	ErrInvalidID   = errors.New("invalid session id")
	ErrSessionBusy = errors.New("session is open in another clawdcode process")
)

// AmbiguousIDError is returned by Resolve when a prefix matches several sessions.
type AmbiguousIDError struct {
	Prefix     string
	Candidates []SessionInfo
}

func (e *AmbiguousIDError) Error() string { return "ambiguous session id " + e.Prefix }

// Home returns $CLAWDCODE_HOME or ~/.clawdcode.
func Home() (string, error) { panic("unimplemented") }

// Store is the PersistentStore rooted at a CLAWDCODE_HOME.
type Store struct{ home string }

func NewStore(home string) *Store { return &Store{home: home} }

// Project returns the project for a working directory (symlinks resolved).
// It does not create anything on disk.
func (s *Store) Project(path string) (*Project, error) { panic("unimplemented") }

// Projects lists every project that has a directory under the store (for --all).
func (s *Store) Projects() ([]*Project, error) { panic("unimplemented") }

// Project is one project's directory of sessions.
type Project struct {
	Root string // absolute, symlink-resolved project path (the records' cwd)
	Dir  string // $CLAWDCODE_HOME/projects/<escaped>
}

// SessionInfo is one row of the per-project index.
type SessionInfo struct {
	ID       string    `json:"id"`
	Title    string    `json:"title"`
	Created  time.Time `json:"created"`
	Updated  time.Time `json:"updated"`
	Messages int       `json:"messages"` // user + assistant records
	Tokens   int       `json:"tokens"`   // last known context tokens
	Size     int64     `json:"size"`
	Project  string    `json:"project"`
}

// List returns the project's sessions newest-updated first, from the index
// (rebuilt or refreshed from the files when missing, stale or corrupt).
func (p *Project) List() ([]SessionInfo, error) { panic("unimplemented") }

// Resolve maps a full id or unique prefix to an id. Errors: ErrInvalidID (path
// separators, "..", bad characters), ErrNotFound, *AmbiguousIDError.
func (p *Project) Resolve(idOrPrefix string) (string, error) { panic("unimplemented") }

// Latest returns the most recently updated session's id, or ErrNotFound.
func (p *Project) Latest() (string, error) { panic("unimplemented") }

// Create starts a new session (id = random UUID v4) and holds its write lock.
func (p *Project) Create(ctx context.Context) (*Session, error) { panic("unimplemented") }

// Open opens an existing session for appending, taking its write lock
// (ErrSessionBusy if another process holds it).
func (p *Project) Open(ctx context.Context, id string) (*Session, error) { panic("unimplemented") }

// Remove deletes a session file and its index entry.
func (p *Project) Remove(id string) error { panic("unimplemented") }

// Path returns the session file path of a validated id.
func (p *Project) Path(id string) string { panic("unimplemented") }

// Session is one session file opened for appending by this process.
type Session struct{}

func (s *Session) ID() string { panic("unimplemented") }

// Append fills the common fields left empty (uuid, parentUuid, sessionId,
// timestamp, cwd, gitBranch, version), writes the record as one line with a
// single write(2) on an O_APPEND descriptor, and returns the byte offset at
// which the line starts. The record is in the OS page cache when Append
// returns (not fsynced; see Sync).
func (s *Session) Append(r *Record) (offset int64, err error) { panic("unimplemented") }

// Sync fsyncs the session file.
func (s *Session) Sync() error { panic("unimplemented") }

// SetTitle / SetTokens update the index entry (written on Flush/Close).
func (s *Session) SetTitle(title string) { panic("unimplemented") }
func (s *Session) SetTokens(n int)       { panic("unimplemented") }

// LoadLive returns the live context of this session: see Live.
func (s *Session) LoadLive(ctx context.Context) (*Live, error) { panic("unimplemented") }

// LoadLive reads the live context of a session file without locking it
// (for `sessions show`). It finds the last compact_boundary by scanning bytes
// backwards from the end and decodes only from its retained offset.
func LoadLive(ctx context.Context, path string) (*Live, error) { panic("unimplemented") }

// Close writes the index entry and releases the lock.
func (s *Session) Close() error { panic("unimplemented") }

// Live is what a resume restores: the records from the last boundary's
// retained offset to the end of the file (older boundary/summary records in
// that range dropped), with their byte offsets. Without a boundary it is the
// whole file.
type Live struct {
	Records  []LiveRecord
	Boundary *Record // last compact_boundary, nil if none
	Summary  *Record // the summary record that follows it, nil if none
	Warnings []string
}

// LiveRecord is a record and the byte offset of its line in the file.
type LiveRecord struct {
	Offset int64
	Record *Record
}

// ReadAll streams every parseable record of a session file (for `sessions
// show --full` and export), calling warn for each skipped line.
func ReadAll(ctx context.Context, path string, fn func(off int64, r *Record) error, warn func(string)) error {
	panic("unimplemented")
}

// CacheStore is an LRU with TTL (golang-lru/v2/expirable) for token counts,
// tool results and file contents. Create it once per process: it owns a
// goroutine. Safe for concurrent use.
type CacheStore struct{}

func NewCacheStore(size int, ttl time.Duration) *CacheStore { panic("unimplemented") }
func (c *CacheStore) Get(key string) (any, bool)          { panic("unimplemented") }
func (c *CacheStore) Add(key string, v any)               { panic("unimplemented") }

// MemoryStore is the in-memory live context with a size bound (in bytes of
// record content): it holds the records in force for one session.
type MemoryStore struct{}

func NewMemoryStore(maxBytes int64) *MemoryStore { panic("unimplemented") }
