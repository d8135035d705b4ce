package ctxwindow

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// binary is the clawdcode executable built once for the whole package.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "clawdcode-ctxwindow-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "ctxwindow:", err)
		os.Exit(1)
	}
	code := func() int {
		defer os.RemoveAll(dir)
		if err := build(dir); err != nil {
			fmt.Fprintln(os.Stderr, "ctxwindow: build clawdcode:", err)
			return 1
		}
		return m.Run()
	}()
	os.Exit(code)
}

// build compiles ./cmd/clawdcode from the module root without -race: the
// race detector is for this process; a race-built child would only make
// every run slower.
func build(dir string) error {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return errors.New("not inside a module")
	}
	binary = filepath.Join(dir, "clawdcode")
	cmd := exec.Command("go", "build", "-o", binary, "./cmd/clawdcode")
	cmd.Dir = filepath.Dir(gomod)
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%w\n%s", err, b)
	}
	return nil
}

// runTimeout bounds every clawdcode process a test starts.
const runTimeout = 40 * time.Second

// world is one isolated user: HOME, CLAWDCODE_HOME, a project directory and
// a fake server, all under the test's temporary directory.
type world struct {
	t       *testing.T
	home    string // CLAWDCODE_HOME
	user    string // HOME
	project string
	srv     *llmtest.Server
}

// newWorld starts a server that counts tokens with tiktoken (serverTokens)
// unless opts says otherwise.
func newWorld(t *testing.T, opts llmtest.Options) *world {
	t.Helper()
	root := t.TempDir()
	w := &world{
		t:       t,
		home:    filepath.Join(root, "clawdhome"),
		user:    filepath.Join(root, "home"),
		project: filepath.Join(root, "project"),
	}
	for _, d := range []string{w.user, w.project, filepath.Join(root, "tmp")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if opts.Tokens == nil {
		opts.Tokens = serverTokens
	}
	w.srv = llmtest.NewServer(t, opts)
	return w
}

func (w *world) env() []string {
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + w.user,
		"TMPDIR=" + filepath.Join(filepath.Dir(w.user), "tmp"),
		"LANG=C.UTF-8",
		"CLAWDCODE_HOME=" + w.home,
		"OPENAI_BASE_URL=" + w.srv.URL(),
		"OPENAI_API_KEY=test",
	}
}

type result struct {
	stdout, stderr string
	code           int
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\n--- stdout\n%s\n--- stderr\n%s", r.code, r.stdout, r.stderr)
}

// run runs clawdcode in the project with stdin at /dev/null.
func (w *world) run(args ...string) result {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Dir = w.project
	cmd.Env = w.env()
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := result{stdout: stdout.String(), stderr: stderr.String()}
	if ctx.Err() != nil {
		w.t.Fatalf("clawdcode %q did not finish within %v\n%s", args, runTimeout, r)
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	default:
		w.t.Fatalf("run clawdcode %q: %v", args, err)
	}
	return r
}

// mustRun runs clawdcode and fails the test unless it exits 0.
func (w *world) mustRun(args ...string) result {
	w.t.Helper()
	r := w.run(args...)
	if r.code != 0 {
		w.t.Fatalf("clawdcode %q: want exit 0\n%s", args, r)
	}
	return r
}

// resultObject is CONTRACT.md section 5.
type resultObject struct {
	Type      string `json:"type"`
	Subtype   string `json:"subtype"`
	IsError   bool   `json:"is_error"`
	Result    string `json:"result"`
	SessionID string `json:"session_id"`
	Context   struct {
		Tokens int `json:"tokens"`
		Window int `json:"window"`
	} `json:"context"`
	Compactions *int `json:"compactions"`
}

