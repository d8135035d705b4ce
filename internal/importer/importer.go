package importer

import (
	"context"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/google/uuid"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// Tool names, as `clawdcode import` takes them and the import record
// names them.
const (
	ClaudeCode = "claude-code"
	Codex      = "codex"
)

// Tools lists the tools import knows.
var Tools = []string{ClaudeCode, Codex}

// DefaultDir is where a tool keeps its sessions (CONTRACT.md section 10):
// $CLAUDE_CONFIG_DIR/projects or ~/.claude/projects; $CODEX_HOME/sessions
// or ~/.codex/sessions.
func DefaultDir(tool string, getenv func(string) string, userHome string) string {
	switch tool {
	case ClaudeCode:
		if d := getenv("CLAUDE_CONFIG_DIR"); d != "" {
			return filepath.Join(d, "projects")
		}
		return filepath.Join(userHome, ".claude", "projects")
	case Codex:
		if d := getenv("CODEX_HOME"); d != "" {
			return filepath.Join(d, "sessions")
		}
		return filepath.Join(userHome, ".codex", "sessions")
	}
	return ""
}

// converter turns one source file's lines into records.
type converter interface {
	line(raw []byte) error
	end()
}

// primer is a converter whose records depend on lines before a pass's
// start (the model a Codex turn context named, whether a reply is open):
// prime is given each such line, and writes nothing.
type primer interface {
	prime(raw []byte)
}

func newConverter(tool string, out *converted) converter {
	if tool == Codex {
		return newCodex(out)
	}
	return newClaude(out)
}

// converted is what a source file's new lines became.
type converted struct {
	sessionID, cwd, title string
	recs                  []*storage.Record
	lastBoundary          *storage.Record
	uuids                 map[string]bool
	// large are the strings of huge lines left in the source file
	// (nil: lines are read whole).
	large *largeTexts
}

func (c *converted) add(r *storage.Record) {
	if r.UUID != "" {
		r.UUID = c.ref(r.UUID)
		if c.uuids[r.UUID] {
			r.UUID = "" // a uuid seen twice: the store gives a new one
		} else {
			c.uuids[r.UUID] = true
		}
	}
	c.recs = append(c.recs, r)
}

// materialise replaces the references to large strings in ss by the
// strings (see largeTexts).
func (c *converted) materialise(ss ...*string) error {
	for _, s := range ss {
		if err := c.large.materialise(s); err != nil {
			return fmt.Errorf("read a large string: %w", err)
		}
	}
	return nil
}

func (c *converted) has(src string) bool { return c.uuids[c.ref(src)] }

// ref is the uuid a source record gets: its own when it is a UUID (as
// Claude Code's are), else one derived from it, the same every time.
func (c *converted) ref(src string) string {
	if u, err := uuid.Parse(src); err == nil && len(src) == 36 && u.String() == src {
		return src
	}
	return uuid.NewSHA1(uuid.NameSpaceURL, []byte("clawdcode-import:"+c.sessionID+":"+src)).String()
}

// Result is what one import did.
type Result struct {
	Sessions []SessionResult
	Failed   int // source files that could not be read or written
	// Files are the source files the tool's layout names (Claude Code's
	// <project>/<id>.jsonl, Codex's rollout-*.jsonl), and Found how many
	// of them are sessions of the tool, imported now or before: none of
	// them means dir holds no session of the tool.
	Files, Found int
}

// SessionResult is one source session's import.
type SessionResult struct {
	ID      string
	Project string
	Source  string
	Records int  // records written
	New     bool // the import that opened the session (else a continuation)
}

// Importer brings other tools' sessions into a store.
type Importer struct {
	Store *storage.Store
	// Warn hears about skipped lines and unreadable files.
	Warn func(string)
	// Progress, when set, is called after each source file with the
	// bytes done and the bytes to do.
	Progress func(done, total int64)
	// Done, when set, is called after each session imported.
	Done func(SessionResult)
	// Waiting, when set, is called once if another import holds the
	// store and this one waits for it to finish.
	Waiting func()
}

// indexBatch is how many sessions' index entries (and the state's files)
// are written at once at least: the cost of an index write is spread over
// them. Each write rewrites the whole index and state, so a batch grows
// with what the import has written (see finished): a fixed size made the
// import's cost grow with the square of its sessions again.
const indexBatch = 512

// Import imports every session of tool found under dir. Files that cannot
// be read are reported through Warn and counted in Result.Failed; the
// rest are imported. One import runs at a time per store: a second one
// waits (see Waiting).
func (im *Importer) Import(ctx context.Context, tool, dir string) (*Result, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("import %s: %w", tool, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("import %s: %s is not a directory", tool, dir)
	}
	files, err := sourceFiles(tool, dir)
	if err != nil {
		return nil, fmt.Errorf("import %s: %w", tool, err)
	}
	unlock, err := im.lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	st := loadState(im.Store.Home(), im.Warn)
	r := &run{im: im, tool: tool, st: st, res: &Result{Files: len(files)}, batch: &storage.IndexBatch{}, projects: map[string]*storage.Project{}}
	for _, f := range files {
		r.plan(f)
	}
	r.work(ctx)
	r.flush(true)
	if err := ctx.Err(); err != nil {
		return r.res, err
	}
	if len(r.jobs) > 0 {
		if err := st.save(true); err != nil {
			return r.res, err
		}
	}
	return r.res, nil
}

// run is one Import's work: the source files to read, and what the
// workers share (the state, the index entries waiting, the result).
type run struct {
	im    *Importer
	tool  string
	st    *state
	res   *Result
	batch *storage.IndexBatch
	jobs  []job

	flushMu     sync.Mutex // flushes take turns (see flush)
	mu          sync.Mutex // guards what follows, st and res
	projects    map[string]*storage.Project
	sessions    map[string]*sync.Mutex // one per session being written, by project root and id
	next        int
	done, total int64
	flushed     int // sessions whose index entries were written
}

type job struct {
	path string
	fi   fs.FileInfo
}

// plan adds a source file to the work unless the state shows that
// nothing changed since its last import.
func (r *run) plan(path string) {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		if err == nil {
			err = fmt.Errorf("not a regular file")
		}
		r.im.Warn(fmt.Sprintf("import %s: %v", path, err))
		r.res.Failed++
		return
	}
	if r.st.unchanged(path, fi) {
		if r.st.Files[path].Session != "" {
			r.res.Found++
		}
		return
	}
	r.jobs = append(r.jobs, job{path, fi})
	r.total += fi.Size() - min(r.st.Files[path].Offset, fi.Size())
}

