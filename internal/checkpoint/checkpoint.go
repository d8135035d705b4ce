// Package checkpoint keeps what /undo and /rewind restore: the content a
// file had before Write or Edit first changed it in a turn.
//
// Layout: $CLAWDCODE_HOME/checkpoints/<project dir name>/<session id>/ holds
// manifest.jsonl (one line per saved file and per restore, append-only)
// and blobs/<sha256> (each content once). Directories are 0700, files 0600.
//
// Bounds: a file larger than MaxFileBytes, or one that would take the
// session's blobs past MaxSessionBytes, is recorded as not saved (a restore
// says so instead of guessing); a file outside the project root is never
// saved, so it is never restored either. Only the first change of a file in
// a turn is saved: that is the state the turn started from.
//
// Restores are confined to the project: every path is resolved under the
// project root (os.Root), so a directory that became a symlink out of the
// project since is refused by name, never written or deleted through. And
// a restore does not silently discard someone else's work: each time Write
// or Edit replaces a file (and each time a restore puts one back) the hash
// of what clawdcode left there is recorded, and Drifted lists the files
// whose content differs from it now, with the lines a restore would drop.
//
// A Store is safe for concurrent use. Saving fails soft: an error is
// returned for the caller to report, and the change itself goes ahead.
package checkpoint

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Bounds of what is kept.
const (
	MaxFileBytes    = 8 << 20
	MaxSessionBytes = 128 << 20
)

const (
	dirPerm  = 0o700
	filePerm = 0o600
)

// entry is one manifest line: a saved file (Path set) or a restore (Undone).
type entry struct {
	Turn    string      `json:"turn,omitempty"`
	Path    string      `json:"path,omitempty"`
	Existed bool        `json:"existed,omitempty"`
	Blob    string      `json:"blob,omitempty"`
	Mode    fs.FileMode `json:"mode,omitempty"`
	Skipped string      `json:"skipped,omitempty"` // why the content was not saved
	Undone  []string    `json:"undone,omitempty"`  // turns whose changes were restored
	// State is the hash of what clawdcode last left at Path (stateNone:
	// it removed the file), on a line of its own without Turn.
	State string `json:"state,omitempty"`
	// BeforeRestore marks a file saved by a rewind before its restore
	// (Turn is then the rewind: rewind.go), which no /undo takes for a
	// turn's; By names the rewind a restore was made for, Redone the
	// turns a return from one made done again.
	BeforeRestore bool      `json:"beforeRestore,omitempty"`
	By            string    `json:"by,omitempty"`
	Redone        []string  `json:"redone,omitempty"`
	Time          time.Time `json:"time"`
}

// Store is one session's checkpoints.
type Store struct {
	dir  string
	root string // the project root, symlinks resolved

	mu    sync.Mutex
	saved map[string]bool // turn + "\x00" + path
	bytes int64           // blob bytes, counted lazily
	init  bool
}

// Dir is where the checkpoints of a session live.
func Dir(home, projectDir, sessionID string) string {
	return filepath.Join(home, "checkpoints", filepath.Base(projectDir), sessionID)
}

// New returns the store of the session whose checkpoints live in dir, for
// a project rooted at root. Nothing is written until the first Save.
func New(dir, root string) *Store {
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	return &Store{dir: dir, root: root, saved: map[string]bool{}}
}

// inProject reports whether path (absolute, symlinks resolved) is inside
// the project root.
func (s *Store) inProject(path string) bool {
	rel, err := filepath.Rel(s.root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// Save records the present content of path (or that it does not exist)
// before a change in turn (the uuid of the turn's user record), once per
// turn. Files outside the project are ignored, and so is a change outside
// any turn (turn "").
func (s *Store) Save(turn, path string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.save(turn, path, false)
}

// save is Save with s.mu held; beforeRestore marks the entry a rewind's.
func (s *Store) save(turn, path string, beforeRestore bool) error {
	path = resolve(path)
	if !s.inProject(path) || turn == "" {
		return nil
	}
	key := turn + "\x00" + path
	if s.saved[key] {
		return nil
	}
	if err := s.load(); err != nil {
		return err
	}
	e := entry{Turn: turn, Path: path, BeforeRestore: beforeRestore, Time: time.Now().UTC()}
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("checkpoint %s: %w", path, err)
	case !info.Mode().IsRegular():
		e.Existed, e.Skipped = true, "not a regular file"
	case info.Size() > MaxFileBytes:
		e.Existed, e.Skipped = true, fmt.Sprintf("larger than %d MiB", MaxFileBytes>>20)
	case s.bytes+info.Size() > MaxSessionBytes:
		e.Existed, e.Skipped = true, fmt.Sprintf("the session's checkpoints reached %d MiB", MaxSessionBytes>>20)
	default:
		data, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("checkpoint %s: %w", path, err)
		}
		e.Existed, e.Blob, e.Mode = true, hashOf(data), info.Mode().Perm()
		added, err := s.writeBlob(e.Blob, data)
		if err != nil {
			return fmt.Errorf("checkpoint %s: %w", path, err)
		}
		s.bytes += added
	}
	if err := s.appendEntry(e); err != nil {
		return fmt.Errorf("checkpoint %s: %w", path, err)
	}
	s.saved[key] = true
	return nil
}

