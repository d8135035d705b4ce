package e2e

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/e2e/harness"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// toolResults are the contents of the tool messages of the model's last
// request.
func toolResults(w *world) []string {
	var out []string
	for _, m := range w.Server.LastRequest().Messages {
		if m.Role == chat.RoleTool {
			out = append(out, m.Content)
		}
	}
	return out
}

// TestBackgroundCommandEndsWithPrint: issue 26. A background command still
// running when -p finishes is killed with its whole group.
func TestBackgroundCommandEndsWithPrint(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	pidFile := filepath.Join(w.Project, "bg.pid")
	agent := llmtest.Agent()
	w.Server.SetResponder(func(r llmtest.Request) llmtest.Reply {
		if last := r.Messages[len(r.Messages)-1]; last.Role == chat.RoleTool {
			harness.WaitLine(pidFile, time.Minute) // the command runs before -p may end
		}
		return agent(r)
	})
	// Outside the sandbox's PID namespace, where $$ is the pid this test
	// can signal (TestSandboxCommandsEndWithClawdcode covers the inside).
	w.MustRun("-p", "--sandbox", "off", "--allowed-tools", "Bash", "bash-bg sleep 60 & echo $$ > bg.pid; wait")
	pgid, _ := strconv.Atoi(harness.WaitLine(pidFile, time.Second))
	if pgid == 0 {
		t.Fatal("the background command never ran")
	}
	defer syscall.Kill(-pgid, syscall.SIGKILL)
	if got := toolResults(w); len(got) != 1 || !strings.Contains(got[0], "id bash_1") {
		t.Fatalf("the Bash call did not return at once with an id: %q", got)
	}
	if !harness.GroupGone(pgid, time.Minute) {
		t.Fatalf("the background command's group %d outlived clawdcode -p", pgid)
	}
}

// TestBackgroundCommandEndsOnSignal: SIGTERM or SIGINT to -p while a
// background command runs: clawdcode exits as interrupted and the
// command's group is gone.
func TestBackgroundCommandEndsOnSignal(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, llmtest.Options{})
			pidFile := filepath.Join(w.Project, "bg.pid")
			started := make(chan struct{}, 1)
			w.Server.SetResponder(func(r llmtest.Request) llmtest.Reply {
				if last := r.Messages[len(r.Messages)-1]; last.Role == chat.RoleTool {
					started <- struct{}{}
					return llmtest.Reply{Text: "late", Delay: time.Hour}
				}
				return llmtest.Agent()(r)
			})
			ctx, cancel := context.WithTimeout(context.Background(), w.Timeout)
			defer cancel()
			// --sandbox off: $$ is then this test's pid to check.
			cmd := w.Command(ctx, "-p", "--sandbox", "off", "--allowed-tools", "Bash", "bash-bg sleep 60 & echo $$ > bg.pid; wait")
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			select {
			case <-started:
			case <-ctx.Done():
				t.Fatal("the background command's id never reached the model")
			}
			pgid, _ := strconv.Atoi(harness.WaitLine(pidFile, time.Minute))
			if pgid == 0 {
				t.Fatal("the background command never ran")
			}
			defer syscall.Kill(-pgid, syscall.SIGKILL)
			cmd.Process.Signal(sig)
			err := cmd.Wait()
			if code := cmd.ProcessState.ExitCode(); code != 130 {
				t.Errorf("exit %d (%v) after %s, want 130:\n%s", code, err, sig, out.String())
			}
			if !harness.GroupGone(pgid, time.Minute) {
				t.Fatalf("the background command's group %d outlived clawdcode after %s", pgid, sig)
			}
		})
	}
}

// TestBackgroundOutputIsBounded: a background command that printed 3 MB
// before anyone read it: BashOutput answers with the end of what is kept,
// after the omission marker that says how much the 1 MiB bound dropped.
func TestBackgroundOutputIsBounded(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	done := filepath.Join(w.Project, "wrote")
	const size = 3_000_000
	// The marker file comes after the last line: the first read waits for
	// all of the output, not for a moment between its last two writes
	// (where a loaded machine once put it, and the last line came in a
	// read of its own).
	script := fmt.Sprintf("head -c %d /dev/zero | tr '\\0' a; echo last; echo > wrote", size)
	w.Server.SetResponder(func(r llmtest.Request) llmtest.Reply {
		msgs := toolMessages(r)
		switch {
		case len(msgs) == 0:
			return llmtest.Agent()(r) // the bash-bg line
		case len(msgs) == 1:
			harness.WaitLine(done, time.Minute) // the 3 MB and the last line are written
		case strings.Contains(msgs[len(msgs)-1].Content, ": ended ("):
			return llmtest.Text("read")
		}
		return llmtest.ToolCalls(llmtest.Call("BashOutput", `{"bash_id":"bash_1"}`))
	})
	w.MustRun("-p", "--allowed-tools", "Bash", "bash-bg "+script)
	got := toolResults(w)
	if len(got) < 2 {
		t.Fatalf("tool results %q", got)
	}
	for _, out := range got[1:] {
		if len(out) > 31000 {
			t.Errorf("one BashOutput answered %d bytes", len(out))
		}
	}
	// The first read: everything written by then but the last MiB was
	// dropped unread, and the marker says exactly how much. "By then" is
	// after the marker file, but the last few hundred KB may still be in
	// the pipes between the command and clawdcode (the sandbox host
	// relays them), so the count is bounded below, not exact.
	var total int
	if _, err := fmt.Sscanf(got[1][strings.Index(got[1], ", ")+2:], "%d bytes of output in all", &total); err != nil || total < size-(1<<20) {
		t.Fatalf("first read (%v): %.200s", err, got[1])
	}
	if want := fmt.Sprintf("[... %d bytes (0 lines) omitted ...]", total-(1<<20)); !strings.Contains(got[1], want) {
		t.Errorf("first read lacks %q:\n%.300s", want, got[1])
	}
	// The reads' outputs, each after its state line, join into the
	// command's output: the last line follows the a's, in whichever read.
	var outputs strings.Builder
	for _, out := range got[1:] {
		_, text, _ := strings.Cut(out, "\n")
		outputs.WriteString(text)
	}
	if all := outputs.String(); !strings.Contains(all, "aaaalast\n") {
		t.Errorf("the last line never came: %.300s", all[max(0, len(all)-300):])
	}
}

func toolMessages(r llmtest.Request) []chat.Message {
	var out []chat.Message
	for _, m := range r.Messages {
		if m.Role == chat.RoleTool {
			out = append(out, m)
		}
	}
	return out
}
