package perf

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"time"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// words is the vocabulary of the generated prose: English and code words,
// so that the text tokenizes roughly like a real session (~4 bytes a token).
var words = strings.Fields(`the a to of and in is it that for on with as this be by
are from or an not file function test error return value type package import struct
string int slice map pointer interface method call read write edit build run check
handler request response server client session record index offset boundary summary
context window token count model reply tool result output input path directory line
change fix update add remove rename refactor move keep because when then after before
should would could will can must may need want expect assume note see also however
internal storage agent loop manager cache store append load resume compact replay
parse decode encode marshal unmarshal buffer reader writer scanner stream chunk delta
config option flag env default timeout retry limit size bytes lines fields records`)

// prose returns about n bytes of sentence-like text drawn from words,
// different for every seed.
func prose(seed uint64, n int) string {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	var b strings.Builder
	b.Grow(n + 64)
	for b.Len() < n {
		k := 6 + r.IntN(14)
		for i := range k {
			w := words[r.IntN(len(words))]
			if i == 0 {
				w = strings.ToUpper(w[:1]) + w[1:]
			}
			b.WriteString(w)
			if i < k-1 {
				b.WriteByte(' ')
			}
		}
		b.WriteString(". ")
		if r.IntN(6) == 0 {
			b.WriteString("\n\n")
		}
	}
	return b.String()
}

// code returns about n bytes of Go-like source, different for every seed.
func code(seed uint64, n int) string {
	r := rand.New(rand.NewPCG(seed, 7))
	var b strings.Builder
	b.Grow(n + 128)
	b.WriteString("package example\n\n")
	for i := 0; b.Len() < n; i++ {
		name := words[r.IntN(len(words))]
		fmt.Fprintf(&b, "// %s%d %s.\nfunc %s%d(ctx context.Context, %s string) (int, error) {\n\tif %s == \"\" {\n\t\treturn 0, fmt.Errorf(\"%s %%s: empty\", %q)\n\t}\n\treturn len(%s) + %d, nil\n}\n\n",
			name, i, prose(seed+uint64(i), 40), name, i, words[r.IntN(len(words))], words[r.IntN(len(words))], name, name, words[r.IntN(len(words))], r.IntN(1000))
	}
	return b.String()
}

// sessionWriter writes a session file the way clawdcode lays it out:
// every common field, a parentUuid chain, tool calls answered in order,
// the server's usage on every reply. It tracks byte offsets, so a
// compaction's retained pointer can be written correctly.
type sessionWriter struct {
	w      *bufio.Writer
	enc    *json.Encoder
	off    int64 // bytes written so far (the next record's offset)
	id     string
	cwd    string
	parent *string
	n      uint64 // records written, for uuids and timestamps
	t0     time.Time
	// tokens estimates the live context (bytes/4), reported as the
	// server's prompt_tokens on each reply.
	tokens int
	// countedTokens, when set, fills Record.Tokens as clawdcode does once
	// it has tokenized in a process.
	countedTokens func(*storage.Record) int

	memo map[uint64]turnTexts
}

