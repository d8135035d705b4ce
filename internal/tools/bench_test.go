package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchTree writes dirs×files Go-like files of ~200 lines each (about
// 7 KB per file) and returns the root.
func benchTree(b *testing.B, dirs, files int) string {
	b.Helper()
	root := b.TempDir()
	var body strings.Builder
	for i := range 200 {
		fmt.Fprintf(&body, "func helper%d(x int) int { return x * %d } // some ordinary code\n", i, i)
	}
	for d := range dirs {
		dir := filepath.Join(root, fmt.Sprintf("pkg%03d", d))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for f := range files {
			content := body.String()
			if (d*files+f)%97 == 0 {
				content += "// NEEDLE: rare marker\n"
			}
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d.go", f)), []byte(content), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	return root
}

func BenchmarkGrepTree(b *testing.B) {
	root := benchTree(b, 50, 40) // 2000 files, ~14 MB
	env := NewEnv(root)
	tl, _ := Lookup(Set(env), NameGrep)
	for _, pattern := range []string{`NEEDLE`, `(?i)needle:\s+\w+`} {
		input := []byte(fmt.Sprintf(`{"pattern":%q}`, pattern))
		b.Run(pattern, func(b *testing.B) {
			b.SetBytes(14 << 20)
			for b.Loop() {
				if r := tl.Run(b.Context(), input); r.Error != "" || !strings.Contains(r.Output, "NEEDLE") {
					b.Fatalf("%+v", r)
				}
			}
		})
	}
}

func BenchmarkGlobTree(b *testing.B) {
	root := benchTree(b, 50, 40)
	tl, _ := Lookup(Set(NewEnv(root)), NameGlob)
	input := []byte(`{"pattern":"**/f01*.go"}`)
	for b.Loop() {
		if r := tl.Run(b.Context(), input); r.Error != "" {
			b.Fatal(r.Error)
		}
	}
}

func BenchmarkCappedBufferWrite(b *testing.B) {
	chunk := []byte(strings.Repeat("output line of a chatty build\n", 1000))
	b.SetBytes(int64(len(chunk)))
	buf := NewCappedBuffer(OutputCap)
	for b.Loop() {
		buf.Write(chunk)
	}
}

// BenchmarkRead is one Read call on a 2,000-line source file: the tool's
// share of a Read round trip.
func BenchmarkRead(b *testing.B) {
	root := b.TempDir()
	var body strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&body, "\tx%d := helper(%d) // a line of ordinary Go code\n", i, i)
	}
	if err := os.WriteFile(filepath.Join(root, "big.go"), []byte(body.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	tl, _ := Lookup(Set(NewEnv(root)), NameRead)
	input := []byte(`{"file_path":"big.go"}`)
	b.SetBytes(int64(body.Len()))
	for b.Loop() {
		if r := tl.Run(b.Context(), input); r.Error != "" {
			b.Fatal(r.Error)
		}
	}
}

// BenchmarkEdit is one Edit of a 2,000-line file (read check, replace,
// atomic write with fsync).
func BenchmarkEdit(b *testing.B) {
	root := b.TempDir()
	var body strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&body, "\tx%d := helper(%d)\n", i, i)
	}
	if err := os.WriteFile(filepath.Join(root, "big.go"), []byte(body.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	env := NewEnv(root)
	set := Set(env)
	read, _ := Lookup(set, NameRead)
	edit, _ := Lookup(set, NameEdit)
	read.Run(b.Context(), []byte(`{"file_path":"big.go"}`))
	inputs := [][]byte{
		[]byte(`{"file_path":"big.go","old_string":"x1000 := helper(1000)","new_string":"y1000 := helper(1000)"}`),
		[]byte(`{"file_path":"big.go","old_string":"y1000 := helper(1000)","new_string":"x1000 := helper(1000)"}`),
	}
	i := 0
	for b.Loop() {
		if r := edit.Run(b.Context(), inputs[i%2]); r.Error != "" {
			b.Fatal(r.Error)
		}
		i++
	}
}
