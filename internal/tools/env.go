package tools

import (
	"context"
	"crypto/sha256"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Env is what tools share within one session: the project root and the
// read-state that lets Edit refuse files changed on disk since last read.
// It is safe for concurrent use.
type Env struct {
	Root string

	// PassEnv names variables that look like credentials and are handed to
	// commands all the same (the user's choice); SecretEnv names more that
	// are kept from them (the API key's variable, whatever its name). See
	// secrets.ChildEnv.
	PassEnv, SecretEnv []string

	// Sandbox runs Bash's commands (CONTRACT §13); nil runs them as
	// plain child processes.
	Sandbox ShellSandbox

	shell string // bash when installed, else sh

	mu        sync.Mutex
	files     map[string]fileState // by real path
	protected []string             // resolved directories no tool writes under
	// textReader and textWriter, when set, hold the text files' content
	// in place of the disk (UseTextFiles).
	textReader TextReader
	textWriter TextWriter
	// term runs Bash's foreground commands (UseTerminal); watch sees
	// their output here (WatchOutput).
	term  Terminal
	watch func(ctx context.Context, chunk []byte)

	// writeMu serialises Write and Edit, so two calls on one file in
	// parallel cannot lose an update between Edit's read and its write.
	writeMu sync.Mutex

	// beforeChange, when set, is called with a file's real path just
	// before Write or Edit replaces it (the checkpoints of /undo).
	beforeChange func(path string)
	// afterChange, when set, is called with a file's real path and the
	// content Write or Edit just left there.
	afterChange func(path string, data []byte)

	// background holds the commands Bash started with run_in_background.
	background backgroundShells

	// hidden, when set, says which files Grep and Glob pass over (see
	// HideFromSearch); guarded by mu.
	hidden func(real string) bool
}

// HideFromSearch makes Grep and Glob pass over the files hidden reports
// (called with a file's real path, symlinks resolved): the files a deny
// rule keeps from Read, so that a search cannot show what a Read may not
// (Permissions.DeniesRead). nil shows every file.
func (e *Env) HideFromSearch(hidden func(real string) bool) {
	e.mu.Lock()
	e.hidden = hidden
	e.mu.Unlock()
}

// searchFilter returns the hidden predicate for a walk from base: the
// walked path mapped onto base's real path (a walk follows no link below
// it), a link resolved itself. nil when nothing is hidden.
func (e *Env) searchFilter(base string) func(p string, link bool) bool {
	e.mu.Lock()
	hidden := e.hidden
	e.mu.Unlock()
	if hidden == nil {
		return nil
	}
	realBase := realPath(base)
	return func(p string, link bool) bool {
		if link {
			return hidden(realPath(p))
		}
		rel, err := filepath.Rel(base, p)
		if err != nil {
			return hidden(realPath(p))
		}
		return hidden(filepath.Join(realBase, rel))
	}
}

// OnBeforeChange sets the function called with a file's real path just
// before Write or Edit changes it (nil = none). It is called under the
// lock that serialises Write and Edit, so it sees the content the change
// replaces.
func (e *Env) OnBeforeChange(fn func(path string)) {
	e.writeMu.Lock()
	e.beforeChange = fn
	e.writeMu.Unlock()
}

// OnAfterChange sets the function called with a file's real path and
// the content Write or Edit just left there (nil = none), under the same
// lock as OnBeforeChange's.
func (e *Env) OnAfterChange(fn func(path string, data []byte)) {
	e.writeMu.Lock()
	e.afterChange = fn
	e.writeMu.Unlock()
}

// fileState is what a tool last saw of a file. When the content was hashed
// (files up to hashLimit), the hash decides whether it changed, so a file
// rewritten within one mtime tick is still caught and a mere touch is not
// a change; larger files fall back to mtime and size.
type fileState struct {
	modTime time.Time
	size    int64
	hashed  bool
	sum     [sha256.Size]byte
}

// hashLimit bounds how much of a file Read hashes beyond the lines it shows.
const hashLimit = 8 << 20

// NewEnv returns the environment for tools working in root.
func NewEnv(root string) *Env {
	root = realRoot(root)
	shell := "/bin/sh"
	if p, err := exec.LookPath("bash"); err == nil {
		shell = p
	}
	return &Env{Root: root, shell: shell, files: make(map[string]fileState)}
}

// Protect makes Write and Edit refuse every path under dirs (symlinks
// resolved), whatever the permissions say: clawdcode's own storage
// (CLAWDCODE_HOME) is never a tool's to change.
func (e *Env) Protect(dirs ...string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, d := range dirs {
		if d != "" {
			e.protected = append(e.protected, realRoot(d))
		}
	}
}

// protectedDir returns the protected directory target lies under, if any.
func (e *Env) protectedDir(target string) (string, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return isProtected(e.protected, target)
}

// Forget drops what the tools have seen of files, for a session that has
// seen nothing yet: Edit then needs a Read again.
func (e *Env) Forget() {
	e.mu.Lock()
	e.files = make(map[string]fileState)
	e.mu.Unlock()
}

// RestoreSeen records that a tool of a resumed session saw the file at path
// (relative to the root, or absolute) at time at. When the file has not
// been modified since, Edit may change it without another Read; a file
// modified later, or gone, stays unread. It reports whether it was
// restored.
func (e *Env) RestoreSeen(path string, at time.Time) bool {
	target := resolveTarget(e.Root, path)
	info, ok := statRegular(target)
	if !ok || info.ModTime().After(at) {
		return false
	}
	var content []byte
	if info.Size() <= hashLimit {
		data, err := os.ReadFile(target)
		if err != nil {
			return false
		}
		content = data
	}
	e.remember(target, info, content)
	return true
}

// resolve makes a model-given path absolute (relative paths are relative to
// the root) and clean.
func (e *Env) resolve(p string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(e.Root, p)
	}
	return filepath.Clean(p)
}

