package acp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// clawdcode acp takes --append-system-prompt and --add-dir as the REPL
// does (issue 36 item 5): every session's system prompt carries the text,
// and a Write into the added directory runs as one in the project.
func TestACPAppendSystemPromptAndAddDir(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	other := filepath.Join(w.Root, "other")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	e := startEditor(t, w, "--append-system-prompt", "Answer like a pirate.", "--add-dir", other, "--permission-mode", "acceptEdits")
	e.initialize(acpsdk.ClientCapabilities{})
	sid := e.newSession().SessionId
	target := filepath.Join(other, "note.txt")
	w.Server.Enqueue(llmtest.ToolCalls(llmtest.ToolCall{ID: "call_w1", Name: "Write", Arguments: `{"file_path":"` + target + `","content":"arr\n"}`}), llmtest.Text("written"))
	e.prompt(sid, "write the note")
	if data, _ := os.ReadFile(target); string(data) != "arr\n" {
		t.Fatalf("the Write into the added directory left %q", data)
	}
	if asked := e.questions(); len(asked) != 0 {
		t.Fatalf("a Write into the added directory asked in acceptEdits: %+v", asked)
	}
	msgs := w.Server.LastRequest().Messages
	if msgs[0].Role != "system" || !strings.HasSuffix(strings.TrimSpace(msgs[0].Content), "Answer like a pirate.") {
		t.Fatalf("the system prompt does not end with the appended text:\n%s", msgs[0].Content)
	}
}

// The editor is offered each skill as a command (issue 36 item 5, as
// Claude Code does): /name sends the model the request to use it.
func TestACPSkillsAreCommands(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	writeFile(t, filepath.Join(w.Home, "skills", "commit", "SKILL.md"), "---\nname: commit\ndescription: Write a commit message in the house style.\n---\nSubject line at most 50 characters.\n")
	e := startEditor(t, w)
	e.initialize(acpsdk.ClientCapabilities{})
	sid := e.newSession().SessionId
	commit, ok := e.commandsOffered(sid)["commit"]
	if !ok || commit.Description != "Write a commit message in the house style. (skill)" {
		t.Fatalf("the skill is offered as %+v", commit)
	}
	w.Server.Enqueue(llmtest.Text("on it"))
	e.prompt(sid, "/commit the parser fix")
	msgs := w.Server.LastRequest().Messages
	if got := msgs[len(msgs)-1].Content; !strings.HasPrefix(got, `Use the "commit" skill: call Skill with name "commit" first`) || !strings.Contains(got, "the parser fix") {
		t.Fatalf("the model got %q for /commit the parser fix", got)
	}
}
