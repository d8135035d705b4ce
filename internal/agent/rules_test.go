package agent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
	"github.com/clawdcode/clawdcode/internal/tools"
)

// countingAsker gives one answer to every question and counts them.
type countingAsker struct {
	answer tools.Decision
	asked  atomic.Int32
}

func (a *countingAsker) Ask(context.Context, tools.Tool, json.RawMessage) (tools.Decision, error) {
	a.asked.Add(1)
	return a.answer, nil
}

// idAsker allows every call and keeps the call id each question came with.
type idAsker struct{ ids []string }

func (a *idAsker) Ask(ctx context.Context, _ tools.Tool, _ json.RawMessage) (tools.Decision, error) {
	a.ids = append(a.ids, tools.CallID(ctx))
	return tools.AllowOnce, nil
}

// The asker is told which call it is asked about: an editor's permission
// request names the tool call it shows.
func TestAskerKnowsTheCall(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	asker := &idAsker{}
	e := w.engine(t, tools.NewPermissions(tools.PermissionsConfig{Root: w.proj.Root, Asker: asker}), 0)
	w.srv.Enqueue(llmtest.ToolCalls(llmtest.ToolCall{ID: "call_w1", Name: "Write", Arguments: `{"file_path":"n.txt","content":"x"}`}), llmtest.Text("done"))
	if _, err := e.Turns().Submit(t.Context(), "write it", nil); err != nil {
		t.Fatal(err)
	}
	if len(asker.ids) != 1 || asker.ids[0] != "call_w1" {
		t.Fatalf("the asker was asked with call ids %q, want [call_w1]", asker.ids)
	}
}

