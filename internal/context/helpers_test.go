package contextmgr

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/fileanalyzer"
	"github.com/clawdcode/clawdcode/internal/llm"
	"github.com/clawdcode/clawdcode/internal/storage"
)

// memLog is an in-memory session file: it fills the common fields like the
// store does and encodes every record as one JSONL line, so its offsets
// are real byte offsets into data. Like *storage.Session it offers
// AppendBatch; writes keeps the records of each write, in order.
type memLog struct {
	data    bytes.Buffer
	recs    []storage.LiveRecord
	parent  string
	failErr error
	writes  [][]*storage.Record
}

func (l *memLog) Append(r *storage.Record) (int64, error) {
	offs, err := l.AppendBatch(r)
	if err != nil {
		return 0, err
	}
	return offs[0], nil
}

// AppendBatch writes recs as one write: all of them or, on failErr, none.
func (l *memLog) AppendBatch(recs ...*storage.Record) ([]int64, error) {
	if l.failErr != nil {
		return nil, l.failErr
	}
	var lines bytes.Buffer
	offs := make([]int64, len(recs))
	parent := l.parent
	for i, r := range recs {
		if r.UUID == "" {
			r.UUID = uuid.NewString()
		}
		if parent != "" {
			p := parent
			r.ParentUUID = &p
		}
		r.SessionID, r.CWD, r.Version = "sess", "/proj", "test"
		r.Timestamp = time.Date(2026, 1, 1, 0, 0, len(l.recs)+i, 0, time.UTC)
		// Encoded like the store does: no HTML escaping, newline-terminated.
		offs[i] = int64(l.data.Len() + lines.Len())
		enc := json.NewEncoder(&lines)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(r); err != nil {
			return nil, err
		}
		parent = r.UUID
	}
	l.data.Write(lines.Bytes())
	for i, r := range recs {
		l.recs = append(l.recs, storage.LiveRecord{Offset: offs[i], Record: r})
	}
	l.parent = parent
	l.writes = append(l.writes, recs)
	return offs, nil
}

// appendOnly is a Log without AppendBatch, as a Log from elsewhere may be.
type appendOnly struct{ log *memLog }

func (l appendOnly) Append(r *storage.Record) (int64, error) { return l.log.Append(r) }

// records decodes every line of the file.
func (l *memLog) records(t testing.TB) []*storage.Record {
	t.Helper()
	var out []*storage.Record
	sc := bufio.NewScanner(bytes.NewReader(l.data.Bytes()))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var r storage.Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("decode line: %v", err)
		}
		out = append(out, &r)
	}
	return out
}

// live builds what storage.LoadLive returns for the file, the way the
// contract describes it: find the last boundary, seek to its retained
// offset, decode from there (older boundary/summary records dropped). It
// checks that the offset really starts the retained record. withMarkers
// keeps the last boundary and summary in Records too.
func (l *memLog) live(t testing.TB, withMarkers bool) *storage.Live {
	t.Helper()
	data := l.data.Bytes()
	var offsets []int64
	for off := 0; off < len(data); {
		offsets = append(offsets, int64(off))
		off += bytes.IndexByte(data[off:], '\n') + 1
	}
	decode := func(off int64) *storage.Record {
		end := bytes.IndexByte(data[off:], '\n')
		var r storage.Record
		if err := json.Unmarshal(data[off:off+int64(end)], &r); err != nil {
			t.Fatalf("decode line at %d: %v", off, err)
		}
		return &r
	}
	live := &storage.Live{}
	start := int64(0)
	for i := len(offsets) - 1; i >= 0; i-- {
		r := decode(offsets[i])
		if !r.IsBoundary() {
			continue
		}
		live.Boundary = r
		if i+1 < len(offsets) {
			live.Summary = decode(offsets[i+1])
		}
		start = r.CompactMetadata.RetainedOffset
		if first := decode(start); first.UUID != r.CompactMetadata.RetainedUUID {
			t.Fatalf("retainedOffset %d starts record %s, want %s", start, first.UUID, r.CompactMetadata.RetainedUUID)
		}
		break
	}
	for _, off := range offsets {
		if off < start {
			continue
		}
		r := decode(off)
		if (r.IsBoundary() || r.IsSummary()) && (!withMarkers || (r.UUID != live.Boundary.UUID && r.UUID != live.Summary.UUID)) {
			continue
		}
		live.Records = append(live.Records, storage.LiveRecord{Offset: off, Record: r})
	}
	return live
}

// byteCounter is a deterministic stand-in for tiktoken: a token per four
// bytes plus the chat accounting's per-message overhead. It records how
// often it was asked.
type byteCounter struct{ calls atomic.Int64 }

func (c *byteCounter) Text(s string) int {
	c.calls.Add(1)
	return (len(s) + 3) / 4
}

func (c *byteCounter) Message(m chat.Message) int {
	c.calls.Add(1)
	n := 3 + (len(m.Content)+3)/4
	for _, tc := range m.ToolCalls {
		n += 3 + (len(tc.Name)+len(tc.Arguments)+3)/4
	}
	return n
}

func (c *byteCounter) Tools(defs []chat.ToolDef) int {
	c.calls.Add(1)
	b, _ := json.Marshal(defs)
	return 12 + (len(b)+3)/4
}

// byteUpperBound bounds byteCounter.Message the way tokens.MessageUpperBound
// bounds tiktoken: a token is at least one byte.
func byteUpperBound(m chat.Message) int {
	n := 4 + len(m.Content)
	for _, tc := range m.ToolCalls {
		n += 8 + len(tc.Name) + len(tc.Arguments)
	}
	return n
}

