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
