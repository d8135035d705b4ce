//go:build unix

package repl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/clawdcode/clawdcode/internal/iostreams"
)

// Under a pty the REPL runs as a separate process, as a user would run it:
// either this test binary re-executed as a harness (the REPL over the fake
// engine, so every terminal path is tested without a model) or the real
// clawdcode binary against an in-test chat-completions server.

const (
	harnessEnv = "CLAWDCODE_REPL_TEST_HARNESS"
	// waitLimit bounds every wait for something on the terminal. Tests wait
	// for the event itself; this only catches a hang, so it is far above
	// what a loaded 2-core machine needs (10 s was exhausted there).
	waitLimit = 60 * time.Second
)

func TestMain(m *testing.M) {
	if os.Getenv(harnessEnv) == "1" {
		os.Exit(harnessMain())
	}
	code := m.Run()
	removeBuiltBinary()
	os.Exit(code)
}

// harnessMain is the REPL over the fake engine on the process's real streams.
func harnessMain() int {
	ios := iostreams.System()
	asker := NewAsker(ios)
	eng := &fakeEngine{asker: asker}
	err := Run(context.Background(), Options{
		IO:          ios,
		Asker:       asker,
		Turns:       eng,
		Parts:       fakeParts(),
		Commands:    &fakeCommands{},
		HistoryPath: os.Getenv("CLAWDCODE_REPL_TEST_HISTORY"),
		FirstPrompt: os.Getenv("CLAWDCODE_REPL_TEST_FIRST"),
	})
	if err != nil {
		fmt.Fprintln(ios.ErrOut, "harness:", err)
		return 1
	}
	return 0
}

// terminal is a process on the far side of a pty, with its output
// collected and searchable with deadlines.
type terminal struct {
	t    *testing.T
	ptmx *os.File
	cmd  *exec.Cmd

	mu   sync.Mutex
	raw  bytes.Buffer
	grew chan struct{} // closed and replaced whenever raw grows
	// clean is raw[:cleaned] as output shows it, kept as raw grows: the
	// whole of raw cleaned again on every read made a test that types a
	// few thousand keys (each redrawing its line) quadratic in its output,
	// a minute of CPU under -race.
	clean   strings.Builder
	cleaned int
	seen    int // offset in the cleaned output already matched
	exited  chan struct{}
	err     error // cmd.Wait's, once exited is closed
}

func startTerminal(t *testing.T, cmd *exec.Cmd) *terminal {
	t.Helper()
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 160})
	if err != nil {
		t.Fatalf("start under a pty: %v", err)
	}
	term := &terminal{t: t, ptmx: ptmx, cmd: cmd, grew: make(chan struct{}), exited: make(chan struct{})}
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		buf := make([]byte, 4096)
		for {
			n, err := ptmx.Read(buf)
			term.mu.Lock()
			term.raw.Write(buf[:n])
			close(term.grew)
			term.grew = make(chan struct{})
			term.mu.Unlock()
			if err != nil {
				return // EIO once the child is gone and its output drained
			}
		}
	}()
	go func() {
		err := cmd.Wait()
		<-readDone // the output is complete before anyone sees the exit
		term.mu.Lock()
		term.err = err
		term.mu.Unlock()
		close(term.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-term.exited:
		default:
			cmd.Process.Kill()
			<-term.exited
		}
		ptmx.Close()
	})
	return term
}

var ansiSequence = regexp.MustCompile(`\x1b(\[[0-9;?]*[ -/]*[@-~]|\][^\x07]*\x07|[()][0-9A-Za-z]|[=>])`)

// output is what a person would read: escapes and carriage returns removed.
// What arrived since the last call is cleaned on its own, but for an
// escape sequence not yet whole at its end, which waits for the rest.
func (term *terminal) output() string {
	term.mu.Lock()
	defer term.mu.Unlock()
	fresh := term.raw.Bytes()[term.cleaned:]
	if esc := bytes.LastIndexByte(fresh, 0x1b); esc >= 0 {
		if loc := ansiSequence.FindIndex(fresh[esc:]); loc == nil || loc[0] != 0 {
			fresh = fresh[:esc] // maybe the start of a sequence still arriving
		}
	}
	term.cleaned += len(fresh)
	term.clean.WriteString(strings.ReplaceAll(ansiSequence.ReplaceAllString(string(fresh), ""), "\r", ""))
	return term.clean.String()
}

