package perf

import (
	"bufio"
	"encoding/base64"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// BenchmarkHugeStdin is issue 14 item 3's run: `head -c 10000000
// /dev/urandom | base64 -w100 | clawdcode -p '…'` (13.5 MB of stdin),
// answered at once. -p reads only its share of the window (512 KiB for
// 128k tokens) and cuts the rest with a marker; before, the whole stdin
// went into the prompt (30 s, 1.19 GB).
func BenchmarkHugeStdin(b *testing.B) {
	w := newWorld(b)
	w.stdin = filepath.Join(w.root, "stdin.txt")
	writeRandomBase64(b, w.stdin, 10_000_000, 100)
	w.srv.SetResponder(func(llmtest.Request) llmtest.Reply { return llmtest.Text("ok") })
	var s sample
	for b.Loop() {
		r := w.run(b, "-p", "say ok")
		if !strings.Contains(r.stdout, "ok") || !strings.Contains(r.stderr, "stdin is longer than") {
			b.Fatalf("stdout %q stderr %q", r.stdout, clip(r.stderr, 400))
		}
		s.add(r)
	}
	s.report(b, "")
}

// writeRandomBase64 writes n random bytes (a fixed seed) as base64 in lines
// of width characters, as `base64 -w<width>` does.
func writeRandomBase64(tb testing.TB, path string, n, width int) {
	tb.Helper()
	raw := make([]byte, n)
	rng := rand.NewChaCha8([32]byte{14, 3})
	_, _ = rng.Read(raw)
	text := base64.StdEncoding.EncodeToString(raw)
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	for i := 0; i < len(text); i += width {
		bw.WriteString(text[i:min(i+width, len(text))])
		bw.WriteByte('\n')
	}
	if err := bw.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
}
