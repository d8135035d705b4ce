package perf

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"time"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// The corpora of BenchmarkScale (make bench-scale, docs/bench-scale.md).
// They are generated once into a cache directory (SCALE_CACHE, else
// .cache/bench-scale at the repository's root) and kept between runs: the
// 10 GiB one takes minutes to write. A corpus is one CLAWDCODE_HOME with
// one project; its stamp file names the generator's version and the
// project's path, and a corpus whose stamp differs is written again.
//
// Every record is written as clawdcode's Append writes it: the common
// fields in their order, then its listing (messages, tokens), then the
// record's own fields, compact JSON. The texts are cut from a pool of
// prose and code with the long tail of distinct terms real sessions have
// (identifiers with numbers, hashes, paths with line numbers), so an
// index pays for a realistic vocabulary.
const scaleCorpusVersion = "1"

// scaleCorpus is one generated corpus.
type scaleCorpus struct {
	name     string
	sessions int
	// bytes is each session's size; a session with a boundary ends with
	// a compaction about liveBytes before its end (a long session resumed
	// from its last summary).
	bytes     int64
	boundary  bool
	liveBytes int64
}

// The corpora: 10,000 small sessions (a year of short chats), one 1 GiB
// session (a long-lived one, compacted many times), and 10 GiB of 4 MiB
// sessions (a heavy user's history).
var scaleCorpora = map[string]scaleCorpus{
	"small": {name: "small", sessions: 10000, bytes: 12 << 10},
	"1g":    {name: "1g", sessions: 1, bytes: 1 << 30, boundary: true, liveBytes: 1 << 20},
	"10g":   {name: "10g", sessions: 2560, bytes: 4 << 20},
}

// scaleHome is a generated corpus on disk.
type scaleHome struct {
	dir     string // the corpus's directory
	home    string // CLAWDCODE_HOME
	project string // the project's root (its sessions' cwd)
	pdir    string // the project's directory in the store
	ids     []string
	total   int64 // bytes of session files
}

// scaleCacheDir is where the corpora are kept.
func scaleCacheDir() (string, error) {
	if d := os.Getenv("SCALE_CACHE"); d != "" {
		return filepath.Abs(d)
	}
	wd, err := os.Getwd() // the package's directory under go test
	if err != nil {
		return "", err
	}
	return filepath.Join(wd, "..", "..", ".cache", "bench-scale"), nil
}

// open returns the corpus, generating it first when the cache does not
// hold it (or holds another version of it).
func (c scaleCorpus) open(logf func(string, ...any)) (*scaleHome, error) {
	cache, err := scaleCacheDir()
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(cache, c.name)
	h := &scaleHome{dir: dir, home: filepath.Join(dir, "home"), project: filepath.Join(dir, "project")}
	stamp := fmt.Sprintf("v%s %d×%d boundary=%v %s\n", scaleCorpusVersion, c.sessions, c.bytes, c.boundary, h.project)
	if b, err := os.ReadFile(filepath.Join(dir, "stamp")); err == nil && string(b) == stamp {
		return h, h.load()
	}
	if err := os.MkdirAll(cache, 0o700); err != nil {
		return nil, err
	}
	// The corpus, and room for the search index the benchmark builds
	// over it (under half its size) and for what the machine's other
	// users need.
	need := int64(c.sessions)*c.bytes*3/2 + 2<<30
	if free, err := freeBytes(cache); err == nil && free < need {
		return nil, fmt.Errorf("%s: %d MB free, the %s corpus needs %d MB: free some, or point SCALE_CACHE elsewhere", cache, free>>20, c.name, need>>20)
	}
	logf("generating the %s corpus in %s (%d sessions of %d bytes)", c.name, dir, c.sessions, c.bytes)
	start := time.Now()
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(h.project, 0o700); err != nil {
		return nil, err
	}
	if err := c.generate(h); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "stamp"), []byte(stamp), 0o600); err != nil {
		return nil, err
	}
	logf("generated %s: %d MB in %s", c.name, h.total>>20, time.Since(start).Round(time.Second))
	return h, nil
}

