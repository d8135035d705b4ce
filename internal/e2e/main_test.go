package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// binary is the clawdcode executable built once for the whole package.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "clawdcode-e2e-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		os.Exit(1)
	}
	code := func() int {
		defer os.RemoveAll(dir)
		if err := build(dir); err != nil {
			fmt.Fprintln(os.Stderr, "e2e: build clawdcode:", err)
			return 1
		}
		return m.Run()
	}()
	os.Exit(code)
}

// build compiles ./cmd/clawdcode from the module root, without -race: the
// race detector is for the test process, and a race-built child would make
// every kill and timing test several times slower.
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

// runTimeout bounds every clawdcode process a test starts and waits for.
const runTimeout = 45 * time.Second

// world is one isolated user: a HOME, a CLAWDCODE_HOME, a project
// directory and a fake server, all under the test's temporary directory.
type world struct {
	t        *testing.T
	root     string
	home     string // CLAWDCODE_HOME
	userHome string // HOME
	tmp      string // TMPDIR
	project  string
	srv      *llmtest.Server
	key      string
	// extraEnv is appended to every command's environment.
	extraEnv []string
}

func newWorld(t *testing.T, opts llmtest.Options) *world {
	t.Helper()
	root := t.TempDir()
	w := &world{
		t:        t,
		root:     root,
		home:     filepath.Join(root, "clawdhome"),
		userHome: filepath.Join(root, "userhome"),
		tmp:      filepath.Join(root, "tmp"),
		project:  filepath.Join(root, "project"),
		key:      "sk-e2e-" + strings.ReplaceAll(t.Name(), "/", "-") + "-SECRETMARKER-7f3a9c",
	}
	for _, d := range []string{w.userHome, w.tmp, w.project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	w.srv = llmtest.NewServer(t, opts)
	return w
}

// env is a minimal environment: nothing from the developer's shell that
// could point clawdcode at a real home, model or endpoint.
func (w *world) env() []string {
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + w.userHome,
		"TMPDIR=" + w.tmp,
		"XDG_CONFIG_HOME=" + filepath.Join(w.userHome, ".config"),
		"XDG_CACHE_HOME=" + filepath.Join(w.userHome, ".cache"),
		"XDG_STATE_HOME=" + filepath.Join(w.userHome, ".local", "state"),
		"LANG=C.UTF-8",
		"CLAWDCODE_HOME=" + w.home,
		"OPENAI_BASE_URL=" + w.srv.URL(),
		"OPENAI_API_KEY=" + w.key,
	}
	return append(env, w.extraEnv...)
}

// command is clawdcode with args, run in the project with w's environment
// and stdin at /dev/null (not a terminal).
func (w *world) command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Dir = w.project
	cmd.Env = w.env()
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

type result struct {
	stdout, stderr string
	code           int
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\n--- stdout\n%s--- stderr\n%s", r.code, r.stdout, r.stderr)
}

// run runs clawdcode to completion (bounded by runTimeout).
func (w *world) run(args ...string) result {
	w.t.Helper()
	return w.runIn(w.project, args...)
}

func (w *world) runIn(dir string, args ...string) result {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := w.command(ctx, args...)
	cmd.Dir = dir
	return wait(w.t, ctx, cmd)
}