// A model that names a tool in another case ("read") gets the tool, not
// "unknown tool" (CONTRACT.md §3).
func TestToolNamesMatchWithoutCase(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	if err := os.WriteFile(filepath.Join(w.proj.Root, "notes.txt"), []byte("remember the milk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e := w.engine(t, nil, 0)
	w.srv.Enqueue(llmtest.ToolCalls(llmtest.Call("read", `{"file_path":"notes.txt"}`)), llmtest.Text("done"))
	if _, err := e.Turns().Submit(t.Context(), "read it", nil); err != nil {
		t.Fatal(err)
	}
	if got := w.lastTool(t); !strings.Contains(got, "remember the milk") {
		t.Fatalf("a call of \"read\" answered %q", got)
	}
}

// An Edit that cannot succeed (the file was never read) fails before the
// user is asked to allow it (issue 9: it asked first and failed after).
func TestEditOfUnreadFileFailsBeforeAsking(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	path := filepath.Join(w.proj.Root, "main.go")
	if err := os.WriteFile(path, []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	asker := &countingAsker{answer: tools.AllowOnce}
	e := w.engine(t, tools.NewPermissions(tools.PermissionsConfig{Root: w.proj.Root, Asker: asker}), 0)
	w.srv.Enqueue(llmtest.ToolCalls(llmtest.Call("Edit", `{"file_path":"main.go","old_string":"main","new_string":"app"}`)), llmtest.Text("done"))
	if _, err := e.Turns().Submit(t.Context(), "rename the package", nil); err != nil {
		t.Fatal(err)
	}
	if n := asker.asked.Load(); n != 0 {
		t.Errorf("the user was asked %d times about an Edit that could not succeed", n)
	}
	if got := w.lastTool(t); !strings.Contains(got, "has not been read") {
		t.Errorf("the model was told %q", got)
	}
	if data, _ := os.ReadFile(path); string(data) != "package main\n" {
		t.Errorf("main.go = %q", data)
	}
}

// Edit after a Read works once the session is resumed by another engine
// (another process), and still refuses a file changed since the Read.
func TestEditAfterReadSurvivesResume(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	for name, text := range map[string]string{"a.txt": "alpha\n", "b.txt": "beta\n"} {
		if err := os.WriteFile(filepath.Join(w.proj.Root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	allow := tools.NewPermissions(tools.PermissionsConfig{Root: w.proj.Root, Allow: mustRules(t, "Edit")})
	e := w.engine(t, allow, 0)
	w.srv.Enqueue(llmtest.ToolCalls(
		llmtest.Call("Read", `{"file_path":"a.txt"}`),
		llmtest.Call("Read", `{"file_path":"b.txt"}`),
	), llmtest.Text("read both"))
	if _, err := e.Turns().Submit(t.Context(), "read a and b", nil); err != nil {
		t.Fatal(err)
	}
	id := e.Sessions().ID()
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	// b.txt changes after it was read: a resumed Edit must not trust the Read.
	later := filepath.Join(w.proj.Root, "b.txt")
	if err := os.WriteFile(later, []byte("beta changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	info, _ := os.Stat(later)
	os.Chtimes(later, info.ModTime(), info.ModTime().Add(2e9))

	e2 := w.engine(t, allow, 0)
	if err := e2.Sessions().Resume(t.Context(), id); err != nil {
		t.Fatal(err)
	}
	w.srv.Enqueue(llmtest.ToolCalls(llmtest.Call("Edit", `{"file_path":"a.txt","old_string":"alpha","new_string":"omega"}`)), llmtest.Text("edited"))
	if _, err := e2.Turns().Submit(t.Context(), "edit a", nil); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(w.proj.Root, "a.txt")); string(data) != "omega\n" {
		t.Fatalf("a.txt = %q; the model was told %q", data, w.lastTool(t))
	}
	w.srv.Enqueue(llmtest.ToolCalls(llmtest.Call("Edit", `{"file_path":"b.txt","old_string":"beta","new_string":"gamma"}`)), llmtest.Text("refused"))
	if _, err := e2.Turns().Submit(t.Context(), "edit b", nil); err != nil {
		t.Fatal(err)
	}
	if got := w.lastTool(t); !strings.Contains(got, "modified since it was last read") && !strings.Contains(got, "has not been read") {
		t.Fatalf("an Edit of a file changed since its Read was told %q", got)
	}

	// A new session has read nothing.
	if err := e2.Sessions().StartNew(t.Context(), ""); err != nil {
		t.Fatal(err)
	}
	w.srv.Enqueue(llmtest.ToolCalls(llmtest.Call("Edit", `{"file_path":"a.txt","old_string":"omega","new_string":"x"}`)), llmtest.Text("refused"))
	if _, err := e2.Turns().Submit(t.Context(), "edit a again", nil); err != nil {
		t.Fatal(err)
	}
	if got := w.lastTool(t); !strings.Contains(got, "has not been read") {
		t.Fatalf("a new session edited a file it never read: %q", got)
	}
}

// An "always" belongs to the session it was given in: a fork is another
// session; what the forked records show was read stays editable.
func TestForkStartsWithoutTheSessionsAlways(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	if err := os.WriteFile(filepath.Join(w.proj.Root, "a.txt"), []byte("alpha\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	asker := &countingAsker{answer: tools.AllowAlways}
	e := w.engine(t, tools.NewPermissions(tools.PermissionsConfig{Root: w.proj.Root, Asker: asker}), 0)
	w.srv.Enqueue(llmtest.ToolCalls(
		llmtest.Call("Read", `{"file_path":"a.txt"}`),
		llmtest.Call("Bash", `{"command":"true"}`),
		llmtest.Call("Bash", `{"command":"true"}`),
	), llmtest.Text("done"))
	if _, err := e.Turns().Submit(t.Context(), "go", nil); err != nil {
		t.Fatal(err)
	}
	if n := asker.asked.Load(); n != 1 {
		t.Fatalf("asked %d times, want 1", n)
	}
	if _, err := e.Sessions().Fork(t.Context(), "", ""); err != nil {
		t.Fatal(err)
	}
	w.srv.Enqueue(llmtest.ToolCalls(
		llmtest.Call("Bash", `{"command":"true"}`),
		llmtest.Call("Edit", `{"file_path":"a.txt","old_string":"alpha","new_string":"omega"}`),
	), llmtest.Text("done"))
	if _, err := e.Turns().Submit(t.Context(), "again", nil); err != nil {
		t.Fatal(err)
	}
	if n := asker.asked.Load(); n != 3 {
		t.Fatalf("asked %d times in all, want 3: the fork kept the parent's always", n)
	}
	if data, _ := os.ReadFile(filepath.Join(w.proj.Root, "a.txt")); string(data) != "omega\n" {
		t.Fatalf("a.txt = %q: the fork lost what was read (%s)", data, w.lastTool(t))
	}
}
