package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	writeHugeTranscript(t, filepath.Join(src, "-p", "0c0ffee0-0000-4000-8000-000000000100.jsonl"), w.Project, out)

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

// writeHugeTranscript writes a Claude Code session: a command, its output
// out (in the tool result and in toolUseResult, as Claude Code writes it)
// and a reply.
func writeHugeTranscript(t *testing.T, path, cwd, out string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	bw := bufio.NewWriterSize(f, 1<<20)
	enc := json.NewEncoder(bw)
	id := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	for _, m := range []map[string]any{
		{"type": "user", "uuid": "00000000-0000-4000-8000-000000000001", "message": map[string]any{"role": "user", "content": "cat the dump"}},
		{"type": "assistant", "uuid": "00000000-0000-4000-8000-000000000002", "message": map[string]any{"id": "msg_1", "role": "assistant", "model": "claude", "content": []any{map[string]any{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": map[string]any{"command": "cat dump.txt"}}}}},
		{"type": "user", "uuid": "00000000-0000-4000-8000-000000000003", "toolUseResult": map[string]any{"stdout": out},
			"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_1", "content": out}}}},
		{"type": "assistant", "uuid": "00000000-0000-4000-8000-000000000004", "message": map[string]any{"id": "msg_2", "role": "assistant", "model": "claude", "content": []any{map[string]any{"type": "text", "text": "A dump."}}}},
	} {
		m["sessionId"], m["cwd"], m["timestamp"] = id, cwd, "2026-01-01T00:00:00Z"
		if err := enc.Encode(m); err != nil {
			t.Fatal(err)
		}
	}
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
}
