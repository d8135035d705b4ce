package harness

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/llmtest"
	"github.com/clawdcode/clawdcode/internal/sessionschema"
)

// World is one isolated user of the binary: a HOME, a TMPDIR, a
// CLAWDCODE_HOME and a project directory, all under one temporary
// directory of the test, so that no run can see the developer's own home
// or sessions, nor another test's. Its runs go to its own fake
// chat-completions server. A World belongs to one test; its runs may be
// concurrent, but its fields are not to change while they are.
type World struct {
	T      *testing.T
	Server *llmtest.Server

	Root     string // the test's temporary directory, holding the rest
	Home     string // CLAWDCODE_HOME, left for clawdcode to create
	UserHome string // HOME
	Tmp      string // TMPDIR
	Project  string // where a run starts unless a test says otherwise

	Binary  string        // the clawdcode executable
	Key     string        // OPENAI_API_KEY
	Timeout time.Duration // bounds each of Run, RunIn, MustRun and RunJSON
	// ExtraEnv is appended to every run's environment.
	ExtraEnv []string

	mu        sync.Mutex
	unchecked map[string]int64 // files SkipRecordCheck exempts
}

// RunTimeout is a World's Timeout unless the test changes it: a safety
// net for a hung process, never a measure of speed. It is far beyond what
// any run needs on a loaded 2-core machine (a 45 s limit failed a large
// import there), and well inside the package's -timeout in the Makefile,
// so that a hung process fails its own test rather than the whole
// package's deadline.
const RunTimeout = 5 * time.Minute

// NewWorld lays out a World under t.TempDir(), with a server started with
// opts, for runs of the binary Main built. Its Key is "test" until the
// caller says otherwise.
func NewWorld(t *testing.T, opts llmtest.Options) *World {
	t.Helper()
	if binary == "" {
		t.Fatal("no clawdcode binary: the package's TestMain must be harness.Main")
	}
	root := t.TempDir()
	w := &World{
		T:        t,
		Root:     root,
		Home:     filepath.Join(root, "clawdhome"),
		UserHome: filepath.Join(root, "userhome"),
		Tmp:      filepath.Join(root, "tmp"),
		Project:  filepath.Join(root, "project"),
		Binary:   binary,
		Key:      "test",
		Timeout:  RunTimeout,
	}
	for _, d := range []string{w.UserHome, w.Tmp, w.Project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// After TempDir, so that it runs before the directories are removed.
	t.Cleanup(w.checkRecords)
	// After TempDir, so that the server is closed before the directories
	// are removed.
	w.Server = llmtest.NewServer(t, opts)
	return w
}

// checkRecords holds every session file the test leaves in Home to the
// format's schema (docs/session.schema.json), so that a record written
// with an undocumented type, subtype or field, or a value of the wrong
// type, fails the test that made the binary write it. Lines that are not
// JSON are damage the test made, and are left alone.
func (w *World) checkRecords() {
	w.mu.Lock()
	defer w.mu.Unlock()
	sessionschema.CheckHome(w.T, w.Home, w.unchecked)
}

// SkipRecordCheck exempts the file at path from the schema check at the
// end of the test: for a file the test wrote that is not clawdcode's
// (valid JSON that is no record).
func (w *World) SkipRecordCheck(path string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.unchecked == nil {
		w.unchecked = map[string]int64{}
	}
	w.unchecked[path] = math.MaxInt64
}

// Env is a minimal environment: nothing from the developer's shell that
// could point clawdcode at a real home, model or endpoint (PATH stays, for
// the tools clawdcode runs), then ExtraEnv.
func (w *World) Env() []string {
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + w.UserHome,
		"TMPDIR=" + w.Tmp,
		"XDG_CONFIG_HOME=" + filepath.Join(w.UserHome, ".config"),
		"XDG_CACHE_HOME=" + filepath.Join(w.UserHome, ".cache"),
		"XDG_STATE_HOME=" + filepath.Join(w.UserHome, ".local", "state"),
		"LANG=C.UTF-8",
		"CLAWDCODE_HOME=" + w.Home,
		"OPENAI_BASE_URL=" + w.Server.URL(),
		"OPENAI_API_KEY=" + w.Key,
	}
	return append(env, w.ExtraEnv...)
}

// Command is clawdcode with args, run in the project with w's environment
// and stdin at /dev/null (not a terminal).
func (w *World) Command(ctx context.Context, args ...string) *exec.Cmd {
	return Command(ctx, w.Binary, w.Project, w.Env(), args...)
}

// Run runs clawdcode in the project to completion (bounded by Timeout).
func (w *World) Run(args ...string) Result {
	w.T.Helper()
	return w.RunIn(w.Project, args...)
}

// RunIn is Run started in dir.
func (w *World) RunIn(dir string, args ...string) Result {
	w.T.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), w.Timeout)
	defer cancel()
	cmd := w.Command(ctx, args...)
	cmd.Dir = dir
	return Wait(w.T, ctx, cmd)
}

// MustRun is Run that fails the test unless clawdcode exits 0.
func (w *World) MustRun(args ...string) Result {
	w.T.Helper()
	r := w.Run(args...)
	if r.Code != 0 {
		w.T.Fatalf("clawdcode %q: want exit 0\n%s", args, r)
	}
	return r
}

// RunJSON runs `clawdcode <args> --output-format json` and decodes the one
// result object it prints into v; the test fails if stdout is not that.
func (w *World) RunJSON(v any, args ...string) Result {
	w.T.Helper()
	r := w.Run(append(args, "--output-format", "json")...)
	if err := json.Unmarshal([]byte(strings.TrimSpace(r.Stdout)), v); err != nil {
		w.T.Fatalf("clawdcode %q: stdout is not one result object: %v\n%s", args, err, r)
	}
	return r
}
