package storage

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

const (
	// markerName is the file inside a project directory that holds the
	// project's real path; it is what makes escaped names collision-safe.
	markerName = ".project"
	// maxEscaped keeps a directory name (escaped path + '-' + hash) well
	// under the usual 255-byte limit of a file name.
	maxEscaped = 200
	dirPerm    = 0o700
	filePerm   = 0o600
)

// Home returns $CLAWDCODE_HOME or ~/.clawdcode, as an absolute path.
func Home() (string, error) {
	if h := os.Getenv("CLAWDCODE_HOME"); h != "" {
		abs, err := filepath.Abs(h)
		if err != nil {
			return "", fmt.Errorf("resolve CLAWDCODE_HOME: %w", err)
		}
		return abs, nil
	}
	u, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("locate home directory (set CLAWDCODE_HOME): %w", err)
	}
	return filepath.Join(u, ".clawdcode"), nil
}

// CheckHome says what is wrong with home as the store's root, before
// anything is read or written there: nil when it is a directory, or does not
// exist yet (the first Create makes it); otherwise an error that names
// CLAWDCODE_HOME — not one about a file deep inside it, such as
// "projects/…/.project: not a directory".
func CheckHome(home string) error {
	for _, dir := range []string{home, filepath.Join(home, "projects")} {
		fi, err := os.Stat(dir)
		switch {
		case err == nil && !fi.IsDir():
			if dir == home {
				return fmt.Errorf("CLAWDCODE_HOME %s is a file, not a directory: point it at a directory (it is created if missing)", home)
			}
			return fmt.Errorf("CLAWDCODE_HOME %s holds a file named projects where its projects directory belongs", home)
		case errors.Is(err, syscall.ENOTDIR):
			return fmt.Errorf("CLAWDCODE_HOME %s is inside a file, not a directory", home)
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			return fmt.Errorf("CLAWDCODE_HOME %s: %w", home, err)
		case err != nil:
			return nil // missing: created on first use
		}
	}
	return nil
}

// PersistentStore is the JSONL store rooted at a CLAWDCODE_HOME: its
// projects, their session files (each a *Session, which the context
// manager persists through) and their indexes. It holds no open files and
// is safe for concurrent use.
type PersistentStore struct {
	home string

	mu          sync.Mutex
	warn        func(msg string)
	indexWarn   func(err error)
	indexWarned bool
	warned      map[string]bool // warnf's messages said already
	redactor    Redactor
}

// Store is the name most callers know the PersistentStore by.
type Store = PersistentStore

func NewStore(home string) *Store { return &Store{home: home} }

// Home is the directory the store is rooted at.
func (s *Store) Home() string { return s.home }

func (s *Store) projectsDir() string { return filepath.Join(s.home, "projects") }

// Project returns the project for a working directory (symlinks resolved).
// It does not create anything on disk: the directory is created by the
// first Create.
func (s *Store) Project(path string) (*Project, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("project %s: %w", path, err)
	}
	root, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("project %s: %w", path, err)
	}
	p := &Project{Root: root, store: s}
	name, _, err := s.pickDir(root)
	if err != nil {
		return nil, err
	}
	p.Dir = filepath.Join(s.projectsDir(), name)
	return p, nil
}

// ProjectAt is Project for a path recorded elsewhere (an imported
// session's working directory), which may not exist on this machine: an
// existing path is resolved as Project does; a missing one is taken as it
// is written, cleaned. Nothing is created.
func (s *Store) ProjectAt(path string) (*Project, error) {
	if !filepath.IsAbs(path) {
		return nil, fmt.Errorf("project %s: not an absolute path", path)
	}
	if _, err := os.Stat(path); err == nil {
		return s.Project(path)
	}
	root := filepath.Clean(path)
	name, _, err := s.pickDir(root)
	if err != nil {
		return nil, err
	}
	return &Project{Root: root, Dir: filepath.Join(s.projectsDir(), name), store: s}, nil
}

// Project is one project's directory of sessions. Its methods are safe for
// concurrent use; Dir only changes inside the first Create, in the rare case
// that another project claimed the same directory name in between.
type Project struct {
	Root string // absolute, symlink-resolved project path (the records' cwd)
	Dir  string // $CLAWDCODE_HOME/projects/<escaped>

	store *Store
	mu    sync.Mutex // guards Dir and claimed while Create claims the directory
	// claimed: a Create of this Project claimed Dir, so the next ones
	// need not check it again (see createSession).
	claimed bool
}

func (p *Project) dir() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.Dir
}

// checkID accepts what a session id (or a prefix of one) may contain:
// [A-Za-z0-9-]+, so never a path separator, a dot or anything a shell
// would mangle.
func checkID(id string) error {
	ok := id != ""
	for i := 0; ok && i < len(id); i++ {
		c := id[i]
		ok = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-'
	}
	if !ok {
		return fmt.Errorf("%w %q", ErrInvalidID, id)
	}
	return nil
}

// Path returns the session file path of an id. For an id that is not valid
// it returns "", so a user-supplied id can never name a file outside Dir.
func (p *Project) Path(id string) string {
	if checkID(id) != nil {
		return ""
	}
	return filepath.Join(p.dir(), id+".jsonl")
}