func newSessionWriter(w io.Writer, id, cwd string, off int64) *sessionWriter {
	bw := bufio.NewWriterSize(w, 1<<20)
	sw := &sessionWriter{w: bw, enc: json.NewEncoder(bw), off: off, id: id, cwd: cwd,
		t0: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	sw.enc.SetEscapeHTML(false)
	return sw
}

// uuid is a well-formed, unique, deterministic uuid for the n-th record;
// random ones would cost more than the encoding for a 1 GB file.
func (s *sessionWriter) uuid() string {
	return fmt.Sprintf("%08x-0000-4000-8000-%012x", uint32(len(s.id)), s.n)
}

// add writes r, filling the common fields, and returns its offset.
func (s *sessionWriter) add(r *storage.Record) int64 {
	r.UUID = s.uuid()
	r.ParentUUID = s.parent
	r.SessionID, r.CWD, r.Version = s.id, s.cwd, "perf"
	r.Timestamp = s.t0.Add(time.Duration(s.n) * time.Second)
	if s.countedTokens != nil && r.Tokens == 0 {
		r.Tokens = s.countedTokens(r)
	}
	s.n++
	off := s.off
	cw := countWriter{w: s.w}
	enc := json.NewEncoder(&cw)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		panic(err) // records built here always encode
	}
	s.off += cw.n
	u := r.UUID
	s.parent = &u
	return off
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// turn writes one coding turn: a request, a reply announcing a Read, the
// call, its result (a source file of about resultBytes), and the answer.
// It returns the offset of the turn's user record.
// The texts come from seed: a bulk history reuses a few seeds (see
// turnTexts), the live part gives every turn its own.
func (s *sessionWriter) turn(seed uint64, resultBytes int) int64 {
	t := s.texts(seed, resultBytes)
	start := s.add(&storage.Record{Type: storage.TypeUser, Message: &storage.Message{Role: "user", Content: t.request}})
	s.tokens += len(t.request) / 4
	s.reply(t.plan)
	callID := fmt.Sprintf("call_%d", s.n)
	input := fmt.Sprintf(`{"file_path":"internal/pkg%d/file.go"}`, seed%97)
	s.add(&storage.Record{Type: storage.TypeToolUse, Tool: &storage.ToolUse{ID: callID, Name: "Read", Input: json.RawMessage(input)}})
	s.add(&storage.Record{Type: storage.TypeToolResult, ToolResult: &storage.ToolResult{ID: callID, Output: t.result}})
	s.tokens += (len(input) + len(t.result)) / 4
	s.reply(t.answer)
	return start
}

type turnTexts struct{ request, plan, result, answer string }

// bulkSeeds is how many different turns a bulk history cycles through:
// generating 1 GB of fresh text would cost more than writing it, and the
// bulk is never decoded on resume.
const bulkSeeds = 64

func (s *sessionWriter) texts(seed uint64, resultBytes int) turnTexts {
	if t, ok := s.memo[seed]; ok && seed < bulkSeeds {
		return t
	}
	t := turnTexts{prose(seed*4, 300), prose(seed*4+1, 400), code(seed*4+2, resultBytes), prose(seed*4+3, 600)}
	if seed < bulkSeeds {
		if s.memo == nil {
			s.memo = map[uint64]turnTexts{}
		}
		s.memo[seed] = t
	}
	return t
}

func (s *sessionWriter) reply(text string) {
	s.add(&storage.Record{Type: storage.TypeAssistant, Message: &storage.Message{
		Role: "assistant", Content: text, Model: "gpt-4.1",
		Usage: &storage.Usage{InputTokens: s.tokens + 2500, OutputTokens: len(text) / 4}}})
	s.tokens += len(text) / 4
}

// compaction writes a compact_boundary whose retained region starts at
// the user record at retainedOff, then the summary.
func (s *sessionWriter) compaction(retainedOff int64, retainedUUID string, summaryBytes int) {
	pre := s.tokens + 2500
	s.add(&storage.Record{Type: storage.TypeSystem, Subtype: storage.SubtypeCompactBoundary,
		Message: &storage.Message{Role: "system", Content: "Conversation compacted"},
		CompactMetadata: &storage.CompactMetadata{Trigger: storage.TriggerAuto, PreTokens: pre,
			RetainedOffset: retainedOff, RetainedUUID: retainedUUID}})
	summary := prose(s.n, summaryBytes)
	s.tokens = summaryBytes / 4
	s.add(&storage.Record{Type: storage.TypeUser, IsCompactSummary: true,
		Message:         &storage.Message{Role: "user", Content: summary},
		CompactMetadata: &storage.CompactMetadata{Trigger: storage.TriggerAuto, PreTokens: pre, PostTokens: s.tokens + 2500}})
}

func (s *sessionWriter) flush() error { return s.w.Flush() }

// bigSession describes a generated session file: bulk history of about
// bulk bytes, then (when withBoundary) retained turns of about retained
// bytes, a compaction, and live turns of about live bytes after it.
type bigSession struct {
	bulk, retained, live int64
	withBoundary         bool
	// count, when set, stores a token count on every retained and live
	// record (Record.Tokens), as clawdcode does once it has tokenized.
	count func(*storage.Record) int
}

// write appends the session to f (already holding off bytes) and returns
// the uuid of the first retained record ("" without a boundary).
func (spec bigSession) write(ctx context.Context, f io.Writer, id, cwd string, off int64) (string, error) {
	s := newSessionWriter(f, id, cwd, off)
	for i := uint64(0); s.off-off < spec.bulk; i++ {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return "", err
			}
		}
		s.turn(i%bulkSeeds, 4096)
	}
	if !spec.withBoundary {
		return "", s.flush()
	}
	retainedOff := s.off
	retainedUUID := s.uuid()
	s.countedTokens = spec.count
	for s.off-retainedOff < spec.retained {
		s.turn(bulkSeeds+s.n, 4096)
	}
	s.compaction(retainedOff, retainedUUID, 8<<10)
	liveStart := s.off
	for s.off-liveStart < spec.live {
		s.turn(bulkSeeds+s.n, 4096)
	}
	return retainedUUID, s.flush()
}

// createSession makes a session of project p through the store (so its
// directory and marker are the store's own), then appends spec to it.
func createSession(ctx context.Context, p *storage.Project, spec bigSession) (id, path, retainedUUID string, err error) {
	sess, err := p.Create(ctx)
	if err != nil {
		return "", "", "", err
	}
	id, path = sess.ID(), sess.Path()
	if err := sess.Close(); err != nil {
		return "", "", "", err
	}
	// O_CREATE: closing a session never written removes its file.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return "", "", "", err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return "", "", "", err
	}
	retainedUUID, err = spec.write(ctx, f, id, p.Root, fi.Size())
	if err == nil {
		// Write the pages back now: otherwise the kernel flushes a freshly
		// written 1 GB file while the benchmark runs, and the index fsync
		// of every timed run waits behind it.
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return id, path, retainedUUID, err
}