// freeBytes is the space left to an unprivileged user on dir's file
// system.
func freeBytes(dir string) (int64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, err
	}
	return int64(st.Bavail) * st.Bsize, nil
}

// load finds the sessions of a corpus already on disk.
func (h *scaleHome) load() error {
	p, err := storage.NewStore(h.home).Project(h.project)
	if err != nil {
		return err
	}
	files, err := p.SessionFiles()
	if err != nil {
		return err
	}
	h.pdir = filepath.Dir(p.Path("x"))
	for _, f := range files {
		h.ids = append(h.ids, f.ID)
		h.total += f.Info.Size()
	}
	if len(h.ids) == 0 {
		return errors.New("the corpus holds no session")
	}
	return nil
}

// generate writes the corpus's sessions, several at once.
func (c scaleCorpus) generate(h *scaleHome) error {
	p, err := storage.NewStore(h.home).Project(h.project)
	if err != nil {
		return err
	}
	if h.pdir, err = p.EnsureDir(); err != nil {
		return err
	}
	pool := newTextPool(32<<20, 1)
	h.ids = make([]string, c.sessions)
	var (
		mu    sync.Mutex
		first error
		next  int
		wg    sync.WaitGroup
	)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for range max(1, runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				stop := i >= c.sessions || first != nil
				mu.Unlock()
				if stop {
					return
				}
				id := fmt.Sprintf("5ca1e%03x-%04x-4000-8000-000000000000", len(c.name), i)
				start := t0.Add(time.Duration(c.sessions-i) * -time.Hour)
				n, err := c.writeSession(filepath.Join(h.pdir, id+".jsonl"), id, h.project, start, pool, uint64(i))
				mu.Lock()
				h.ids[i] = id
				h.total += n
				if err != nil && first == nil {
					first = err
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return first
}

// writeSession writes one session file and returns its size.
func (c scaleCorpus) writeSession(path, id, cwd string, start time.Time, pool *textPool, seed uint64) (int64, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return 0, err
	}
	w := &scaleWriter{w: bufio.NewWriterSize(f, 1<<20), id: id, cwd: cwd, t: start, pool: pool,
		r: rand.New(rand.NewPCG(seed, 0x5ca1e))}
	bulk := c.bytes
	if c.boundary {
		bulk -= c.liveBytes
	}
	for w.off < bulk {
		w.turn()
	}
	if c.boundary {
		retainedOff, retainedUUID := w.off, w.nextUUID()
		w.turn()
		w.compaction(retainedOff, retainedUUID)
		for w.off < c.bytes {
			w.turn()
		}
	}
	err = w.w.Flush()
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return w.off, err
}

// scaleWriter writes one session's records in clawdcode's encoding.
type scaleWriter struct {
	w        *bufio.Writer
	id, cwd  string
	t        time.Time
	pool     *textPool
	r        *rand.Rand
	off      int64
	n        int
	parent   string
	messages int
	tokens   int
	line     []byte
}

// nextUUID is the next record's uuid: the session's id with the
// record's number in its last group (and 'a' where the id has '8', so
// that no record shares its session's id).
func (s *scaleWriter) nextUUID() string {
	return fmt.Sprintf("%s-a000-%012x", s.id[:18], s.n)
}

// record writes one record: r's common fields and listing are filled
// here, and text, already escaped for JSON, replaces the placeholder
// "@TEXT@" in r's encoding.
func (s *scaleWriter) record(r *storage.Record, text []byte) {
	uuid := s.nextUUID()
	s.n++
	s.t = s.t.Add(time.Second)
	if s.parent != "" {
		p := s.parent
		r.ParentUUID = &p
	}
	r.UUID, r.SessionID, r.Timestamp, r.CWD, r.GitBranch, r.Version = uuid, s.id, s.t, s.cwd, "main", "scale"
	switch {
	case r.Type == storage.TypeUser && !r.IsCompactSummary, r.Type == storage.TypeAssistant:
		s.messages++
	}
	if r.Message != nil && r.Message.Usage != nil {
		s.tokens = r.Message.Usage.InputTokens + r.Message.Usage.OutputTokens
	}
	r.Listing = &storage.Listing{Messages: s.messages, Tokens: s.tokens}
	b, err := json.Marshal(r)
	if err != nil {
		panic(err) // the records built here always encode
	}
	if head, tail, ok := bytes.Cut(b, []byte("@TEXT@")); ok {
		s.line = append(append(append(s.line[:0], head...), text...), tail...)
		b = s.line
	}
	s.w.Write(b)
	s.w.WriteByte('\n')
	s.off += int64(len(b)) + 1
	s.parent = uuid
}

// turn writes a request, a reply, a shell call and its output (most of
// the bytes, as in real sessions), and an answer.
func (s *scaleWriter) turn() {
	s.record(&storage.Record{Type: storage.TypeUser, Message: &storage.Message{Role: "user", Content: "@TEXT@"}}, s.pool.cut(s.r, 200))
	s.reply(600)
	call := fmt.Sprintf("call_%d", s.n)
	s.record(&storage.Record{Type: storage.TypeToolUse, Tool: &storage.ToolUse{ID: call, Name: "Bash", Input: json.RawMessage(`{"command":"@TEXT@"}`)}}, s.pool.cut(s.r, 60))
	s.record(&storage.Record{Type: storage.TypeToolResult, ToolResult: &storage.ToolResult{ID: call, Output: "@TEXT@"}}, s.pool.cut(s.r, 3500))
	s.reply(300)
}

func (s *scaleWriter) reply(n int) {
	s.record(&storage.Record{Type: storage.TypeAssistant, Message: &storage.Message{Role: "assistant", Content: "@TEXT@", Model: "gpt-4.1",
		Usage: &storage.Usage{InputTokens: 20000 + s.n, OutputTokens: n / 4}}}, s.pool.cut(s.r, n))
}

// compaction writes a boundary whose retained records start at
// retainedOff, and its summary.
func (s *scaleWriter) compaction(retainedOff int64, retainedUUID string) {
	meta := &storage.CompactMetadata{Trigger: storage.TriggerAuto, PreTokens: 800000, RetainedOffset: retainedOff, RetainedUUID: retainedUUID}
	s.record(&storage.Record{Type: storage.TypeSystem, Subtype: storage.SubtypeCompactBoundary,
		Message: &storage.Message{Role: "system", Content: "Conversation compacted"}, CompactMetadata: meta}, nil)
	s.tokens = 12000
	s.record(&storage.Record{Type: storage.TypeUser, IsCompactSummary: true, Message: &storage.Message{Role: "user", Content: "@TEXT@"},
		CompactMetadata: &storage.CompactMetadata{Trigger: storage.TriggerAuto, PreTokens: 800000, PostTokens: 12000}}, s.pool.cut(s.r, 8<<10))
}

// textPool is a long text, escaped for JSON, that records take windows
// of: generating fresh text for 10 GiB would cost more than writing it.
type textPool struct {
	b []byte
}

func newTextPool(n int, seed uint64) *textPool {
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	text := tailText(r, n)
	esc, _ := json.Marshal(text) // tailText has no '<', '>' or '&' to escape
	return &textPool{b: esc[1 : len(esc)-1]}
}

// cut returns about n bytes of the pool from a random place, starting
// and ending at a space so that no escape is cut in two.
func (p *textPool) cut(r *rand.Rand, n int) []byte {
	from := r.IntN(len(p.b) - n - 64)
	if i := bytes.IndexByte(p.b[from:], ' '); i >= 0 {
		from += i + 1
	}
	to := from + n
	if i := bytes.IndexByte(p.b[to:], ' '); i >= 0 {
		to += i
	}
	return p.b[from:to]
}
