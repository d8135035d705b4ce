package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestGrep(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	files := map[string]string{
		"main.go":                 "package main\n\nfunc main() {\n\t// TODO: flags\n}\n",
		"internal/x/x.go":         "package x\n\n// todo lower\nfunc X() {}\n",
		"web/src/app.ts":          "// TODO: ts\n",
		"web/src/deep/view.tsx":   "// TODO: tsx\n",
		"notes.md":                "TODO at start\nnot a todo: TODO\r\nend TODO\r\n",
		"node_modules/dep/dep.go": "// TODO: vendored\n",
		".git/COMMIT_EDITMSG":     "TODO in git\n",
		"image.png":               "\x89PNG\x00\x00TODO\n",
	}
	for name, content := range files {
		writeFile(t, filepath.Join(root, name), content)
	}
	env := NewEnv(root)
	tests := []struct {
		name  string
		input obj
		want  string
	}{
		{"all files, skips deps, git and binary", obj{"pattern": "TODO"},
			"main.go:4:\t// TODO: flags\nnotes.md:1:TODO at start\nnotes.md:2:not a todo: TODO\nnotes.md:3:end TODO\nweb/src/app.ts:1:// TODO: ts\nweb/src/deep/view.tsx:1:// TODO: tsx\n"},
		{"case-insensitive flag", obj{"pattern": "(?i)todo lower"}, "internal/x/x.go:3:// todo lower\n"},
		{"glob on base name at any depth", obj{"pattern": "TODO|todo", "glob": "*.go"}, "internal/x/x.go:3:// todo lower\nmain.go:4:\t// TODO: flags\n"},
		{"glob with a path", obj{"pattern": "TODO", "glob": "src/**/*.{ts,tsx}", "path": "web"}, "web/src/app.ts:1:// TODO: ts\nweb/src/deep/view.tsx:1:// TODO: tsx\n"},
		{"anchored start", obj{"pattern": "^TODO", "path": "notes.md"}, "notes.md:1:TODO at start\n"},
		{"anchored end on CRLF lines", obj{"pattern": "TODO$", "path": "notes.md"}, "notes.md:2:not a todo: TODO\nnotes.md:3:end TODO\n"},
		{"explicit file inside a skipped dir", obj{"pattern": "TODO", "path": "node_modules/dep/dep.go"}, "node_modules/dep/dep.go:1:// TODO: vendored\n"},
		{"no matches", obj{"pattern": "FIXME"}, "No matches"},
	}
	for _, tt := range tests {
		r := call(t, env, NameGrep, tt.input)
		wantOK(t, r)
		if r.Output != tt.want {
			t.Errorf("%s: got %q\nwant %q", tt.name, r.Output, tt.want)
		}
	}
	wantError(t, call(t, env, NameGrep, obj{"pattern": "x", "path": "missing"}), "path does not exist: missing")
}

func TestGrepLongLinesAndChunks(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	// A line far longer than a read chunk, with the match at its end, and
	// matches after it whose line numbers must stay right.
	long := strings.Repeat("a", grepChunk*2+123) + "NEEDLE"
	var b strings.Builder
	for i := 1; i <= 100; i++ {
		if i == 50 {
			b.WriteString(long + "\n")
		} else {
			fmt.Fprintf(&b, "line %d %s\n", i, map[bool]string{true: "NEEDLE", false: ""}[i%30 == 0])
		}
	}
	b.WriteString("NEEDLE without newline")
	writeFile(t, filepath.Join(root, "f.txt"), b.String())
	r := call(t, NewEnv(root), NameGrep, obj{"pattern": "NEEDLE"})
	wantOK(t, r)
	lines := strings.Split(strings.TrimSuffix(r.Output, "\n"), "\n")
	var nums []string
	for _, l := range lines {
		parts := strings.SplitN(l, ":", 3)
		nums = append(nums, parts[1])
		if len(parts[2]) > grepMaxLineBytes+len(" …") {
			t.Errorf("line %s not truncated: %d bytes", parts[1], len(parts[2]))
		}
	}
	if got := strings.Join(nums, ","); got != "30,50,60,90,101" {
		t.Fatalf("line numbers %s; output %q", got, clip(r.Output))
	}
}

