package acp_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// lastToolResult is the last tool message of the model's last request.
func lastToolResult(w interface{ LastRequest() llmtest.Request }) string {
	out := ""
	for _, m := range w.LastRequest().Messages {
		if m.Role == "tool" {
			out = m.Content
		}
	}
	return out
}

// An editor that offers fs/*: Read sees its unsaved buffer, Edit changes
// the buffer through it (the disk is the editor's to save), and the diff
// shown is of the buffer.
func TestEditorBuffersAreTheFiles(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	path := filepath.Join(w.Project, "main.go")
	if err := os.WriteFile(path, []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e := startEditor(t, w)
	e.buffers[path] = "package main\n\nfunc main() { println(\"unsaved\") }\n"
	e.initialize(acpsdk.ClientCapabilities{Fs: acpsdk.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}})
	sid := e.newSession().SessionId
	w.Server.Enqueue(llmtest.ToolCalls(llmtest.Call("Read", `{"file_path":"main.go"}`)),
		llmtest.ToolCalls(llmtest.ToolCall{ID: "call_e", Name: "Edit", Arguments: `{"file_path":"main.go","old_string":"unsaved","new_string":"edited"}`}),
		llmtest.Text("done"))
	from := e.mark()
	e.prompt(sid, "change the greeting")
	reqs := w.Server.Requests()
	var read string
	for _, m := range reqs[1].Messages {
		if m.Role == "tool" {
			read = m.Content
		}
	}
	if !strings.Contains(read, `println("unsaved")`) {
		t.Fatalf("Read gave the model %q, not the editor's buffer", read)
	}
	if got := e.buffers[path]; got != "package main\n\nfunc main() { println(\"edited\") }\n" {
		t.Fatalf("the buffer after Edit: %q (client calls %q)", got, e.clientCalls())
	}
	if data, _ := os.ReadFile(path); string(data) != "package main\n\nfunc main() {}\n" {
		t.Fatalf("Edit wrote the disk behind the editor: %q", data)
	}
	for _, u := range e.since(sid, from) {
		if u.ToolCall != nil && u.ToolCall.ToolCallId == "call_e" {
			d := u.ToolCall.Content[0].Diff
			if d == nil || d.OldText == nil || !strings.Contains(*d.OldText, "unsaved") || !strings.Contains(d.NewText, "edited") {
				t.Fatalf("the Edit's diff: %+v", u.ToolCall.Content)
			}
			return
		}
	}
	t.Fatal("the Edit was never shown")
}

// With the sandbox off and a terminal offered, Bash runs in the editor's
// terminal, which the call's content shows; the output reaches the model.
func TestBashRunsInTheEditorsTerminal(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	e := startEditor(t, w, "--sandbox", "off")
	e.initialize(acpsdk.ClientCapabilities{Terminal: true})
	sid := e.newSession().SessionId
	w.Server.Enqueue(llmtest.ToolCalls(llmtest.ToolCall{ID: "call_b", Name: "Bash", Arguments: `{"command":"echo from the terminal; pwd"}`}), llmtest.Text("ok"))
	from := e.mark()
	e.prompt(sid, "run it")
	calls := e.clientCalls()
	if len(calls) < 2 || !strings.HasSuffix(calls[0], "-c echo from the terminal; pwd") || !slices.Contains(calls, "release term-1") {
		t.Fatalf("the editor was asked %q", calls)
	}
	if got := lastToolResult(w.Server); got != "from the terminal\n"+w.Project+"\n" {
		t.Fatalf("the model was told %q", got)
	}
	shown := false
	for _, u := range e.since(sid, from) {
		if up := u.ToolCallUpdate; up != nil && up.ToolCallId == "call_b" && len(up.Content) > 0 && up.Content[0].Terminal != nil {
			shown = up.Content[0].Terminal.TerminalId == "term-1"
		}
	}
	if !shown {
		t.Fatal("the call's content never showed the terminal")
	}
}

// With the sandbox on, a terminal offered is not used: the command runs
// here, and its output streams into the call's content while it runs.
func TestSandboxedBashStreamsItsOutput(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	e := startEditor(t, w)
	e.initialize(acpsdk.ClientCapabilities{Terminal: true})
	sid := e.newSession().SessionId
	gate := filepath.Join(w.Project, "go-on")
	w.Server.Enqueue(llmtest.ToolCalls(llmtest.ToolCall{ID: "call_s", Name: "Bash",
		Arguments: `{"command":"echo first; while [ ! -e go-on ]; do sleep 0.05; done; echo second"}`}), llmtest.Text("ok"))
	from := e.mark()
	done := make(chan acpsdk.PromptResponse, 1)
	go func() { done <- e.prompt(sid, "run it") }()
	e.waitFor(sid, from, "the command's first line while it runs", func(u acpsdk.SessionUpdate) bool {
		up := u.ToolCallUpdate
		return up != nil && up.ToolCallId == "call_s" && up.Status == nil && len(up.Content) > 0 &&
			up.Content[0].Content != nil && up.Content[0].Content.Content.Text.Text == "first\n"
	})
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	<-done
	if calls := e.clientCalls(); len(calls) != 0 {
		t.Fatalf("the editor's terminal was used with the sandbox on: %q", calls)
	}
	if got := lastToolResult(w.Server); got != "first\nsecond\n" {
		t.Fatalf("the model was told %q", got)
	}
}
