package ctxwindow

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/e2e/harness"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

func TestMain(m *testing.M) {
	os.Exit(harness.Main(m, os.Stderr, "ctxwindow"))
}

// world is one isolated user (see harness.World).
type world struct{ *harness.World }

// newWorld starts a server that counts tokens with tiktoken (serverTokens)
// unless opts says otherwise.
func newWorld(t *testing.T, opts llmtest.Options) *world {
	t.Helper()
	if opts.Tokens == nil {
		opts.Tokens = serverTokens
	}
	return &world{harness.NewWorld(t, opts)}
}

// result is a finished clawdcode process.
type result = harness.Result

// resultObject is CONTRACT.md section 5.
type resultObject = harness.ResultObject

// runJSON runs `clawdcode <args> --output-format json` and decodes its one
// result object, which must say how many compactions there were.
func (w *world) runJSON(args ...string) (resultObject, result) {
	w.T.Helper()
	var obj resultObject
	r := w.RunJSON(&obj, args...)
	if obj.Compactions == nil {
		w.T.Fatalf("clawdcode %q: the result object has no compactions field\n%s", args, r)
	}
	return obj, r
}

// mustJSON is runJSON that fails the test unless the run exits 0 with a
// success result.
func (w *world) mustJSON(args ...string) resultObject {
	w.T.Helper()
	obj, r := w.runJSON(args...)
	if r.Code != 0 || obj.IsError {
		w.T.Fatalf("clawdcode %q: want a successful run\n%s", args, r)
	}
	return obj
}

// writeFile writes a file of the project.
func (w *world) writeFile(name, content string) {
	w.T.Helper()
	if err := os.WriteFile(filepath.Join(w.Project, name), []byte(content), 0o644); err != nil {
		w.T.Fatal(err)
	}
}

// onlySession is the path of the one session file there is.
func (w *world) onlySession() string {
	w.T.Helper()
	matches, err := filepath.Glob(filepath.Join(w.Home, "projects", "*", "*.jsonl"))
	if err != nil {
		w.T.Fatal(err)
	}
	if len(matches) != 1 {
		w.T.Fatalf("want exactly one session file, have %v", matches)
	}
	return matches[0]
}

// record is a session record (CONTRACT.md section 4) with its
// compactMetadata and where its line starts in the file.
type record struct {
	harness.Record
	CompactMetadata *compactMetadata `json:"compactMetadata"`

	offset int64
	line   int // 1-based
}

type compactMetadata struct {
	Trigger        string   `json:"trigger"`
	PreTokens      int      `json:"preTokens"`
	PostTokens     int      `json:"postTokens"`
	FilesIncluded  []string `json:"filesIncluded"`
	Fallback       bool     `json:"fallback"`
	Error          string   `json:"error"`
	RetainedOffset int64    `json:"retainedOffset"`
	RetainedUUID   string   `json:"retainedUuid"`
	// Cleared is a context_clear record's (or a boundary's) tool results
	// sent as stubs.
	Cleared map[string]string `json:"cleared"`
}

// readRecords parses a session file; every line must parse.
func readRecords(t *testing.T, path string) []record {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var recs []record
	var off int64
	for i, line := range bytes.SplitAfter(data, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		var r record
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatalf("%s line %d does not parse: %v", path, i+1, err)
		}
		r.offset, r.line = off, i+1
		recs = append(recs, r)
		off += int64(len(line))
	}
	return recs
}

// compaction is one boundary and its summary record, as found in a file.
type compaction struct {
	boundary, summary record
	index             int // the boundary's index in the records
}

// compactions finds every compact_boundary and asserts the contract's
// shape: the summary record follows it at once.
func compactions(t *testing.T, recs []record) []compaction {
	t.Helper()
	var out []compaction
	for i, r := range recs {
		if r.Type != "system" || r.Subtype != "compact_boundary" {
			continue
		}
		if i+1 >= len(recs) {
			t.Fatalf("compact_boundary (line %d) is the last record: its summary is missing", r.line)
		}
		s := recs[i+1]
		if s.Type != "user" || !s.IsCompactSummary || s.Message == nil || s.CompactMetadata == nil {
			t.Fatalf("compact_boundary (line %d) is followed by %+v, want an isCompactSummary user record with compactMetadata", r.line, s)
		}
		if r.CompactMetadata == nil || r.CompactMetadata.Trigger != s.CompactMetadata.Trigger || r.CompactMetadata.PreTokens != s.CompactMetadata.PreTokens {
			t.Errorf("boundary metadata %+v does not match its summary's %+v", r.CompactMetadata, s.CompactMetadata)
		}
		out = append(out, compaction{boundary: r, summary: s, index: i})
	}
	return out
}