func TestGrepSkipsLargeFiles(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	p := filepath.Join(root, "huge.log")
	writeFile(t, p, "NEEDLE\n")
	if err := os.Truncate(p, grepMaxFileBytes+1); err != nil { // sparse: instant
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, "small.txt"), "NEEDLE\n")
	r := call(t, NewEnv(root), NameGrep, obj{"pattern": "NEEDLE"})
	wantOK(t, r)
	if r.Output != "small.txt:1:NEEDLE\n(1 files over 10 MB were skipped.)\n" {
		t.Fatalf("got %q", r.Output)
	}
}

func TestGrepStopsAtOutputCap(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "many.txt"), strings.Repeat("match this line please\n", 10000))
	r := call(t, NewEnv(root), NameGrep, obj{"pattern": "match"})
	wantOK(t, r)
	if len(r.Output) > OutputCap+200 || !strings.Contains(r.Output, "(Stopped after") {
		t.Fatalf("output %d bytes: %q", len(r.Output), clip(r.Output))
	}
}

func TestGrepCancelled(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "a.txt"), "x\n")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	wantError(t, callCtx(t, ctx, NewEnv(root), NameGrep, obj{"pattern": "x"}), "context canceled")
}

// FuzzGrepPrefilter checks that ruling out whole chunks never loses a line
// the pattern matches on its own.
func FuzzGrepPrefilter(f *testing.F) {
	f.Add(`^a`, "a\nba\n")
	f.Add(`\bword\b`, "word\nsword\n-word-\n")
	f.Add(`(?i)x.y`, "X\nY\nxzy\n")
	f.Add(`[^a]`, "a\n\naa\n")
	f.Add(`\Bb`, "ab\nb\n")
	f.Fuzz(func(t *testing.T, pattern, text string) {
		m, err := newLineMatcher(pattern)
		if err != nil || m.chunk == nil {
			return
		}
		for _, line := range strings.Split(text, "\n") {
			line = strings.TrimSuffix(line, "\r")
			if m.line.MatchString(line) && !m.chunk.MatchString(text) {
				t.Fatalf("pattern %q matches line %q but not the chunk %q", pattern, line, text)
			}
		}
	})
}

func TestASCIILower(t *testing.T) {
	t.Parallel()
	var all []byte
	for c := range 256 {
		all = append(all, byte(c))
	}
	for off := range 9 { // every alignment of the 8-byte loop and its tail
		src := all[off:]
		got := asciiLower(nil, src)
		for i, c := range src {
			want := c
			if 'A' <= c && c <= 'Z' {
				want = c + 32
			}
			if got[i] != want {
				t.Fatalf("offset %d: byte %#x lowered to %#x, want %#x", off, c, got[i], want)
			}
		}
	}
}

func TestRequiredLiterals(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern string
		want    string // literals joined by |, "" for none
	}{
		{"NEEDLE", "NEEDLE"},
		{`func \w+Handler\(`, "Handler("},
		{"TODO|FIXME", "TODO|FIXME"},
		{"(?i)needle", "needle"},
		{"(?i)kind", ""}, // k folds to the Kelvin sign: not ASCII-safe
		{"a*", ""},
		{"(foo)+bar?", "foo"},
		{"x|y*", ""},
		{"日本", "日本"},
	}
	for _, tt := range tests {
		r := newRequiredLiterals(tt.pattern)
		var got []string
		if r != nil {
			for _, l := range r.lits {
				got = append(got, string(l.text))
			}
		}
		if strings.Join(got, "|") != tt.want {
			t.Errorf("%q: literals %q, want %q", tt.pattern, got, tt.want)
		}
	}
}