// work imports the files with one worker per CPU: each source file goes
// to its own session.
func (r *run) work(ctx context.Context) {
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(r.jobs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				r.mu.Lock()
				if r.next >= len(r.jobs) || ctx.Err() != nil {
					r.mu.Unlock()
					return
				}
				j := r.jobs[r.next]
				r.next++
				prev := r.st.Files[j.path]
				r.mu.Unlock()
				sr, now, err := r.importFile(ctx, j.path, j.fi, prev)
				r.finished(j, prev, sr, now, err)
			}
		}()
	}
	wg.Wait()
}

// finished records one file's outcome; every indexBatch sessions, their
// index entries and the state are written.
func (r *run) finished(j job, prev fileState, sr *SessionResult, now fileState, err error) {
	if r.record(j, prev, sr, now, err) {
		r.flush(false)
	}
}

// record notes one file's outcome and reports whether a batch is due.
func (r *run) record(j job, prev fileState, sr *SessionResult, now fileState, err error) (flush bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case err != nil:
		r.im.Warn(err.Error())
		r.res.Failed++
	default:
		r.st.Files[j.path] = now
		if now.Session != "" {
			r.res.Found++
		}
		if sr != nil {
			r.res.Sessions = append(r.res.Sessions, *sr)
			if r.im.Done != nil {
				r.im.Done(*sr)
			}
		}
	}
	r.done += j.fi.Size() - min(prev.Offset, j.fi.Size())
	if r.im.Progress != nil {
		r.im.Progress(r.done, r.total)
	}
	return r.batchFull()
}

