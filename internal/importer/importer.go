package importer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

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
}

// SessionResult is one source session's import.
type SessionResult struct {
	ID      string
	Project string
	Source  string
	Records int  // records written
	New     bool // the session was created (else continued)
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
}

// Import imports every session of tool found under dir. Files that cannot
// be read are reported through Warn and counted in Result.Failed; the
// rest are imported.
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
	st, err := loadState(im.Store.Home())
	if err != nil {
		return nil, err
	}
	var total, done int64
	type job struct {
		path string
		size int64
	}
	var jobs []job
	var unreadable int
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil || !fi.Mode().IsRegular() {
			if err == nil {
				err = fmt.Errorf("not a regular file")
			}
			im.Warn(fmt.Sprintf("import %s: %v", f, err))
			unreadable++
			continue
		}
		if e, ok := st.Files[f]; ok && e.Offset >= fi.Size() {
			continue // nothing new
		}
		jobs = append(jobs, job{f, fi.Size()})
		total += fi.Size() - st.Files[f].Offset
	}
	// Files are imported by one worker per CPU: each source file goes to
	// its own session, and the state and the callbacks are serialised.
	res := &Result{Failed: unreadable}
	var (
		mu   sync.Mutex
		next int
		wg   sync.WaitGroup
	)
	st.mu = &mu
	workers := min(runtime.GOMAXPROCS(0), len(jobs))
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				if next >= len(jobs) || ctx.Err() != nil {
					mu.Unlock()
					return
				}
				j := jobs[next]
				next++
				before := st.Files[j.path].Offset
				mu.Unlock()
				sr, err := im.importFile(ctx, tool, j.path, st)
				mu.Lock()
				if err != nil {
					im.Warn(err.Error())
					res.Failed++
				} else if sr != nil {
					res.Sessions = append(res.Sessions, *sr)
					if im.Done != nil {
						im.Done(*sr)
					}
				}
				done += j.size - before
				if im.Progress != nil {
					im.Progress(done, total)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return res, err
	}
	if len(jobs) > 0 {
		if err := st.save(true); err != nil {
			return res, err
		}
	}
	return res, nil
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

// importFile imports the new lines of one source file and records how far
// it got. It returns nil, nil when the lines held nothing to import.
func (im *Importer) importFile(ctx context.Context, tool, path string, st *state) (*SessionResult, error) {
	prev := st.get(path)
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("import %s: %w", path, err)
	}
	defer f.Close()
	out := &converted{sessionID: prev.Session, cwd: prev.Project, uuids: map[string]bool{}}
	conv := newConverter(tool, out)
	end, err := readLines(f, prev.Offset, func(lineNo int, off int64, line []byte) {
		if err := conv.line(line); err != nil {
			im.Warn(fmt.Sprintf("%s: %s: skipped a line that does not parse (%d bytes): %v", path, where(prev.Offset, lineNo, off), len(line), err))
		}
	})
	if err != nil {
		return nil, fmt.Errorf("import %s: %w", path, err)
	}
	conv.end()
	if out.sessionID == "" && tool == Codex {
		out.sessionID = codexIDFromName(path)
	}
	if out.sessionID == "" && tool == ClaudeCode {
		out.sessionID = strings.TrimSuffix(filepath.Base(path), ".jsonl")
	}
	out.sessionID = clawdcodeID(out.sessionID)
	if len(out.recs) == 0 && out.title == "" {
		if out.sessionID != "" && out.cwd != "" {
			if err := st.set(path, fileState{Offset: end, Session: out.sessionID, Project: out.cwd}); err != nil {
				return nil, err
			}
		}
		return nil, nil
	}
	if out.cwd == "" || !filepath.IsAbs(out.cwd) {
		return nil, fmt.Errorf("import %s: no working directory recorded; skipped", path)
	}
	sr, err := im.write(ctx, tool, path, out, prev.Offset == 0)
	if err != nil {
		return nil, fmt.Errorf("import %s: %w", path, err)
	}
	if err := st.set(path, fileState{Offset: end, Session: out.sessionID, Project: out.cwd}); err != nil {
		return nil, err
	}
	return sr, nil
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

