package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// TestImportedFutureTimestampsDoNotCaptureContinue: a transcript imported
// with timestamps in the future (another machine's clock, or a crafted
// file naming this project) was "the most recently updated session" until
// then, so every `clawdcode -c` in the project continued it instead of the
// user's own work. Its timestamps count no later than its file was written
// here: a local session started after the import is what -c continues.
func TestImportedFutureTimestampsDoNotCaptureContinue(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	src := filepath.Join(w.Root, "claude", "projects")
	path := installSource(t, []string{"claude-code", "spotter_real_short.jsonl"}, src, "-project/55604662-cf2a-4331-851a-ec234028f8ca.jsonl", w.Project)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	future := regexp.MustCompile(`"timestamp":"\d{4}-`).ReplaceAll(data, []byte(`"timestamp":"2099-`))
	if err := os.WriteFile(path, future, 0o644); err != nil {
		t.Fatal(err)
	}
	w.ExtraEnv = []string{"CLAUDE_CONFIG_DIR=" + filepath.Dir(src)}
	w.MustRun("import", "claude-code")

	w.Server.Enqueue(llmtest.Text("local answer"))
	local, r := w.printJSON("-p", "my own work")
	if r.Code != 0 || local.SessionID == "" {
		t.Fatalf("a local session\n%s", r)
	}
	for range 2 {
		w.Server.Enqueue(llmtest.Text("continued"))
		got, r := w.printJSON("-c", "-p", "go on")
		if r.Code != 0 || got.SessionID != local.SessionID {
			t.Fatalf("-c continued %s, want the local session %s\n%s", got.SessionID, local.SessionID, r)
		}
	}
}
