//go:build unix

package repl

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/fixtures"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// A tmuxScreen is the real binary in a real terminal emulator (tmux), for
// what only a screen shows: wrapping, a spinner redrawn in place, what is
// left on screen after a resize. Each test has its own tmux server (its
// own -L socket), killed at cleanup.
type tmuxScreen struct {
	t       *testing.T
	socket  string
	dir     string // the project
	env     []string
	target  string
	started bool
	// pipe, when set, follows the command line: "| tee log" pipes stdout.
	pipe string
}

var tmuxSeq atomic.Int64

// needTmux skips a test when tmux cannot be had (.ci/run installs it).
func needTmux(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		fixtures.Missing(t, "tmux is not installed: the screen tests need it (apt-get install tmux; .ci/run does)")
	}
}

// startScreen runs clawdcode args in a fresh project against srv in a
// width×height tmux window.
func startScreen(t *testing.T, srv *llmtest.Server, width, height int, args ...string) *tmuxScreen {
	t.Helper()
	needTmux(t)
	tmp := t.TempDir()
	project := filepath.Join(tmp, "project")
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	s := &tmuxScreen{t: t, dir: project, env: []string{
		"HOME=" + tmp,
		"CLAWDCODE_HOME=" + filepath.Join(tmp, "home"),
		"OPENAI_BASE_URL=" + srv.URL(),
	}}
	s.start(width, height, args...)
	return s
}

// again runs the binary once more in the same project and home.
func (s *tmuxScreen) again(width, height int, args ...string) *tmuxScreen {
	s.t.Helper()
	s.kill()
	n := &tmuxScreen{t: s.t, dir: s.dir, env: s.env}
	n.start(width, height, args...)
	return n
}

func (s *tmuxScreen) start(width, height int, args ...string) {
	s.t.Helper()
	s.socket = fmt.Sprintf("clawdcode-test-%d-%d", os.Getpid(), tmuxSeq.Add(1))
	s.target = s.socket + ":0"
	bin := clawdcodeBinary(s.t)
	cmdline := "cd " + shellQuote(s.dir) + " && env"
	for _, e := range s.env {
		cmdline += " " + shellQuote(e)
	}
	cmdline += " " + shellQuote(bin)
	for _, a := range args {
		cmdline += " " + shellQuote(a)
	}
	if s.pipe != "" {
		cmdline += " " + s.pipe
	}
	// After the program ends the pane stays, so its last words can be read.
	cmdline += "; echo '[exited '$?']'; sleep 30"
	s.tmux("-f", "/dev/null", "new-session", "-d", "-s", s.socket, "-x", fmt.Sprint(width), "-y", fmt.Sprint(height),
		"env", "TERM=xterm-256color", "PATH="+os.Getenv("PATH"), "sh", "-c", cmdline)
	s.started = true
	s.t.Cleanup(s.kill)
}

// kill ends clawdcode as a user would (so it is done with its files
// before the test's directories are removed), then the tmux server.
func (s *tmuxScreen) kill() {
	if !s.started {
		return
	}
	s.started = false
	tmux := func(args ...string) ([]byte, error) {
		return exec.Command("tmux", append([]string{"-L", s.socket}, args...)...).Output()
	}
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		out, err := tmux("capture-pane", "-p", "-S", "-50", "-t", s.target)
		if err != nil || strings.Contains(string(out), "[exited ") {
			break
		}
		tmux("send-keys", "-t", s.target, "Escape", "C-c", "C-c", "C-d")
		time.Sleep(100 * time.Millisecond)
	}
	tmux("kill-server")
	// The server leaves its socket file behind; it is this test's.
	dir := os.Getenv("TMUX_TMPDIR")
	if dir == "" {
		dir = "/tmp"
	}
	os.Remove(filepath.Join(dir, fmt.Sprintf("tmux-%d", os.Getuid()), s.socket))
}

func (s *tmuxScreen) tmux(args ...string) string {
	s.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", s.socket}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// screen is what the pane shows now (with the scrollback), trailing
// blanks trimmed.
func (s *tmuxScreen) screen() string {
	s.t.Helper()
	out := s.tmux("capture-pane", "-p", "-J", "-S", "-200", "-t", s.target)
	lines := strings.Split(out, "\n")
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " ")
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n")
}

// visible is the pane as it shows now, without scrollback and unjoined.
func (s *tmuxScreen) visible() string {
	s.t.Helper()
	out := s.tmux("capture-pane", "-p", "-t", s.target)
	return strings.TrimRight(out, "\n ")
}

// waitFor waits until the screen holds want, and returns the screen.
func (s *tmuxScreen) waitFor(want string) string {
	s.t.Helper()
	deadline := time.Now().Add(waitLimit)
	for {
		scr := s.screen()
		if strings.Contains(scr, want) {
			return scr
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("screen never showed %q:\n%s", want, scr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// keys types literal text; special keys go through sendKeys.
func (s *tmuxScreen) keys(text string) {
	s.t.Helper()
	s.tmux("send-keys", "-t", s.target, "-l", text)
}

// sendKeys sends tmux key names (Enter, Escape, C-c, C-j, M-Enter…).
func (s *tmuxScreen) sendKeys(names ...string) {
	s.t.Helper()
	s.tmux(append([]string{"send-keys", "-t", s.target}, names...)...)
}

// paste pastes text as a terminal paste (bracketed when the program asked).
func (s *tmuxScreen) paste(text string) {
	s.t.Helper()
	buf := "p" + s.socket
	s.tmux("set-buffer", "-b", buf, text)
	s.tmux("paste-buffer", "-p", "-d", "-b", buf, "-t", s.target)
}

func (s *tmuxScreen) resize(width, height int) {
	s.t.Helper()
	s.tmux("resize-window", "-t", s.target, "-x", fmt.Sprint(width), "-y", fmt.Sprint(height))
}

// waitPrompt waits for the prompt of an idle REPL.
func (s *tmuxScreen) waitPrompt() string {
	s.t.Helper()
	deadline := time.Now().Add(waitLimit)
	for {
		scr := s.visible()
		lines := strings.Split(scr, "\n")
		// The idle editor: the prompt row, then the status line under it
		// (a "> " row of replayed conversation has no status line after it).
		// An empty prompt on the last row is idle too (a build without the
		// status line).
		if last := strings.TrimRight(lines[len(lines)-1], " "); last == strings.TrimSpace(promptMain) {
			return s.screen()
		}
		for i := len(lines) - 2; i >= 0 && i >= len(lines)-5; i-- {
			if (strings.HasPrefix(lines[i], promptMain) || lines[i] == strings.TrimSpace(promptMain)) &&
				(strings.Contains(lines[i+1], "ctx ") || strings.Contains(lines[i+1], "⏵⏵")) {
				return s.screen()
			}
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("no prompt:\n%s", scr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func TestScreenSmoke(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.Enqueue(llmtest.Text("hello **world**, a reply."))
	s := startScreen(t, srv, 80, 20)
	s.waitPrompt()
	s.keys("hi")
	s.sendKeys("Enter")
	s.waitFor("a reply.")
	t.Logf("\n%s", s.waitPrompt())
}