// retainedIndex is the index of the first retained record of c: the one
// the boundary names by uuid (len(recs) of none was retained).
func retainedIndex(t *testing.T, recs []record, c compaction) int {
	t.Helper()
	id := c.boundary.CompactMetadata.RetainedUUID
	if id == "" {
		return c.index
	}
	for i, r := range recs {
		if r.UUID == id {
			if r.offset != c.boundary.CompactMetadata.RetainedOffset {
				t.Errorf("retained record %s is at offset %d, the boundary says %d", id, r.offset, c.boundary.CompactMetadata.RetainedOffset)
			}
			return i
		}
	}
	t.Fatalf("the boundary's retained record %s is not in the file", id)
	return -1
}

// isSummaryRequest tells the summarisation calls from the agent's
// (llmtest.IsSummaryRequest: no tools, or the agent's with tool_choice
// "none").
func isSummaryRequest(r llmtest.Request) bool { return llmtest.IsSummaryRequest(r) }

// agentRequests and summaryRequests split the server's record.
func agentRequests(srv *llmtest.Server) []llmtest.Request {
	var out []llmtest.Request
	for _, r := range srv.Requests() {
		if !isSummaryRequest(r) {
			out = append(out, r)
		}
	}
	return out
}

func summaryRequests(srv *llmtest.Server) []llmtest.Request {
	var out []llmtest.Request
	for _, r := range srv.Requests() {
		if isSummaryRequest(r) {
			out = append(out, r)
		}
	}
	return out
}

// summaryText is what the scripted summariser answers: short, and marked
// so the tests can find it in later requests.
const summaryText = "## User requests and instructions\nSUMMARY-MARKER: the user asked to read files.\n## Current work\nreading"

// agentWithSummaries answers summarisation calls with summary and
// everything else as llmtest.Agent does.
func agentWithSummaries(summary func(llmtest.Request) llmtest.Reply) func(llmtest.Request) llmtest.Reply {
	agent := llmtest.Agent()
	return func(r llmtest.Request) llmtest.Reply {
		if isSummaryRequest(r) {
			return summary(r)
		}
		return agent(r)
	}
}

func fixedSummary(llmtest.Request) llmtest.Reply { return llmtest.Text(summaryText) }

// noRejections asserts the server answered every request.
func noRejections(t *testing.T, srv *llmtest.Server) {
	t.Helper()
	for i, r := range srv.Requests() {
		if r.Status != 200 {
			t.Errorf("request %d (%d messages, %d tokens) was answered %d: %s", i, len(r.Messages), r.Tokens, r.Status, r.Error)
		}
	}
}

// checkNoOrphans asserts what the server's validation also checks, so a
// failure names the message: every assistant tool call is answered by tool
// messages right after it, and every tool message answers such a call.
func checkNoOrphans(t *testing.T, msgs []chat.Message) {
	t.Helper()
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		switch {
		case m.Role == chat.RoleAssistant && len(m.ToolCalls) > 0:
			for j, c := range m.ToolCalls {
				k := i + 1 + j
				if k >= len(msgs) || msgs[k].Role != chat.RoleTool || msgs[k].ToolCallID != c.ID {
					t.Errorf("message %d: tool call %s (%s) is not answered right after it", i, c.ID, c.Name)
				}
			}
			i += len(m.ToolCalls)
		case m.Role == chat.RoleTool:
			t.Errorf("message %d: tool result %s follows no call", i, m.ToolCallID)
		}
	}
}

// Token counting on the server's side: llmtest's, as OpenAI counts.
var (
	textTokens   = llmtest.TextTokens
	serverTokens = llmtest.OpenAITokens
)

// bigText is n lines of varied, ordinary text (about 11 tokens a line),
// tagged so a test can tell files apart.
func bigText(tag string, n int) string {
	words := []string{"parser", "token", "reads", "the", "buffer", "until", "a", "newline", "then", "returns", "value", "error", "lexer", "state", "input"}
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%s %04d:", tag, i)
		for j := range 8 {
			b.WriteString(" ")
			b.WriteString(words[(i*7+j*3)%len(words)])
		}
		b.WriteString("\n")
	}
	return b.String()
}

func itoa(n int) string { return strconv.Itoa(n) }