// fakeLLM answers summary requests from a script and records them.
type fakeLLM struct {
	mu     sync.Mutex
	reqs   []llm.Request
	answer func(n int, req llm.Request) (*llm.Response, error)
}

func (f *fakeLLM) Stream(ctx context.Context, req llm.Request, onDelta func(llm.Delta)) (*llm.Response, error) {
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	n := len(f.reqs)
	f.mu.Unlock()
	if f.answer == nil {
		return &llm.Response{Content: fmt.Sprintf("SUMMARY-%d: the user asked for things.", n)}, nil
	}
	return f.answer(n, req)
}

func (f *fakeLLM) calls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.reqs)
}

func (f *fakeLLM) last() llm.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.reqs[len(f.reqs)-1]
}

var errServer = errors.New("500 internal server error")

// fixture is a manager over a memLog with the deterministic counter.
type fixture struct {
	t       testing.TB
	log     *memLog
	counter *byteCounter
	llm     *fakeLLM
	notices []Notice
	m       *Manager
	opt     Options
}

func newFixture(t testing.TB, window int, tweak func(*Options)) *fixture {
	t.Helper()
	f := &fixture{t: t, log: &memLog{}, counter: &byteCounter{}, llm: &fakeLLM{}}
	f.opt = Options{
		Model:      "test-model",
		Window:     window,
		System:     "You are a test assistant.",
		Tools:      []chat.ToolDef{{Name: "Read", Description: "read a file", Parameters: json.RawMessage(`{"type":"object","properties":{"file_path":{"type":"string"}}}`)}},
		LLM:        f.llm,
		Counter:    f.counter,
		UpperBound: byteUpperBound,
		Estimate:   func(s string) int { return (len(s) + 3) / 4 },
		Files:      func(string, []chat.Message) ([]fileanalyzer.File, error) { return nil, nil },
		Notify:     func(n Notice) { f.notices = append(f.notices, n) },
	}
	if tweak != nil {
		tweak(&f.opt)
	}
	m, err := New(context.Background(), f.log, nil, f.opt)
	if err != nil {
		t.Fatal(err)
	}
	f.m = m
	return f
}

// resume builds a second manager from the file, as -c would.
func (f *fixture) resume(withMarkers bool) *Manager {
	f.t.Helper()
	m, err := New(context.Background(), f.log, f.log.live(f.t, withMarkers), f.opt)
	if err != nil {
		f.t.Fatal(err)
	}
	return m
}

func (f *fixture) user(text string) {
	f.t.Helper()
	if err := f.m.AddUser(text); err != nil {
		f.t.Fatal(err)
	}
}

// toolTurn adds a reply calling one tool and its result.
func (f *fixture) toolTurn(id, name, args, output string) {
	f.t.Helper()
	err := f.m.AddAssistant(&llm.Response{Content: "Let me look.", ToolCalls: []chat.ToolCall{{ID: id, Name: name, Arguments: args}}})
	if err != nil {
		f.t.Fatal(err)
	}
	if err := f.m.AddToolResult(id, output, ""); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) reply(text string) {
	f.t.Helper()
	if err := f.m.AddAssistant(&llm.Response{Content: text}); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) request() llm.Request {
	f.t.Helper()
	req, err := f.m.Request(context.Background())
	if err != nil {
		f.t.Fatal(err)
	}
	return req
}

// requestSize counts a request as the server would with the same encoding.
func requestSize(c *byteCounter, req llm.Request) int {
	n := replyPriming + c.Tools(req.Tools)
	for _, m := range req.Messages {
		n += c.Message(m)
	}
	return n
}

// checkWellFormed asserts the ordering invariants a strict server enforces.
func checkWellFormed(t testing.TB, msgs []chat.Message) {
	t.Helper()
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		switch m.Role {
		case chat.RoleTool:
			t.Fatalf("message %d: tool message %q not right after its call", i, m.ToolCallID)
		case chat.RoleUser:
			if i > 0 && msgs[i-1].Role == chat.RoleUser {
				t.Fatalf("message %d: two user messages in a row", i)
			}
		case chat.RoleAssistant:
			if m.Content == "" && len(m.ToolCalls) == 0 {
				t.Fatalf("message %d: empty assistant message", i)
			}
			seen := map[string]bool{}
			for j, c := range m.ToolCalls {
				if c.ID == "" || c.Name == "" || seen[c.ID] {
					t.Fatalf("message %d: call %d has an empty or repeated id %q, or no name", i, j, c.ID)
				}
				seen[c.ID] = true
				// Strict servers (vLLM, SGLang) parse every call's arguments.
				var args map[string]any
				if json.Unmarshal([]byte(c.Arguments), &args) != nil || args == nil {
					t.Fatalf("message %d: call %q has arguments %q, not a JSON object", i, c.ID, c.Arguments)
				}
				k := i + 1 + j
				if k >= len(msgs) || msgs[k].Role != chat.RoleTool || msgs[k].ToolCallID != c.ID {
					t.Fatalf("message %d: call %q not answered at %d", i, c.ID, k)
				}
			}
			i += len(m.ToolCalls)
		}
	}
}

// messagesOf is buildMessages without the count of interrupted calls.
func messagesOf(records []*storage.Record) []chat.Message {
	msgs, _ := buildMessages(records)
	return msgs
}