// batchFull reports whether the batch of index entries waiting is due to
// be written: it grows with what was written, so the batches of an
// import are linear in its sessions. The caller holds r.mu.
func (r *run) batchFull() bool {
	return r.batch.Len() >= max(indexBatch, r.flushed/2)
}

// flush writes the index entries waiting (when the batch is full, or at
// the end with force), then the state as it was
// before them: the state is a cache of what the sessions hold, so it is
// never ahead of the index (a session is closed into the batch before
// its file is recorded). The other workers go on meanwhile; flushes take
// turns, so an older state never replaces a newer one.
func (r *run) flush(force bool) {
	r.flushMu.Lock()
	defer r.flushMu.Unlock()
	r.mu.Lock()
	// Another worker may have flushed this batch while this one waited:
	// it is due again only if it is full again.
	if !force && !r.batchFull() {
		r.mu.Unlock()
		return
	}
	r.flushed += r.batch.Len()
	st := &state{path: r.st.path, Files: maps.Clone(r.st.Files)}
	r.mu.Unlock()
	r.batch.Write()
	if err := st.save(false); err != nil {
		r.im.Warn(err.Error())
	}
}

// lockSession gives this worker the session id of the project at root
// until the returned function is called.
func (r *run) lockSession(root, id string) (unlock func()) {
	r.mu.Lock()
	if r.sessions == nil {
		r.sessions = map[string]*sync.Mutex{}
	}
	key := root + "\x00" + id
	m := r.sessions[key]
	if m == nil {
		m = &sync.Mutex{}
		r.sessions[key] = m
	}
	r.mu.Unlock()
	m.Lock()
	return m.Unlock
}

// project is the project at a recorded working directory, looked up once
// per import.
func (r *run) project(cwd string) (*storage.Project, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if p := r.projects[cwd]; p != nil {
		return p, nil
	}
	p, err := r.im.Store.ProjectAt(cwd)
	if err != nil {
		return nil, err
	}
	r.projects[cwd] = p
	return p, nil
}

// sourceFiles lists a tool's session files under dir, sorted. Claude
// Code: <dir>/<project>/<session>.jsonl (a session's sub-agent files,
// deeper down, are not sessions). Codex: rollout-*.jsonl at any depth
// (sessions/YYYY/MM/DD/).
func sourceFiles(tool, dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == dir {
				return err
			}
			return nil // an unreadable subdirectory: the rest still counts
		}
		if d.IsDir() {
			if tool == ClaudeCode && path != dir && filepath.Dir(path) != dir {
				return fs.SkipDir
			}
			return nil
		}
		name := d.Name()
		// A link is followed when the file is opened (and reported if
		// it leads nowhere); FIFOs, devices and the like are no sessions.
		if !(d.Type().IsRegular() || d.Type()&fs.ModeSymlink != 0) || !strings.HasSuffix(name, ".jsonl") {
			return nil
		}
		if tool == Codex && !strings.HasPrefix(name, "rollout-") {
			return nil
		}
		if tool == ClaudeCode && filepath.Dir(filepath.Dir(path)) != dir {
			return nil
		}
		out = append(out, path)
		return nil
	})
	sort.Strings(out)
	return out, err
}

func where(start int64, lineNo int, off int64) string {
	if start == 0 {
		return fmt.Sprintf("line %d", lineNo)
	}
	return fmt.Sprintf("byte offset %d", off)
}

// clawdcodeID is the source's session id as a clawdcode id: every
// character outside [A-Za-z0-9-] (none, in the UUIDs both tools use)
// becomes '-', as a project path is escaped.
func clawdcodeID(id string) string {
	return strings.Map(func(r rune) rune {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-') {
			return r
		}
		return '-'
	}, id)
}

// codexIDFromName takes the id that ends a rollout's file name.
func codexIDFromName(path string) string {
	name := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	if len(name) >= 36 {
		return name[len(name)-36:]
	}
	return ""
}