// Wrote records that clawdcode just left data at path (Write or Edit
// replaced it), for Drifted to compare the file with later.
func (s *Store) Wrote(path string, data []byte) error {
	path = resolve(path)
	if !s.inProject(path) {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.appendEntry(entry{Path: path, State: hashOf(data), Time: time.Now().UTC()}); err != nil {
		return fmt.Errorf("checkpoint %s: %w", path, err)
	}
	return nil
}

// resolve is path with its symlinks resolved, or its directory's when the
// file does not exist.
func resolve(path string) string {
	if r, err := filepath.EvalSymlinks(path); err == nil {
		return r
	}
	if r, err := filepath.EvalSymlinks(filepath.Dir(path)); err == nil {
		return filepath.Join(r, filepath.Base(path))
	}
	return path
}

func hashOf(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// load counts the blob bytes already kept (once).
func (s *Store) load() error {
	if s.init {
		return nil
	}
	ents, err := os.ReadDir(filepath.Join(s.dir, "blobs"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	for _, d := range ents {
		if info, err := d.Info(); err == nil {
			s.bytes += info.Size()
		}
	}
	s.init = true
	return nil
}

func (s *Store) writeBlob(name string, data []byte) (int64, error) {
	dir := filepath.Join(s.dir, "blobs")
	path := filepath.Join(dir, name)
	if _, err := os.Stat(path); err == nil {
		return 0, nil
	}
	if err := os.MkdirAll(dir, dirPerm); err != nil {
		return 0, err
	}
	tmp, err := os.CreateTemp(dir, "."+name+"-*")
	if err != nil {
		return 0, err
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return 0, err
	}
	return int64(len(data)), nil
}

func (s *Store) appendEntry(e entry) error {
	if err := os.MkdirAll(s.dir, dirPerm); err != nil {
		return err
	}
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(s.dir, "manifest.jsonl"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, filePerm)
	if err != nil {
		return err
	}
	_, err = f.Write(append(b, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// entries reads the manifest; a line that does not parse is skipped.
func (s *Store) entries() ([]entry, error) {
	f, err := os.Open(filepath.Join(s.dir, "manifest.jsonl"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []entry
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var e entry
		if json.Unmarshal(bytes.TrimSpace(sc.Bytes()), &e) == nil {
			out = append(out, e)
		}
	}
	return out, sc.Err()
}

// Orphans lists the checkpoint directories under home whose session no
// longer exists: $CLAWDCODE_HOME/checkpoints/<project dir>/<id> where
// exists(projectDir, id) is false. projectDirs limits the search to those
// project directory names (nil: every one).
func Orphans(home string, projectDirs []string, exists func(projectDir, id string) bool) ([]string, error) {
	root := filepath.Join(home, "checkpoints")
	if projectDirs == nil {
		ents, err := os.ReadDir(root)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("list checkpoints: %w", err)
		}
		for _, e := range ents {
			if e.IsDir() {
				projectDirs = append(projectDirs, e.Name())
			}
		}
	}
	var out []string
	for _, pd := range projectDirs {
		ents, err := os.ReadDir(filepath.Join(root, pd))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("list checkpoints: %w", err)
		}
		for _, e := range ents {
			if e.IsDir() && !exists(pd, e.Name()) {
				out = append(out, filepath.Join(root, pd, e.Name()))
			}
		}
	}
	return out, nil
}
