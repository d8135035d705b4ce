package e2e

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// TestSandboxHostStartsWhileTheCallStreams: issue 32's budget for the
// first sandboxed command. The run's sandbox host starts as soon as the
// model's reply names a Bash call, while the call's arguments are still
// streaming (the server holds them until the host is there), so that the
// command does not wait for it; the command then runs. A reply that calls
// another tool starts no host while it streams.
func TestSandboxHostStartsWhileTheCallStreams(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		tool, args string
		host       bool
	}{
		{"Bash", `{"command": "echo ran inside"}`, true},
		{"Read", `{"file_path": "README"}`, false},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, llmtest.Options{})
			if err := os.WriteFile(w.Project+"/README", []byte("read me\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			held := make(chan struct{})
			resume := make(chan struct{})
			w.Server.SetResponder(func(r llmtest.Request) llmtest.Reply {
				if last := r.Messages[len(r.Messages)-1]; last.Role == chat.RoleUser {
					reply := llmtest.ToolCalls(llmtest.Call(tc.tool, tc.args))
					// Chunk 0 opens the reply, chunk 1 names the call; the
					// arguments wait.
					reply.PauseAfter, reply.Resume = 2, resume
					close(held)
					return reply
				}
				return llmtest.Text("done")
			})
			ctx, cancel := context.WithTimeout(context.Background(), w.Timeout)
			defer cancel()
			cmd := w.Command(ctx, "-p", "--permission-mode", "acceptEdits", "go")
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Wait()
			<-held
			// With a host to expect, wait for it while the reply is held
			// (the run's time limit is the net); without, look a hundred
			// times, long after a host would have been seen.
			var hosts []int
			for i := 0; (tc.host && ctx.Err() == nil) || (!tc.host && i < 100); i++ {
				if hosts = sandboxHosts(cmd.Process.Pid); len(hosts) > 0 {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			if (len(hosts) > 0) != tc.host {
				t.Errorf("while a %s call streamed: sandbox hosts %v, want some: %v", tc.tool, hosts, tc.host)
			}
			close(resume)
			if err := cmd.Wait(); err != nil {
				t.Fatalf("clawdcode: %v", err)
			}
			if results := lastToolResults(w); len(results) != 1 || !strings.Contains(results[0], map[bool]string{true: "ran inside", false: "read me"}[tc.host]) {
				t.Errorf("the call's result: %q", results)
			}
		})
	}
}

// sandboxHosts are the sandbox hosts (clawdcode run as one) whose parent is pid.
func sandboxHosts(pid int) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || !bytes.Contains(cmdline, []byte("\x00__clawdcode_sandbox_host")) {
			continue
		}
		if ppid, ok := parentPid(child); ok && ppid == pid {
			out = append(out, child)
		}
	}
	return out
}

// parentPid reads a process's parent from /proc/PID/stat.
func parentPid(pid int) (int, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return 0, false
	}
	ppid, err := strconv.Atoi(f[1])
	return ppid, err == nil
}
