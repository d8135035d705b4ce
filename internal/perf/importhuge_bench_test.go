package perf

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// importHugeBytes is the one huge tool output of BenchmarkImportHugeRecord:
// issue 18's 100 MB record.
const importHugeBytes = 100 << 20

// writeHugeClaudeSession writes a Claude Code session whose one tool
// result is importHugeBytes of text (lines, so escaped newlines), carried
// as Claude Code writes it: in the message's tool_result block and again
// in toolUseResult.
func writeHugeClaudeSession(tb testing.TB, dir, cwd string, twice bool) int64 {
	tb.Helper()
	pdir := filepath.Join(dir, "-p")
	if err := os.MkdirAll(pdir, 0o700); err != nil {
		tb.Fatal(err)
	}
	id := "0c0ffee0-0000-4000-8000-000000000100"
	f, err := os.Create(filepath.Join(pdir, id+".jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	bw := bufio.NewWriterSize(f, 1<<20)
	var n int64
	line := func(m map[string]any) {
		m["sessionId"], m["cwd"], m["timestamp"] = id, cwd, "2026-01-01T00:00:00Z"
		b, err := json.Marshal(m)
		if err != nil {
			tb.Fatal(err)
		}
		bw.Write(b)
		bw.WriteByte('\n')
		n += int64(len(b) + 1)
	}
	out := strings.Repeat("0123456789abcdef\n", importHugeBytes/17)
	line(map[string]any{"type": "user", "uuid": "00000000-0000-4000-8000-000000000001", "message": map[string]any{"role": "user", "content": "cat the dump"}})
	line(map[string]any{"type": "assistant", "uuid": "00000000-0000-4000-8000-000000000002", "message": map[string]any{"id": "msg_1", "role": "assistant", "model": "claude", "content": []any{map[string]any{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": map[string]any{"command": "cat dump.txt"}}}}})
	result := map[string]any{"type": "user", "uuid": "00000000-0000-4000-8000-000000000003",
		"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_1", "content": out}}}}
	if twice {
		result["toolUseResult"] = map[string]any{"stdout": out}
	}
	line(result)
	line(map[string]any{"type": "assistant", "uuid": "00000000-0000-4000-8000-000000000004", "message": map[string]any{"id": "msg_2", "role": "assistant", "model": "claude", "content": []any{map[string]any{"type": "text", "text": "It is a dump of digits."}}}})
	if err := bw.Flush(); err != nil {
		tb.Fatal(err)
	}
	return n
}

// BenchmarkImportHugeRecord is `clawdcode import claude-code` of a session
// holding one 100 MB tool result, through the binary, with its peak RSS:
// the result alone (a 100 MB line), and as Claude Code writes it, also
// repeated in toolUseResult (a 200 MB line). Target (issue 18): ≤ 256 MiB
// for the 100 MB record.
func BenchmarkImportHugeRecord(b *testing.B) {
	for _, c := range []struct {
		name  string
		twice bool
	}{{"Line100MB", false}, {"ToolUseResult200MB", true}} {
		b.Run(c.name, func(b *testing.B) {
			w := newWorld(b)
			src := filepath.Join(w.root, "claude-projects")
			total := writeHugeClaudeSession(b, src, w.project, c.twice)
			benchImport(b, w, src, total, "Imported 1 session")
		})
	}
}
