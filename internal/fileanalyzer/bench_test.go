package fileanalyzer

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/chat"
)

// benchHistory builds a coding-session history of about 2,000 messages and
// 800 KB: rounds of user request, assistant tool call, and a code-heavy
// tool result, over 60 files that exist and many identifiers that look
// like paths but do not (fmt.Println, e.g, os.Getenv).
func benchHistory(b *testing.B) (string, []chat.Message) {
	root := b.TempDir()
	for i := 0; i < 60; i++ {
		p := filepath.Join(root, "internal", fmt.Sprintf("pkg%d", i%7), fmt.Sprintf("file%d.go", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(strings.Repeat("func f() { return }\n", 200)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	code := strings.Repeat("\tresp, err := client.Do(req) // see e.g. fmt.Println and os.Getenv\n\tif err != nil { return fmt.Errorf(\"do: %w\", err) }\n", 3)
	var msgs []chat.Message
	size := 0
	for i := 0; len(msgs) < 2000; i++ {
		file := fmt.Sprintf("internal/pkg%d/file%d.go", i%7, i%60)
		tool := "Read"
		if i%5 == 0 {
			tool = "Edit"
		}
		round := []chat.Message{
			{Role: chat.RoleUser, Content: "please look at " + file + " and fix the bug near line 40 of v1.2.3"},
			{Role: chat.RoleAssistant, Content: "I'll open " + file + ".", ToolCalls: []chat.ToolCall{{ID: "c", Name: tool, Arguments: fmt.Sprintf(`{"file_path": %q}`, file)}}},
			{Role: chat.RoleTool, ToolCallID: "c", Content: file + ":40:\n" + code},
		}
		for _, m := range round {
			size += len(m.Content)
		}
		msgs = append(msgs, round...)
	}
	for i := 2; size < 800<<10; i = (i + 3) % len(msgs) {
		msgs[i].Content += code // grow the tool results evenly
		size += len(code)
	}
	return root, msgs
}

func BenchmarkSelect2000Messages800KB(b *testing.B) {
	root, msgs := benchHistory(b)
	total := 0
	for _, m := range msgs {
		total += len(m.Content)
	}
	b.SetBytes(int64(total))
	b.ReportMetric(float64(len(msgs)), "messages")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		files, err := Select(root, msgs, Options{})
		if err != nil || len(files) != 5 {
			b.Fatalf("Select: %d files, %v", len(files), err)
		}
	}
}
