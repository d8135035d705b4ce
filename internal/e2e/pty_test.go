package e2e

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/clawdcode/clawdcode/internal/e2e/harness"
)

// terminal is clawdcode's REPL under a pseudo-terminal, for the few tests
// that need the interactive front end (its history file).
type terminal struct {
	t      *testing.T
	ptmx   *os.File
	mu     sync.Mutex
	out    bytes.Buffer
	seen   int
	exited chan struct{}
	err    error
}

// startREPL starts cmd under a pty; the process is killed at the end of
// the test if it is still running (cmd's own context bounds it too).
func (w *world) startREPL(cmd *exec.Cmd) *terminal {
	w.T.Helper()
	cmd.Env = append(cmd.Env, "TERM=dumb")
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 160})
	if err != nil {
		w.T.Skipf("no pseudo-terminal here: %v", err)
	}
	term := &terminal{t: w.T, ptmx: ptmx, exited: make(chan struct{})}
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		buf := make([]byte, 4096)
		for {
			n, err := ptmx.Read(buf)
			term.mu.Lock()
			term.out.Write(buf[:n])
			term.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	go func() {
		err := cmd.Wait()
		<-readDone
		term.mu.Lock()
		term.err = err
		term.mu.Unlock()
		close(term.exited)
	}()
	w.T.Cleanup(func() {
		select {
		case <-term.exited:
		default:
			_ = cmd.Process.Kill()
			<-term.exited
		}
		ptmx.Close()
	})
	return term
}

// expect polls until want appears after the previous match.
func (term *terminal) expect(want string) {
	term.t.Helper()
	deadline := time.Now().Add(harness.RunTimeout)
	for time.Now().Before(deadline) {
		term.mu.Lock()
		out := term.out.String()
		term.mu.Unlock()
		if i := strings.Index(out[term.seen:], want); i >= 0 {
			term.seen += i + len(want)
			return
		}
		select {
		case <-term.exited:
			term.mu.Lock()
			out = term.out.String()
			term.mu.Unlock()
			if strings.Contains(out[term.seen:], want) {
				continue
			}
			term.t.Fatalf("the REPL exited before printing %q:\n%s", want, out)
		case <-time.After(10 * time.Millisecond):
		}
	}
	term.t.Fatalf("waited %v for %q", harness.RunTimeout, want)
}

func (term *terminal) send(keys string) {
	term.t.Helper()
	if _, err := term.ptmx.WriteString(keys); err != nil {
		term.t.Fatalf("type %q: %v", keys, err)
	}
}

func (term *terminal) wait() int {
	term.t.Helper()
	select {
	case <-term.exited:
	case <-time.After(harness.RunTimeout):
		term.t.Fatalf("the REPL is still running after %v", harness.RunTimeout)
	}
	var ee *exec.ExitError
	if errors.As(term.err, &ee) {
		return ee.ExitCode()
	}
	if term.err != nil {
		term.t.Fatalf("wait: %v", term.err)
	}
	return 0
}