// escapePath is the contract's escaping: every character outside
// [A-Za-z0-9] becomes '-'.
func escapePath(path string) string {
	var b strings.Builder
	b.Grow(len(path))
	for _, r := range path {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	return b.String()
}

// dirCandidates lists the directory names a root may live in, in order of
// preference: the plain escaped name, then the same with longer and longer
// hashes of the real path. A path too long for a plain name starts hashed.
func dirCandidates(root string) []string {
	sum := sha256.Sum256([]byte(root))
	h := hex.EncodeToString(sum[:])
	base := escapePath(root)
	var out []string
	if len(base) <= maxEscaped {
		out = append(out, base)
	} else {
		base = base[:maxEscaped]
	}
	for _, n := range []int{8, 16, 32} {
		out = append(out, base+"-"+h[:n])
	}
	return out
}

// pickDir finds the directory name for root without creating anything: the
// first candidate whose marker names root, else the first one that is free.
// free reports that the chosen name has no marker yet.
func (s *Store) pickDir(root string) (name string, free bool, err error) {
	firstFree := ""
	for _, c := range dirCandidates(root) {
		owner, err := readMarker(filepath.Join(s.projectsDir(), c))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if firstFree == "" {
				firstFree = c
			}
		case err != nil:
			return "", false, fmt.Errorf("project %s: %w", root, err)
		case owner == root:
			return c, false, nil
		}
	}
	if firstFree == "" {
		return "", false, fmt.Errorf("project %s: every directory name is taken by another path", root)
	}
	return firstFree, true, nil
}

func readMarker(dir string) (string, error) {
	b, err := ReadRegular(filepath.Join(dir, markerName))
	if err != nil {
		return "", err
	}
	// Exactly the bytes written: a path may itself end in a newline.
	return string(b), nil
}

// EnsureDir creates the project's directory under the store (claimed by
// its marker, as the first Create does) and returns it, for data that
// belongs to the project without being a session (its memories). Files
// kept there must not be named like a session (<id>.jsonl).
func (p *Project) EnsureDir() (string, error) { return p.ensureDir() }

// ensureDir creates the project directory and claims it with a marker, so
// the directory belongs to Root before any session file exists in it. If
// another path claimed the name since Project picked it, it moves Dir to
// the next free candidate.
func (p *Project) ensureDir() (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.claimDirLocked()
}

// claimedDir is ensureDir done once: after a Create claimed the directory,
// the next Creates of this Project do not create it and read its marker
// again (five system calls a session, an import of thousands of sessions
// paid for each). A directory removed since is claimed again by the
// Create that finds it gone (createSession).
func (p *Project) claimedDir() (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.claimed {
		return p.Dir, nil
	}
	dir, err := p.claimDirLocked()
	p.claimed = err == nil
	return dir, err
}

// forgetClaim makes the next claimedDir check the directory again.
func (p *Project) forgetClaim() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.claimed = false
}

func (p *Project) claimDirLocked() (string, error) {
	s := p.store
	if err := mkdirPrivate(s.home); err != nil {
		return "", err
	}
	if err := mkdirPrivate(s.projectsDir()); err != nil {
		return "", err
	}
	for range 4 {
		if err := mkdirPrivate(p.Dir); err != nil {
			return "", err
		}
		owner, err := claimMarker(p.Dir, p.Root)
		if err != nil {
			return "", err
		}
		if owner == p.Root {
			return p.Dir, nil
		}
		name, _, err := s.pickDir(p.Root)
		if err != nil {
			return "", err
		}
		p.Dir = filepath.Join(s.projectsDir(), name)
	}
	return "", fmt.Errorf("project %s: could not claim a directory under %s", p.Root, s.projectsDir())
}

// claimMarker writes dir's marker if it has none and returns the root the
// marker names. Its errors do not repeat dir: the OS errors they wrap name
// the file in it. The marker appears complete or not at all: it is written to
// a temporary file and hard-linked into place, which fails if a marker
// already exists, so two processes cannot both claim one directory.
func claimMarker(dir, root string) (string, error) {
	marker := filepath.Join(dir, markerName)
	if owner, err := readMarker(dir); err == nil {
		return owner, nil
	}
	tmp, err := os.CreateTemp(dir, ".project-*")
	if err != nil {
		return "", fmt.Errorf("claim project directory: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(filePerm); err == nil {
		_, err = tmp.WriteString(root)
		if err == nil {
			err = tmp.Sync()
		}
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return "", fmt.Errorf("claim project directory: %w", err)
		}
	} else {
		tmp.Close()
		return "", fmt.Errorf("claim project directory: %w", err)
	}
	if err := os.Link(tmp.Name(), marker); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("claim project directory: %w", err)
	}
	owner, err := readMarker(dir)
	if err != nil {
		return "", fmt.Errorf("claim project directory: %w", err)
	}
	if err := syncDir(dir); err != nil {
		return "", err
	}
	return owner, nil
}

// mkdirPrivate creates dir with mode 0700 whatever the umask; an existing
// directory is left as its owner set it.
func mkdirPrivate(dir string) error {
	err := os.Mkdir(dir, dirPerm)
	if errors.Is(err, fs.ErrNotExist) {
		if err := mkdirPrivate(filepath.Dir(dir)); err != nil {
			return err
		}
		err = os.Mkdir(dir, dirPerm)
	}
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	if err := os.Chmod(dir, dirPerm); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err // names dir
	}
	defer d.Close()
	return d.Sync() // "sync <dir>: …"
}

// Store is the store the project belongs to.
func (p *Project) Store() *Store { return p.store }