// expect waits until want appears after everything matched before.
func (term *terminal) expect(want string) {
	term.t.Helper()
	deadline := time.After(waitLimit)
	for {
		term.mu.Lock()
		grew := term.grew
		term.mu.Unlock()
		out := term.output()
		if i := strings.Index(out[term.seen:], want); i >= 0 {
			term.seen += i + len(want)
			return
		}
		select {
		case <-grew:
		case <-deadline:
			term.t.Fatalf("waited %v for %q; output after the last match:\n%s", waitLimit, want, out[term.seen:])
		}
	}
}

// expectPrompt waits for a fresh prompt: one at the start of a line. The
// line editor redraws the prompt line on every key, but a redraw follows
// the text of that line, never a newline.
func (term *terminal) expectPrompt() {
	term.t.Helper()
	term.expect("\n" + promptMain)
}

func (term *terminal) send(keys string) {
	term.t.Helper()
	if _, err := term.ptmx.WriteString(keys); err != nil {
		term.t.Fatalf("type %q: %v", keys, err)
	}
}

// wait returns the exit code once the process has ended.
func (term *terminal) wait() int {
	term.t.Helper()
	select {
	case <-term.exited:
	case <-time.After(waitLimit):
		term.t.Fatalf("still running after %v; output:\n%s", waitLimit, term.output())
	}
	var exit *exec.ExitError
	switch {
	case term.err == nil:
		return 0
	case errors.As(term.err, &exit):
		return exit.ExitCode()
	}
	term.t.Fatalf("wait: %v", term.err)
	return -1
}

func startHarness(t *testing.T, env ...string) *terminal {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	// GORACE: a race-enabled harness otherwise sleeps a second at exit.
	cmd.Env = append(os.Environ(), harnessEnv+"=1", "TERM=xterm", "GORACE=atexit_sleep_ms=0")
	cmd.Env = append(cmd.Env, env...)
	return startTerminal(t, cmd)
}

func TestTerminalPromptStreamsAnswer(t *testing.T) {
	t.Parallel()
	term := startHarness(t)
	term.expect("fake-model · new session")
	term.expectPrompt()
	term.send("hello there\r")
	term.expect("you said: hello there")
	term.expectPrompt()
	term.send("md\r")
	term.expect("┌─── go") // a fence, rendered
	term.expect("• a b")   // bullet and bold, markers gone
	term.expectPrompt()
	term.send("\x04")
	if code := term.wait(); code != 0 {
		t.Fatalf("Ctrl-D: exit %d", code)
	}
}

func TestTerminalSlashCommandAndPicker(t *testing.T) {
	t.Parallel()
	term := startHarness(t)
	term.expectPrompt()
	term.send("/he\t\r") // Tab completes the command name
	term.expect("commands: /help /exit")
	term.expectPrompt()
	term.send("/resume\r")
	term.expect("Resume a session")
	term.expect("bbbb2222")
	term.send("\x1b[B\r") // the arrow moves to the second, Enter picks it
	term.expect(`picked "bbbb2222-0000"`)
	term.expectPrompt()
	term.send("/resume\r")
	term.expect("Resume a session")
	term.send("sec\r") // typing filters
	term.expect(`picked "bbbb2222-0000"`)
	term.expectPrompt()
	term.send("/exit\r")
	if code := term.wait(); code != 0 {
		t.Fatalf("/exit: exit %d", code)
	}
}

func TestTerminalCtrlCCancelsTurnOnly(t *testing.T) {
	t.Parallel()
	term := startHarness(t)
	term.expectPrompt()
	term.send("slow please\r")
	term.expect("thinking slowly")
	term.send("\x03")
	term.expect("interrupted")
	term.expectPrompt()
	term.send("still here?\r")
	term.expect("you said: still here?")
	term.expectPrompt()
	// A slash command is an entry like a turn: Ctrl-C cancels just it.
	term.send("/wait\r")
	term.expect("waiting for Ctrl-C")
	term.send("\x03")
	term.expect("interrupted")
	term.expectPrompt()
	// At an empty prompt: a hint first, then a second Ctrl-C leaves.
	term.send("\x03")
	term.expect("press Ctrl-C again or Ctrl-D to exit")
	term.expectPrompt()
	term.send("\x03")
	if code := term.wait(); code != 0 {
		t.Fatalf("second Ctrl-C: exit %d", code)
	}
}