// realPath follows symlinks so that Write replaces a link's target rather
// than the link, and read-state is keyed by the file actually touched.
func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

// display renders an absolute path for the model and the user: relative to
// the root when inside it, since relative paths are what the tools accept
// back most naturally.
func (e *Env) display(abs string) string {
	rel, err := filepath.Rel(e.Root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return abs
	}
	return filepath.ToSlash(rel)
}

// remember records what a tool saw of the file at path. content is nil when
// it was not read whole.
func (e *Env) remember(path string, info fs.FileInfo, content []byte) {
	st := fileState{modTime: info.ModTime(), size: info.Size()}
	if content != nil {
		// The content seen: the disk's, or an editor's buffer.
		st.size, st.hashed, st.sum = int64(len(content)), true, sha256.Sum256(content)
	}
	e.rememberState(path, st)
}

func (e *Env) rememberState(path string, st fileState) {
	e.mu.Lock()
	e.files[realPath(path)] = st
	e.mu.Unlock()
}

// freshness says whether a file may be edited: never seen through this Env,
// changed since, or current. content is the file's present content (nil
// when it was too large to read whole): when both it and what was seen are
// whole contents, they alone decide (an editor's buffer has no mtime).
type freshness int

const (
	fileUnread freshness = iota
	fileChanged
	fileCurrent
)

func (e *Env) freshness(path string, info fs.FileInfo, content []byte) freshness {
	e.mu.Lock()
	st, ok := e.files[realPath(path)]
	e.mu.Unlock()
	switch {
	case !ok:
		return fileUnread
	case st.hashed && content != nil:
		if int64(len(content)) != st.size || sha256.Sum256(content) != st.sum {
			return fileChanged
		}
		return fileCurrent
	case st.size != info.Size():
		return fileChanged
	case st.hashed:
		if sha256.Sum256(content) != st.sum {
			return fileChanged
		}
		return fileCurrent
	case !st.modTime.Equal(info.ModTime()):
		return fileChanged
	default:
		return fileCurrent
	}
}