// runJSON runs `clawdcode <args> --output-format json` and decodes its one
// result object.
func (w *world) runJSON(args ...string) (resultObject, result) {
	w.t.Helper()
	r := w.run(append(args, "--output-format", "json")...)
	var obj resultObject
	if err := json.Unmarshal([]byte(strings.TrimSpace(r.stdout)), &obj); err != nil {
		w.t.Fatalf("clawdcode %q: stdout is not one result object: %v\n%s", args, err, r)
	}
	if obj.Compactions == nil {
		w.t.Fatalf("clawdcode %q: the result object has no compactions field\n%s", args, r)
	}
	return obj, r
}

// mustJSON is runJSON that fails the test unless the run exits 0 with a
// success result.
func (w *world) mustJSON(args ...string) resultObject {
	w.t.Helper()
	obj, r := w.runJSON(args...)
	if r.code != 0 || obj.IsError {
		w.t.Fatalf("clawdcode %q: want a successful run\n%s", args, r)
	}
	return obj
}

// writeFile writes a file of the project.
func (w *world) writeFile(name, content string) {
	w.t.Helper()
	if err := os.WriteFile(filepath.Join(w.project, name), []byte(content), 0o644); err != nil {
		w.t.Fatal(err)
	}
}

// onlySession is the path of the one session file there is.
func (w *world) onlySession() string {
	w.t.Helper()
	matches, err := filepath.Glob(filepath.Join(w.home, "projects", "*", "*.jsonl"))
	if err != nil {
		w.t.Fatal(err)
	}
	if len(matches) != 1 {
		w.t.Fatalf("want exactly one session file, have %v", matches)
	}
	return matches[0]
}

// record is the part of a session record (CONTRACT.md section 4) the tests
// read, with where its line starts in the file.
type record struct {
	UUID             string           `json:"uuid"`
	Type             string           `json:"type"`
	Subtype          string           `json:"subtype"`
	IsCompactSummary bool             `json:"isCompactSummary"`
	Message          *recordMessage   `json:"message"`
	Tool             *recordTool      `json:"tool"`
	ToolResult       *recordResult    `json:"toolResult"`
	CompactMetadata  *compactMetadata `json:"compactMetadata"`

	offset int64
	line   int // 1-based
}

type recordMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type recordTool struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

type recordResult struct {
	ID     string `json:"id"`
	Output string `json:"output"`
	Error  string `json:"error"`
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

// isSummaryRequest tells the summarisation calls from the agent's: they
// offer no tools (every agent request carries the tool definitions).
func isSummaryRequest(r llmtest.Request) bool { return len(r.Tools) == 0 }

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

// Token counting on the server's side: tiktoken's o200k_base (gpt-4o's)
// over every text the request carries, with the cookbook's per-message
// overhead, and each tool definition counted as its JSON text (more than
// OpenAI's own accounting of tools, so the server is if anything stricter).
var (
	encOnce sync.Once
	enc     *tiktoken.Tiktoken
	encErr  error
	// counted memoises textTokens: every request repeats the system
	// prompt, the tools and the history, and tokenizing is slow under -race.
	counted sync.Map // string → int
)

// textTokens is the o200k_base token count of s.
func textTokens(s string) int {
	encOnce.Do(func() {
		tiktoken.SetBpeLoader(tiktokenloader.NewOfflineLoader())
		enc, encErr = tiktoken.GetEncoding("o200k_base")
	})
	if encErr != nil {
		panic(fmt.Sprintf("load o200k_base: %v", encErr))
	}
	if n, ok := counted.Load(s); ok {
		return n.(int)
	}
	n := len(enc.EncodeOrdinary(s))
	counted.Store(s, n)
	return n
}

func serverTokens(r llmtest.Request) int {
	count := textTokens
	n := 3
	for _, m := range r.Messages {
		n += 3 + count(m.Role) + count(m.Content)
		if m.Name != "" {
			n += 1 + count(m.Name)
		}
		for _, c := range m.ToolCalls {
			n += 7 + count(c.Name) + count(c.Arguments)
		}
	}
	for _, d := range r.Tools {
		b, _ := json.Marshal(d)
		n += count(string(b))
	}
	return n
}

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