func TestTerminalCtrlCClearsTypedLine(t *testing.T) {
	t.Parallel()
	term := startHarness(t)
	term.expectPrompt()
	term.send("half typed")
	term.expect("half typed")
	term.send("\x03")
	term.expectPrompt()
	term.send("\x03") // the first Ctrl-C at an empty prompt: only a hint
	term.expect("press Ctrl-C again")
	term.expectPrompt()
	term.send("after\r")
	term.expect("you said: after")
	term.expectPrompt()
	term.send("\x04")
	if code := term.wait(); code != 0 {
		t.Fatalf("exit %d", code)
	}
}

func TestTerminalPermissionPrompt(t *testing.T) {
	t.Parallel()
	term := startHarness(t)
	term.expectPrompt()
	term.send("write a file\r")
	term.expect("Write(a.txt)")
	term.expect("+ two")
	term.expect("❯ 1. Yes")
	term.expect("3. No, tell the model to do something else (esc)")
	term.send("a") // one key, no Enter
	term.expect("decision=always")
	term.expectPrompt()
	// The default is marked and Enter takes it; Esc says no.
	term.send("write a file\r")
	term.expect("❯ 1. Yes")
	term.send("\r")
	term.expect("decision=once")
	term.expectPrompt()
	term.send("write a file\r")
	term.expect("❯ 1. Yes")
	term.send("\x1b")
	term.expect("decision=deny")
	term.expectPrompt()
	// Ctrl-C at the permission prompt cancels the turn, not the REPL.
	term.send("write again\r")
	term.expect("1. Yes")
	term.send("\x03")
	term.expect("interrupted")
	term.expectPrompt()
	term.send("\x04")
	if code := term.wait(); code != 0 {
		t.Fatalf("exit %d", code)
	}
}

func TestTerminalHistory(t *testing.T) {
	t.Parallel()
	hist := t.TempDir() + "/home/history"
	term := startHarness(t, "CLAWDCODE_REPL_TEST_HISTORY="+hist)
	term.expectPrompt()
	term.send("first entry\r")
	term.expect("you said: first entry")
	term.expectPrompt()
	term.send("first entry\r") // the same again is not stored twice
	term.expect("you said: first entry")
	term.expectPrompt()
	term.send("\x04")
	if code := term.wait(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	data, err := os.ReadFile(hist)
	if err != nil || string(data) != "first entry\n" {
		t.Fatalf("history file %q, %v", data, err)
	}
	if fi, _ := os.Stat(hist); fi.Mode().Perm() != 0o600 {
		t.Fatalf("history mode %v", fi.Mode().Perm())
	}

	// A new session recalls it with the up arrow.
	term = startHarness(t, "CLAWDCODE_REPL_TEST_HISTORY="+hist)
	term.expectPrompt()
	term.send("\x1b[A\r")
	term.expect("you said: first entry")
	term.expectPrompt()
	term.send("\x04")
	term.wait()
}

func TestTerminalFirstPrompt(t *testing.T) {
	t.Parallel()
	term := startHarness(t, "CLAWDCODE_REPL_TEST_FIRST=from the command line")
	term.expect("you said: from the command line")
	term.expectPrompt()
	term.send("\x04")
	if code := term.wait(); code != 0 {
		t.Fatalf("exit %d", code)
	}
}

func TestTerminalHistorySearch(t *testing.T) {
	t.Parallel()
	term := startHarness(t)
	term.expectPrompt()
	term.send("deploy the staging box\r")
	term.expect("you said: deploy the staging box")
	term.expectPrompt()
	term.send("something else\r")
	term.expect("you said: something else")
	term.expectPrompt()
	term.send("\x12stag") // Ctrl-R, then the query
	term.expect("reverse search: stag")
	term.send("\r\r") // Enter takes the match, Enter sends it
	term.expect("you said: deploy the staging box")
	term.expectPrompt()
	term.send("\x04")
	if code := term.wait(); code != 0 {
		t.Fatalf("exit %d", code)
	}
}
