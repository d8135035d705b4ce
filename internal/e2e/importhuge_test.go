package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/fixtures"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// TestImportHugeLineKeepsNoKey: issue 18 item 3. A Claude Code line of
// 200 MB (a 100 MB tool output, in the message and again in
// toolUseResult) is imported without being held in memory; the API key
// quoted in the middle of the output still passes the store's redaction,
// and the output is stored whole.
func TestImportHugeLineKeepsNoKey(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and imports a 200 MB line")
	}
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	src := filepath.Join(w.Root, "claude", "projects")
	half := strings.Repeat("0123456789abcdef\n", 50<<20/17)
	out := half + "the key is " + w.Key + "\n" + half
	fixtures.WriteHugeClaudeSession(t, filepath.Join(src, "-p", "0c0ffee0-0000-4000-8000-000000000100.jsonl"), w.Project, out, true)

	r := w.MustRun("import", "claude-code", src)
	if !strings.Contains(r.Stdout, "Imported 1 session") {
		t.Fatalf("import:\n%s\n%s", r.Stdout, r.Stderr)
	}
	_, path := w.onlySession()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte(w.Key)) || bytes.Contains(data, []byte("SECRETMARKER")) {
		t.Fatal("the key reached the session file")
	}
	want := strings.Replace(out, w.Key, "[REDACTED]", 1)
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 256<<20)
	found := false
	for sc.Scan() {
		var rec struct {
			ToolResult *struct {
				Output string `json:"output"`
			} `json:"toolResult"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("a line of the session does not parse: %v", err)
		}
		if rec.ToolResult != nil {
			found = true
			if rec.ToolResult.Output != want {
				t.Errorf("the stored output (%d bytes) is not the source's with the key redacted (%d bytes)", len(rec.ToolResult.Output), len(want))
			}
		}
	}
	if err := sc.Err(); err != nil || !found {
		t.Fatalf("no tool result read back (%v)", err)
	}
}
