package search

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// RecordTextPage gives, window by window, exactly the text WithRecordText
// decodes whole: for every kind of searchable line, windows that end
// inside escapes and characters, in the store's encoding and with JSON's
// escapes for <, > and & (another writer's), and for a line the scanner
// leaves to encoding/json. The scanner's path is taken for the one-field
// records (textPieces reads them).
func TestRecordTextPageMatchesTheWholeText(t *testing.T) {
	t.Parallel()
	body := strings.Repeat("héllo \"wörld\" ✓ 😀 \\ <a> & \t\x01 \u2028 end\n", 40)
	in, _ := json.Marshal(map[string]string{"command": body})
	recs := []*storage.Record{
		{UUID: "u1", Type: storage.TypeUser, Message: &storage.Message{Role: "user", Content: body}},
		{UUID: "u2", Type: storage.TypeAssistant, Message: &storage.Message{Role: "assistant", Content: body}},
		{UUID: "u3", Type: storage.TypeToolResult, ToolResult: &storage.ToolResult{ID: "c", Output: body}},
		{UUID: "u4", Type: storage.TypeToolResult, ToolResult: &storage.ToolResult{ID: "c", Output: body, Error: "exit 1 ✗"}},
		{UUID: "u5", Type: storage.TypeToolResult, ToolResult: &storage.ToolResult{ID: "c", Error: "only an error"}},
		{UUID: "u6", Type: storage.TypeToolUse, Tool: &storage.ToolUse{ID: "c", Name: "Bash", Input: in}},
	}
	var lines [][]byte
	for i, r := range recs {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, bytes.TrimSuffix(b.Bytes(), []byte("\n")))
		escaped, _ := json.Marshal(r)
		lines = append(lines, escaped)
		if _, _, ok := textPieces(lines[len(lines)-1]); ok != (i < 5) {
			t.Errorf("record %s: read by the scanner %v", r.UUID, ok)
		}
	}
	odd, _ := json.Marshal(map[string]any{"type": "user", "uuid": "odd", "MESSAGE": map[string]string{"content": body}})
	lines = append(lines, odd)
	for _, line := range lines {
		var whole []byte
		if !WithRecordText(line, func(text []byte) { whole = bytes.Clone(text) }) {
			t.Fatalf("not searchable: %.100s", line)
		}
		for _, size := range []int{1, 7, 1000, 1 << 20} {
			var got []byte
			for off := 0; off < len(whole); off += size {
				page, total, ok := RecordTextPage(line, off, size)
				if !ok || total != len(whole) {
					t.Fatalf("%.60s at %d: ok %v, total %d of %d", line, off, ok, total, len(whole))
				}
				got = append(got, page...)
			}
			if !bytes.Equal(got, whole) {
				t.Fatalf("%.60s in windows of %d: %d bytes, want %d", line, size, len(got), len(whole))
			}
		}
		if page, total, ok := RecordTextPage(line, math.MaxInt, 10); !ok || len(page) != 0 || total != len(whole) {
			t.Fatalf("%.60s from the largest offset: %d bytes, total %d, ok %v", line, len(page), total, ok)
		}
	}
	title, _ := json.Marshal(&storage.Record{UUID: "t", Type: storage.TypeSystem, Subtype: "title"})
	if _, _, ok := RecordTextPage(title, 0, 10); ok {
		t.Error("a record without searchable text has a page")
	}
}
