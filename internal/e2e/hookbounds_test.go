package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// writeUserConfig writes CLAWDCODE_HOME/config.toml: the user's own file,
// which needs no trust.
func (w *world) writeUserConfig(toml string) {
	w.T.Helper()
	if err := os.MkdirAll(w.Home, 0o700); err != nil {
		w.T.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.Home, "config.toml"), []byte(toml), 0o600); err != nil {
		w.T.Fatal(err)
	}
}

// TestHookReasonIsBounded: issue 17 item 6. A PreToolUse hook that blocks
// with a 10 MB reason left a 10 MB record, and the session could not be
// resumed, compacted or forked. The reason is read into at most 64 KiB.
func TestHookReasonIsBounded(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	w.writeUserConfig(`
[[hooks.PreToolUse]]
matcher = "Bash"
command = "head -c 10485760 /dev/zero | tr '\\0' x >&2; exit 2"
`)
	w.Server.Enqueue(
		llmtest.ToolCalls(llmtest.ToolCall{ID: "call_big", Name: "Bash", Arguments: `{"command":"echo hi"}`}),
		llmtest.Text("blocked"),
	)
	w.MustRun("-p", "--dangerously-skip-permissions", "run it")
	got := toolResult(t, w.Server, "call_big")
	if len(got) > 80<<10 || !strings.Contains(got, "omitted ...]") {
		t.Fatalf("the blocked call answered %d bytes, want at most 80 KiB with the omission marker", len(got))
	}
	_, path := w.onlySession()
	if fi, err := os.Stat(path); err != nil || fi.Size() > 512<<10 {
		t.Fatalf("the session file weighs %d bytes (%v), want the reason bounded", fi.Size(), err)
	}

	w.Server.Enqueue(llmtest.Text("resumed"))
	if r := w.Run("-c", "-p", "again"); r.Code != 0 || !strings.Contains(r.Stdout, "resumed") {
		t.Fatalf("resume after the big reason\n%s", r)
	}
	w.Server.Enqueue(llmtest.Text("the summary"))
	if r := w.Run("-c", "-p", "/compact"); r.Code != 0 {
		t.Fatalf("compact after the big reason\n%s", r)
	}
	w.Server.Enqueue(llmtest.Text("forked"))
	if r := w.Run("-c", "--fork-session", "-p", "on the fork"); r.Code != 0 || !strings.Contains(r.Stdout, "forked") {
		t.Fatalf("fork after the big reason\n%s", r)
	}
}

// TestHookBackgroundChildEndsWithIt: issue 17 item 6. What a hook starts
// in the background is ended with the hook's process group.
func TestHookBackgroundChildEndsWithIt(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	pidFile := filepath.Join(w.Root, "sleep.pid")
	w.writeUserConfig(`
[[hooks.SessionStart]]
command = "sleep 100 & echo $! > '` + pidFile + `'"
`)
	w.Server.Enqueue(llmtest.Text("hello"))
	w.MustRun("-p", "hi")
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the hook did not run: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatalf("pid file %q: %v", data, err)
	}
	for deadline := time.Now().Add(time.Minute); alive(pid); { // a safety net: the sleep lasts 100 s
		if time.Now().After(deadline) {
			t.Fatalf("the hook's background sleep (pid %d) outlived it", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// alive reports whether pid is a running process (a zombie waiting for
// its reaper has ended).
func alive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The state follows the command name's closing parenthesis.
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}