// write appends the records to the clawdcode session of the same id in
// the project at the recorded working directory, creating it (with its
// import record) on a first import.
func (im *Importer) write(ctx context.Context, tool, path string, out *converted, first bool) (*SessionResult, error) {
	p, err := im.Store.ProjectAt(out.cwd)
	if err != nil {
		return nil, err
	}
	var s *storage.Session
	created := false
	if first {
		s, err = p.CreateID(ctx, out.sessionID)
		if errors.Is(err, storage.ErrSessionExists) {
			// Imported before, and the import's state was lost: importing
			// again would duplicate it.
			return nil, fmt.Errorf("session %s exists in %s already; not imported again", out.sessionID, p.Root)
		}
		created = err == nil
	} else {
		s, err = p.Open(ctx, out.sessionID)
	}
	if err != nil {
		return nil, err
	}
	recs := out.recs
	if created {
		head := &storage.Record{Type: storage.TypeSystem, Subtype: storage.SubtypeImport, Import: &storage.ImportInfo{Tool: tool, Path: path}}
		if len(recs) > 0 {
			head.Timestamp = recs[0].Timestamp
		}
		recs = append([]*storage.Record{head}, recs...)
	}
	if out.title != "" {
		recs = append(recs, &storage.Record{Type: storage.TypeTitle, Title: out.title})
	}
	var last time.Time
	for _, r := range recs {
		r.CWD = out.cwd
		if r.Timestamp.IsZero() {
			r.Timestamp = last // a line without a time: the one before's
		}
		last = r.Timestamp
	}
	// Records go out in batches. A boundary that retains records (from a
	// clawdcode export) needs the offset of the first one kept: the batch
	// before it is written first, and the offsets noted.
	offsets := map[string]int64{}
	n := 0
	var part []*storage.Record
	flush := func() error {
		if len(part) == 0 {
			return nil
		}
		offs, err := s.AppendBatch(part...)
		if err != nil {
			return err
		}
		for i, r := range part {
			offsets[r.UUID] = offs[i]
		}
		n += len(part)
		part = part[:0]
		return nil
	}
	for _, r := range recs {
		if m := r.CompactMetadata; r.IsBoundary() && m != nil && m.RetainedUUID != "" {
			if err := flush(); err != nil {
				s.Close()
				return nil, err
			}
			if off, ok := offsets[m.RetainedUUID]; ok {
				m.RetainedOffset = off
			} else {
				m.RetainedUUID = "" // kept by an earlier import: resume from the summary
			}
		}
		part = append(part, r)
		if len(part) >= batch {
			if err := flush(); err != nil {
				s.Close()
				return nil, err
			}
		}
	}
	if err := flush(); err != nil {
		s.Close()
		return nil, err
	}
	if err := s.Close(); err != nil {
		return nil, err
	}
	return &SessionResult{ID: out.sessionID, Project: p.Root, Source: path, Records: n, New: created}, nil
}

// batch is how many records go out in one write: few system calls, and
// no write so large that it strains memory.
const batch = 256

// readLines calls fn for every whole line of f from start and returns the
// offset after the last one. A last line without its '\n' (a tool still
// writing) is left for the next import.
func readLines(f *os.File, start int64, fn func(lineNo int, off int64, line []byte)) (int64, error) {
	if _, err := f.Seek(start, io.SeekStart); err != nil {
		return start, err
	}
	buf := make([]byte, 1<<20)
	off, have, lineNo := start, 0, 0
	for {
		if have == len(buf) {
			buf = append(buf, make([]byte, len(buf))...)
		}
		n, err := f.Read(buf[have:])
		have += n
		data := buf[:have]
		pos := 0
		for {
			nl := bytes.IndexByte(data[pos:], '\n')
			if nl < 0 {
				break
			}
			lineNo++
			line := data[pos : pos+nl]
			if len(bytes.TrimSpace(line)) > 0 {
				fn(lineNo, off+int64(pos), line)
			}
			pos += nl + 1
		}
		off += int64(pos)
		have = copy(buf, data[pos:])
		if err == io.EOF {
			return off, nil
		}
		if err != nil {
			return off, err
		}
	}
}
