package importer

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// BenchmarkImportClaude imports 64 MB of Claude Code transcripts laid out
// as Claude Code writes them (internal/perf's BenchmarkImport1GB does 1 GiB
// through the binary).
func BenchmarkImportClaude(b *testing.B) {
	src := b.TempDir()
	pdir := filepath.Join(src, "-p")
	os.MkdirAll(pdir, 0o700)
	words := strings.Fields("the a to of and in is it that for on with as this be by file function test error return value type package import struct")
	text := func(r *rand.Rand, n int) string {
		var sb strings.Builder
		for sb.Len() < n {
			if r.IntN(10) == 0 {
				fmt.Fprintf(&sb, "x%d ", r.IntN(100000))
			} else {
				sb.WriteString(words[r.IntN(len(words))] + " ")
			}
		}
		return sb.String()
	}
	var total int64
	for i := 0; total < 64<<20; i++ {
		f, _ := os.Create(filepath.Join(pdir, fmt.Sprintf("%08d-0000-4000-8000-000000000000.jsonl", i)))
		w := bufio.NewWriter(f)
		r := rand.New(rand.NewPCG(uint64(i), 1))
		var n int64
		k := 0
		line := func(m map[string]any) {
			k++
			m["uuid"] = fmt.Sprintf("%08d-0000-4000-8000-%012d", i, k)
			m["sessionId"], m["cwd"], m["timestamp"] = fmt.Sprintf("%08d-0000-4000-8000-000000000000", i), "/home/u/p", time.Now().UTC().Format(time.RFC3339Nano)
			bs, _ := json.Marshal(m)
			w.Write(bs)
			w.WriteByte('\n')
			n += int64(len(bs) + 1)
		}
		for n < 4<<20 {
			line(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": text(r, 200)}})
			line(map[string]any{"type": "assistant", "message": map[string]any{"id": fmt.Sprint("m", k), "role": "assistant", "model": "claude", "content": []any{map[string]any{"type": "text", "text": text(r, 600)}}}})
			line(map[string]any{"type": "assistant", "message": map[string]any{"id": fmt.Sprint("m", k-1), "role": "assistant", "model": "claude", "content": []any{map[string]any{"type": "tool_use", "id": fmt.Sprint("t", k), "name": "Bash", "input": map[string]any{"command": text(r, 50)}}}}})
			line(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": fmt.Sprint("t", k-1), "content": text(r, 3500)}}}})
		}
		w.Flush()
		f.Close()
		total += n
	}
	b.SetBytes(total)
	for b.Loop() {
		home := b.TempDir()
		im := &Importer{Store: storage.NewStore(home), Warn: func(s string) { b.Fatal(s) }}
		if _, err := im.Import(context.Background(), ClaudeCode, src); err != nil {
			b.Fatal(err)
		}
	}
}
