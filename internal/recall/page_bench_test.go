package recall

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/tools"
)

// BenchmarkPageOfHugeRecord is one Recall page from the middle of a
// 100 MB tool result, its line in memory as a mapped file's would be:
// with -benchmem, B/op is what a page costs beyond the file (a page and
// the header, not the record's 100 MB of text).
func BenchmarkPageOfHugeRecord(b *testing.B) {
	r := &storage.Record{UUID: "0b5e55ed-0000-4000-8000-000000000100", Type: storage.TypeToolResult,
		ToolResult: &storage.ToolResult{ID: "c", Output: strings.Repeat("0123456789abcdef \"é\"\n", 100<<20/23)}}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		b.Fatal(err)
	}
	m := &mapped{data: buf.Bytes()}
	b.SetBytes(int64(len(m.data)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		h, err := m.page(0, len(m.data)-1, 50<<20, tools.RecallPageCap)
		if err != nil || len(h.Text) < tools.RecallPageCap-4 {
			b.Fatalf("page: %d bytes, %v", len(h.Text), err)
		}
	}
}
