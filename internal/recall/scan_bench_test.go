package recall

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// BenchmarkScanNoHit is Recall's scan of 64 MiB of records in the store's
// own encoding for a word none holds: the raw search plus the per-line
// check that sends other programs' lines to the decoder.
func BenchmarkScanNoHit(b *testing.B) {
	var buf bytes.Buffer
	body := bytes.Repeat([]byte("lorem ipsum dolor sit amet "), 36)
	for i := 0; buf.Len() < 64<<20; i++ {
		fmt.Fprintf(&buf, `{"parentUuid":"p%d","uuid":"u%d","sessionId":"s","timestamp":"2026-11-21T10:00:00Z","type":"tool_result","cwd":"/p","version":"1","toolResult":{"id":"c","output":"%s"}}`+"\n", i, i, body)
	}
	m := &mapped{data: buf.Bytes()}
	q, _ := parseQuery("zanzibar")
	b.SetBytes(int64(len(m.data)))
	b.ResetTimer()
	for range b.N {
		if err := m.scan(context.Background(), q, len(m.data), func(*storage.Record, string, string) bool { return true }); err != nil {
			b.Fatal(err)
		}
	}
}
