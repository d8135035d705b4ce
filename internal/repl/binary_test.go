//go:build unix

package repl

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/e2e/harness"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// The real clawdcode binary, built once per test run on first use.
var built struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// Under -short (make test-short) the tests that run it skip: building
// and driving it is the end-to-end part of this package; make test runs it.
func clawdcodeBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("drives the built binary; skipped under -short")
	}
	path, err := buildOnce()
	if err != nil {
		t.Fatalf("build clawdcode: %v", err)
	}
	return path
}

// buildOnce builds the binary the first time a test or benchmark needs it;
// harness.TestBinaryEnv runs them against another build instead (an older
// one, to see which of these tests it fails).
func buildOnce() (string, error) {
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "clawdcode-repl-test-"); built.err != nil {
			return
		}
		built.path, built.err = harness.BuildBinary(built.dir)
	})
	return built.path, built.err
}

func removeBuiltBinary() {
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	harness.RemoveSlowMCPServer()
}

// startClawdcode runs the real binary in a fresh project and home, talking
// to srv, under a pty.
func startClawdcode(t *testing.T, srv *llmtest.Server, args ...string) *terminal {
	t.Helper()
	tmp := t.TempDir()
	project := filepath.Join(tmp, "project")
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	return startClawdcodeIn(t, srv, project, clawdcodeEnv(tmp, srv), args...)
}

// clawdcodeEnv is the environment of a run with its home under tmp.
func clawdcodeEnv(tmp string, srv *llmtest.Server) []string {
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + tmp,
		"TERM=xterm",
		"CLAWDCODE_HOME=" + filepath.Join(tmp, "home"),
		"OPENAI_BASE_URL=" + srv.URL(),
	}
}

// startClawdcodeIn runs the binary again in an existing project and home.
func startClawdcodeIn(t *testing.T, srv *llmtest.Server, dir string, env []string, args ...string) *terminal {
	t.Helper()
	cmd := exec.Command(clawdcodeBinary(t), args...)
	cmd.Dir, cmd.Env = dir, env
	return startTerminal(t, cmd)
}

func TestClawdcodeTypedPrompt(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.Enqueue(llmtest.Text("The answer is **forty-two**, as `expected`.\n\nDone."))
	term := startClawdcode(t, srv)
	term.expect("new session")
	term.expectPrompt()
	term.send("what is the answer?\r")
	term.expect("The answer is forty-two, as expected.")
	term.expect("Done.")
	term.expectPrompt()
	if got := srv.LastRequest().Messages; len(got) == 0 || got[len(got)-1].Content != "what is the answer?" {
		t.Fatalf("the server did not get the typed prompt: %+v", got)
	}
	term.send("\x04")
	if code := term.wait(); code != 0 {
		t.Fatalf("Ctrl-D: exit %d", code)
	}
}

func TestClawdcodeSlashHelp(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	term := startClawdcode(t, srv)
	term.expectPrompt()
	term.send("/help\r")
	term.expect("Commands:")
	term.expectPrompt()
	help := term.output()
	for _, name := range []string{"/new", "/switch", "/sessions", "/resume", "/clear", "/context", "/compact", "/model", "/cost", "/exit"} {
		if !strings.Contains(help, "  "+name) {
			t.Errorf("/help does not list %s:\n%s", name, help)
		}
	}
	term.send("/exit\r")
	if code := term.wait(); code != 0 {
		t.Fatalf("/exit: exit %d", code)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("slash commands reached the model: %d requests", n)
	}
}

func TestClawdcodeCtrlCDuringTurn(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.Enqueue(llmtest.Hang(), llmtest.Text("back again"))
	term := startClawdcode(t, srv)
	term.expectPrompt()
	term.send("take your time\r")
	term.expect("thinking…") // the spinner: the turn is running and owns Ctrl-C
	// The spinner starts before the request is sent: a Ctrl-C then would
	// cancel the turn before the server took the hanging reply, and the
	// next message would get it instead of "back again".
	waitUntil(t, "the server to take the hanging reply", func() bool { return srv.Pending() == 1 })
	term.send("\x03")
	term.expect("interrupted")
	term.expectPrompt()
	term.send("are you there?\r")
	term.expect("back again")
	term.expectPrompt()
	term.send("\x04")
	if code := term.wait(); code != 0 {
		t.Fatalf("Ctrl-D after an interrupted turn: exit %d", code)
	}
}

// waitUntil polls cond until it holds, failing the test after waitLimit.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(waitLimit); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func TestClawdcodeToolRoundTripWithPermission(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.Enqueue(
		llmtest.ToolCalls(llmtest.Call("Write", `{"file_path":"hello.txt","content":"hi there\n"}`)),
		llmtest.Text("I wrote hello.txt."),
	)
	term := startClawdcode(t, srv)
	term.expectPrompt()
	term.send("write hello.txt\r")
	term.expect("hello.txt")
	term.expect("1 + hi there") // the diff the call would make
	term.expect("❯ 1. Yes")
	term.send("y")
	term.expect("⏺ Write(hello.txt)")
	term.expect("⎿  Created with 1 line")
	term.expect("1 + hi there") // the diff it made
	term.expect("I wrote hello.txt.")
	term.expectPrompt()
	t.Logf("%s", term.output())
	term.send("\x04")
	if code := term.wait(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	data, err := os.ReadFile(filepath.Join(term.cmd.Dir, "hello.txt"))
	if err != nil || string(data) != "hi there\n" {
		t.Fatalf("hello.txt = %q, %v", data, err)
	}
}

// Near the auto-compaction trigger the REPL says how much is left. The
// window is chosen from what /context reports, so the test does not depend
// on the size of the system prompt or the tool definitions.
func TestClawdcodeWarnsNearAutoCompact(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.Enqueue(llmtest.Text("first answer"), llmtest.Text("second answer"))
	term := startClawdcode(t, srv)
	term.expectPrompt()
	term.send("hello\r")
	term.expect("first answer")
	term.expectPrompt()
	if strings.Contains(term.output(), "auto-compact") {
		t.Fatalf("warned far from the trigger:\n%s", term.output())
	}
	term.send("/context\r")
	term.expect("Context usage: ~")
	term.expectPrompt()
	var tokens, window int
	usage := term.output()[strings.LastIndex(term.output(), "Context usage: ~"):]
	if _, err := fmt.Sscanf(usage, "Context usage: ~%d / %d tokens", &tokens, &window); err != nil || tokens == 0 {
		t.Fatalf("cannot read /context (%v):\n%s", err, usage)
	}
	term.send("\x04")
	term.wait()

	// Resume with a window whose trigger (80%) the context is 90% of.
	small := int(float64(tokens) / 0.8 / 0.9)
	term = startClawdcodeIn(t, srv, term.cmd.Dir, term.cmd.Env, "-c", "--context-window", strconv.Itoa(small))
	term.expectPrompt()
	term.send("again\r")
	term.expect("second answer")
	term.expect("context left until auto-compact: ")
	term.expectPrompt()
	term.send("\x04")
	if code := term.wait(); code != 0 {
		t.Fatalf("exit %d", code)
	}
}
