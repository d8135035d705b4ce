package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// TestSandboxWriteEndsWhatCouldWriteTheNewConfig: the model's Write of
// .git/config (under the user's rule) renames a new file over the one the
// sandbox kept read-only, which takes its read-only mount off. A command
// still running in the background — here one that waits for the file to
// change and then adds a core.fsmonitor to it, which the user's next git
// status would run — must not get to write the new file: clawdcode ends
// it before the rename.
func TestSandboxWriteEndsWhatCouldWriteTheNewConfig(t *testing.T) {
	t.Parallel()
	requireTool(t, "bash")
	requireTool(t, "stat")
	w := sandboxWorld(t)
	config := filepath.Join(w.Project, ".git", "config")
	orig, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	written := string(orig) + "[user]\n\tname = t\n"
	token := fmt.Sprintf("watcher-%d-%d", os.Getpid(), time.Now().UnixNano())
	ready, wrote := filepath.Join(w.Project, "ready"), filepath.Join(w.Project, "wrote")
	watcher := ": " + token + "; orig=$(stat -c %i .git/config); touch ready; " +
		`while [ "$(stat -c %i .git/config)" = "$orig" ]; do sleep 0.01; done; ` +
		"echo '[core] fsmonitor = touch pwned' >> .git/config && touch wrote"
	bg, _ := json.Marshal(map[string]any{"command": watcher, "run_in_background": true})
	write, _ := json.Marshal(map[string]string{"file_path": config, "content": written})
	var turn atomic.Int32
	w.Server.SetResponder(func(r llmtest.Request) llmtest.Reply {
		switch turn.Add(1) {
		case 1:
			return llmtest.ToolCalls(llmtest.Call("Bash", string(bg)))
		case 2:
			waitFor(t, func() bool { return exists(ready) }, "the watcher to start")
			return llmtest.ToolCalls(llmtest.Call("Read", fmt.Sprintf(`{"file_path": %q}`, config)),
				llmtest.Call("Write", string(write)))
		default:
			// The watcher either wrote, or is gone.
			waitFor(t, func() bool { return exists(wrote) || !runningWith(token) }, "the watcher to write or end")
			return llmtest.Text("done")
		}
	})
	w.MustRun("-p", "--permission-mode", "acceptEdits", "--allowed-tools", "Write(.git/config)", "go")
	for i, res := range lastToolResults(w) {
		if strings.Contains(res, "denied") || strings.Contains(res, "Permission to use") {
			t.Errorf("call %d did not run: %s", i, res)
		}
	}
	if have, _ := os.ReadFile(config); string(have) != written {
		t.Errorf("a command still running in the sandbox wrote the new .git/config:\n%s", have)
	}
	if exists(wrote) {
		t.Errorf("the watcher wrote to the new .git/config")
	}
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// runningWith reports whether a process whose command line holds token is
// alive.
func runningWith(token string) bool {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		cmdline, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && bytes.Contains(cmdline, []byte(token)) {
			if stat, err := os.ReadFile("/proc/" + e.Name() + "/stat"); err == nil && !bytes.Contains(stat, []byte(") Z ")) {
				return true
			}
		}
	}
	return false
}

// waitFor polls cond until it holds; the limit is a net for a hang only.
func waitFor(t *testing.T, cond func() bool, what string) {
	for deadline := time.Now().Add(time.Minute); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Errorf("gave up waiting for %s", what)
			return
		}
	}
}

// TestSandboxEndsWhatCouldWriteAConfigReplacedOutside: the user's own
// git config, run outside clawdcode while the model is thinking, renames
// a new .git/config over the one the sandbox kept read-only. The command
// still running in the background in that sandbox, which could now write
// the new file, is ended at once — not when the next command starts.
func TestSandboxEndsWhatCouldWriteAConfigReplacedOutside(t *testing.T) {
	t.Parallel()
	requireTool(t, "bash")
	w := sandboxWorld(t)
	token := fmt.Sprintf("waiter-%d-%d", os.Getpid(), time.Now().UnixNano())
	ready := filepath.Join(w.Project, "ready")
	bg, _ := json.Marshal(map[string]any{"command": ": " + token + "; touch ready; sleep 600; :", "run_in_background": true})
	var turn atomic.Int32
	w.Server.SetResponder(func(r llmtest.Request) llmtest.Reply {
		if turn.Add(1) == 1 {
			return llmtest.ToolCalls(llmtest.Call("Bash", string(bg)))
		}
		waitFor(t, func() bool { return exists(ready) }, "the background command to start")
		if !runningWith(token) {
			t.Error("the background command ended before .git/config was replaced")
		}
		gitC(t, w.Project, "config", "user.name", "someone")
		waitFor(t, func() bool { return !runningWith(token) }, "the background command to be ended")
		return llmtest.Text("done")
	})
	w.MustRun("-p", "--permission-mode", "acceptEdits", "go")
}
