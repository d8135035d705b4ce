package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
	"github.com/clawdcode/clawdcode/internal/tools"
)

// A Write over an existing file the session never read fails before the
// user is asked to allow it, and the file is kept: the model is told to
// Read it first.
func TestWriteOfUnreadFileFailsBeforeAsking(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	path := filepath.Join(w.proj.Root, "notes.txt")
	const ten = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"
	if err := os.WriteFile(path, []byte(ten), 0o644); err != nil {
		t.Fatal(err)
	}
	asker := &countingAsker{answer: tools.AllowOnce}
	e := w.engine(t, tools.NewPermissions(tools.PermissionsConfig{Root: w.proj.Root, Asker: asker}), 0)
	w.srv.Enqueue(llmtest.ToolCalls(llmtest.Call("Write", `{"file_path":"notes.txt","content":"replaced\n"}`)), llmtest.Text("done"))
	if _, err := e.Turns().Submit(t.Context(), "replace the notes", nil); err != nil {
		t.Fatal(err)
	}
	if n := asker.asked.Load(); n != 0 {
		t.Errorf("the user was asked %d times about a Write that could not succeed", n)
	}
	if got := w.lastTool(t); !strings.Contains(got, "has not been read") || !strings.Contains(got, "Read it first") {
		t.Errorf("the model was told %q", got)
	}
	if data, _ := os.ReadFile(path); string(data) != ten {
		t.Errorf("notes.txt = %q", data)
	}
}
