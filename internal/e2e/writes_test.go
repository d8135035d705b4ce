package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// writeCall is a model reply that calls Write on path.
func writeCall(path, content string) llmtest.Reply {
	args, _ := json.Marshal(map[string]string{"file_path": path, "content": content})
	return llmtest.ToolCalls(llmtest.Call("Write", string(args)))
}

// lastToolResult is the content of the last tool message the server got.
func lastToolResult(t *testing.T, srv *llmtest.Server) string {
	t.Helper()
	msgs := srv.LastRequest().Messages
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "tool" {
			return msgs[i].Content
		}
	}
	t.Fatalf("no tool message in the last request")
	return ""
}

// Write never touches CLAWDCODE_HOME — not the running session's own file
// (all its records would be lost), not through a symlink in the project —
// whatever is allowed (issue 13 item 3).
func TestWriteNeverReachesCLAWDCODE_HOME(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	w.Server.Enqueue(llmtest.Text("first answer"))
	w.MustRun("-p", "hello")
	var session string
	for _, path := range w.sessionFiles() {
		session = path
	}
	before, err := os.ReadFile(session)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(w.Home, filepath.Join(w.Project, "h")); err != nil {
		t.Fatal(err)
	}

	for _, target := range []string{session, filepath.Join("h", "planted.txt"), filepath.Join(w.Home, "config.toml")} {
		w.Server.Enqueue(writeCall(target, "overwritten\n"), llmtest.Text("done"))
		w.MustRun("-c", "-p", "--dangerously-skip-permissions", "--allowed-tools", "Write", "write it")
		if got := lastToolResult(t, w.Server); !strings.Contains(got, "CLAWDCODE_HOME") {
			t.Errorf("Write %s: the model was told %q", target, got)
		}
	}
	after, err := os.ReadFile(session)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(after), string(before)) {
		t.Fatalf("the session file lost records:\nbefore %s\nafter %s", before, after)
	}
	for _, p := range []string{filepath.Join(w.Home, "planted.txt"), filepath.Join(w.Home, "config.toml")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was written", p)
		}
	}
}

// An allowance for Write covers the project: a path outside it, directly or
// through a symlink, is denied in -p unless a rule names it.
func TestWriteOutsideTheProjectNeedsItsOwnRule(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	outside := filepath.Join(w.Root, "outside")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(w.Project, "out")); err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{filepath.Join(outside, "a.txt"), filepath.Join("out", "b.txt"), "../outside/c.txt"} {
		w.Server.Enqueue(writeCall(target, "x\n"), llmtest.Text("done"))
		w.MustRun("-p", "write it", "--allowed-tools", "Write")
		if got := lastToolResult(t, w.Server); !strings.Contains(got, "outside the project") {
			t.Errorf("--allowed-tools Write, Write %s: the model was told %q", target, got)
		}
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Fatalf("written outside the project: %v", entries)
	}
	// --dangerously-skip-permissions is the user's word that every tool
	// runs (CONTRACT §1), outside the project too — but never into the
	// project's own settings.
	w.Server.Enqueue(writeCall(filepath.Join(outside, "skip.txt"), "x\n"), llmtest.Text("done"))
	w.MustRun("-p", "write it", "--dangerously-skip-permissions")
	if _, err := os.Stat(filepath.Join(outside, "skip.txt")); err != nil {
		t.Fatalf("--dangerously-skip-permissions Write outside: %v (%s)", err, lastToolResult(t, w.Server))
	}
	w.Server.Enqueue(writeCall(".clawdcode/config.toml", "[permissions]\nallow = [\"Bash\"]\n"), llmtest.Text("done"))
	w.MustRun("-p", "write it", "--dangerously-skip-permissions")
	if _, err := os.Stat(filepath.Join(w.Project, ".clawdcode", "config.toml")); err == nil {
		t.Fatalf("--dangerously-skip-permissions let the model write the project's settings")
	}
	if err := os.Remove(filepath.Join(outside, "skip.txt")); err != nil {
		t.Fatal(err)
	}
	// Inside the project the same allowance writes; a rule for the place
	// outside allows it.
	w.Server.Enqueue(writeCall("in.txt", "x\n"), llmtest.Text("done"))
	w.MustRun("-p", "write it", "--allowed-tools", "Write")
	if _, err := os.Stat(filepath.Join(w.Project, "in.txt")); err != nil {
		t.Fatalf("Write in the project: %v (%s)", err, lastToolResult(t, w.Server))
	}
	w.Server.Enqueue(writeCall("out/ok.txt", "x\n"), llmtest.Text("done"))
	w.MustRun("-p", "write it", "--allowed-tools", "Write("+filepath.ToSlash(outside)+"/**)")
	if _, err := os.Stat(filepath.Join(outside, "ok.txt")); err != nil {
		t.Fatalf("Write with its own rule: %v (%s)", err, lastToolResult(t, w.Server))
	}
}
