//go:build unix

package repl

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// The real clawdcode binary, built once per test run on first use.
var built struct {
	once sync.Once
	dir  string
	path string
	err  error
}

func clawdcodeBinary(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		gomod, err := exec.Command("go", "env", "GOMOD").Output()
		if err != nil {
			built.err = err
			return
		}
		root := filepath.Dir(strings.TrimSpace(string(gomod)))
		if built.dir, built.err = os.MkdirTemp("", "clawdcode-repl-test-"); built.err != nil {
			return
		}
		built.path = filepath.Join(built.dir, "clawdcode")
		cmd := exec.Command("go", "build", "-o", built.path, "./cmd/clawdcode")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			built.err = &buildError{err: err, out: string(out)}
		}
	})
	if built.err != nil {
		t.Fatalf("build clawdcode: %v", built.err)
	}
	return built.path
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return e.err.Error() + "\n" + e.out }

func removeBuiltBinary() {
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
}

// startClawdcode runs the real binary in a fresh project and home, talking
// to srv, under a pty.
func startClawdcode(t *testing.T, srv *llmtest.Server, args ...string) *terminal {
	t.Helper()
	bin := clawdcodeBinary(t)
	tmp := t.TempDir()
	home, project := filepath.Join(tmp, "home"), filepath.Join(tmp, "project")
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = project
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + tmp,
		"TERM=xterm",
		"CLAWDCODE_HOME=" + home,
		"OPENAI_BASE_URL=" + srv.URL(),
	}
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