func wait(t *testing.T, ctx context.Context, cmd *exec.Cmd) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := result{stdout: stdout.String(), stderr: stderr.String()}
	if ctx.Err() != nil {
		t.Fatalf("clawdcode %q did not finish within its deadline\n%s", cmd.Args[1:], r)
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	default:
		t.Fatalf("run clawdcode %q: %v", cmd.Args[1:], err)
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

// printJSON runs `clawdcode <args> --output-format json` and decodes the
// result object.
func (w *world) printJSON(args ...string) (resultObject, result) {
	w.t.Helper()
	r := w.run(append(args, "--output-format", "json")...)
	var obj resultObject
	if err := json.Unmarshal([]byte(strings.TrimSpace(r.stdout)), &obj); err != nil {
		w.t.Fatalf("clawdcode %q: stdout is not one result object: %v\n%s", args, err, r)
	}
	return obj, r
}

// resultObject is CONTRACT.md section 5.
type resultObject struct {
	Type        string `json:"type"`
	Subtype     string `json:"subtype"`
	IsError     bool   `json:"is_error"`
	Result      string `json:"result"`
	SessionID   string `json:"session_id"`
	NumTurns    int    `json:"num_turns"`
	Compactions int    `json:"compactions"`
}

// projectsDir is $CLAWDCODE_HOME/projects.
func (w *world) projectsDir() string { return filepath.Join(w.home, "projects") }

// sessionFiles maps session id → file for every session of every project.
func (w *world) sessionFiles() map[string]string {
	w.t.Helper()
	files := map[string]string{}
	matches, err := filepath.Glob(filepath.Join(w.projectsDir(), "*", "*.jsonl"))
	if err != nil {
		w.t.Fatal(err)
	}
	for _, m := range matches {
		files[strings.TrimSuffix(filepath.Base(m), ".jsonl")] = m
	}
	return files
}

// onlySession is the one session file there is; the test fails otherwise.
func (w *world) onlySession() (id, path string) {
	w.t.Helper()
	files := w.sessionFiles()
	if len(files) != 1 {
		w.t.Fatalf("want exactly one session file, have %d: %v", len(files), files)
	}
	for id, path := range files {
		return id, path
	}
	panic("unreachable")
}

// record is the part of a session record (CONTRACT.md section 4) the
// tests look at.
type record struct {
	UUID             string          `json:"uuid"`
	ParentUUID       *string         `json:"parentUuid"`
	SessionID        string          `json:"sessionId"`
	Timestamp        string          `json:"timestamp"`
	Type             string          `json:"type"`
	Subtype          string          `json:"subtype"`
	Cwd              string          `json:"cwd"`
	IsCompactSummary bool            `json:"isCompactSummary"`
	Message          *recordMessage  `json:"message"`
	Tool             *recordTool     `json:"tool"`
	ToolResult       *recordResult   `json:"toolResult"`
	CompactMetadata  json.RawMessage `json:"compactMetadata"`
}

type recordMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type recordTool struct {
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

type recordResult struct {
	ID     string `json:"id"`
	Output string `json:"output"`
	Error  string `json:"error"`
}

// parsedFile is a session file split into lines: the records of the lines
// that parse, and the numbers (1-based) of those that do not.
type parsedFile struct {
	records  []record
	bad      []int
	lines    int  // complete lines ('\n'-terminated)
	tornTail bool // bytes after the last '\n'
}

func parseSession(t *testing.T, path string) parsedFile {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return parseSessionBytes(data)
}

func parseSessionBytes(data []byte) parsedFile {
	var p parsedFile
	lines := bytes.Split(data, []byte("\n"))
	if last := lines[len(lines)-1]; len(last) == 0 {
		lines = lines[:len(lines)-1]
	} else {
		p.tornTail = true
	}
	p.lines = len(lines)
	if p.tornTail {
		p.lines--
	}
	for i, line := range lines {
		var r record
		if err := json.Unmarshal(line, &r); err != nil || r.UUID == "" || r.Type == "" {
			p.bad = append(p.bad, i+1)
			continue
		}
		p.records = append(p.records, r)
	}
	return p
}

// checkChain asserts the contract's invariants over a file's good records:
// one session id, unique uuids, each parentUuid naming an earlier record,
// every tool_result answering a tool_use, and each compaction summary
// right after its compact_boundary. (A boundary may lack its summary: a
// crash between the two appends leaves exactly that.)
func checkChain(t *testing.T, id string, recs []record) {
	t.Helper()
	seen := map[string]bool{}
	calls := map[string]bool{}
	for i, r := range recs {
		if r.SessionID != id {
			t.Errorf("record %d (%s): sessionId %q, want %q", i, r.UUID, r.SessionID, id)
		}
		if seen[r.UUID] {
			t.Errorf("record %d: uuid %s appears twice", i, r.UUID)
		}
		if i == 0 && r.ParentUUID != nil {
			t.Errorf("first record has parentUuid %q, want null", *r.ParentUUID)
		}
		if i > 0 && (r.ParentUUID == nil || !seen[*r.ParentUUID]) {
			t.Errorf("record %d (%s): parentUuid %v does not name an earlier record", i, r.UUID, r.ParentUUID)
		}
		seen[r.UUID] = true
		switch r.Type {
		case "tool_use":
			if r.Tool != nil {
				calls[r.Tool.ID] = true
			}
		case "tool_result":
			if r.ToolResult == nil || !calls[r.ToolResult.ID] {
				t.Errorf("record %d: tool_result %+v answers no earlier tool_use", i, r.ToolResult)
			}
		}
		if r.IsCompactSummary && (i == 0 || recs[i-1].Subtype != "compact_boundary") {
			t.Errorf("record %d: a compaction summary not right after a compact_boundary", i)
		}
	}
}

// tree lists every path under dir (relative, with its mode), for
// before/after comparisons.
func tree(t *testing.T, dir string) map[string]os.FileMode {
	t.Helper()
	out := map[string]os.FileMode{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, os.ErrPermission) {
				return nil
			}
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		info, err := d.Info()
		if err != nil {
			return nil
		}
		out[rel] = info.Mode()
		return nil
	})
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return out
}

// added lists the paths in after that are not in before, sorted.
func added(before, after map[string]os.FileMode) []string {
	var out []string
	for p := range after {
		if _, ok := before[p]; !ok {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// oneErrorLine asserts the contract's error shape: exactly one line
// starting "clawdcode: " that is not a warning, followed by at most a few
// hint lines. It returns that line.
func oneErrorLine(t *testing.T, r result) string {
	t.Helper()
	lines := strings.Split(strings.TrimRight(r.stderr, "\n"), "\n")
	idx := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "clawdcode: ") && !strings.HasPrefix(l, "clawdcode: warning:") {
			if idx >= 0 {
				t.Errorf("more than one \"clawdcode: \" error line on stderr\n%s", r)
			}
			idx = i
		}
	}
	if idx < 0 {
		t.Errorf("no \"clawdcode: \" error line on stderr\n%s", r)
		return ""
	}
	if hints := len(lines) - idx - 1; hints > 5 {
		t.Errorf("error followed by %d lines, want at most a few hints\n%s", hints, r)
	}
	return lines[idx]
}

// knownBug skips a test that demonstrates a reported bug in another
// package, unless E2E_KNOWN_BUGS=1 asks to see it fail. The message is
// the one-line description the report uses.
func knownBug(t *testing.T, description string) {
	t.Helper()
	if os.Getenv("E2E_KNOWN_BUGS") != "1" {
		t.Skip("BUG: " + description + " — see report (E2E_KNOWN_BUGS=1 runs it)")
	}
}
