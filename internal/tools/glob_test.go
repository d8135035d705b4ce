package tools

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestGlobMatch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern string
		yes     []string
		no      []string
	}{
		{"*.go", []string{"a.go", ".x.go"}, []string{"dir/a.go", "a.gox"}},
		{"**/*.go", []string{"a.go", "d/a.go", "d/e/f/a.go"}, []string{"a.txt", "d/a.txt"}},
		{"src/**/*.ts", []string{"src/a.ts", "src/x/y/a.ts"}, []string{"a.ts", "lib/src/a.ts"}},
		{"src/**", []string{"src/a", "src/x/y"}, []string{"src", "other/a"}},
		{"**", []string{"a", "a/b/c"}, nil},
		{"a/**/b/**/c", []string{"a/b/c", "a/x/b/y/z/c"}, []string{"a/c", "a/b/x"}},
		{"*.{ts,tsx}", []string{"a.ts", "a.tsx"}, []string{"a.t", "a.js"}},
		{"{src,lib}/**/*.{go,md}", []string{"src/a.go", "lib/x/b.md"}, []string{"doc/a.go", "src/a.txt"}},
		{"file?.[ch]", []string{"file1.c", "filea.h"}, []string{"file10.c", "file1.o"}},
		{"./a/*.go", []string{"a/b.go"}, []string{"b.go"}},
		{"a//b", []string{"a/b"}, nil},
		{"**/**/x", []string{"x", "a/x"}, nil},
		{"{a,b", []string{"{a,b"}, []string{"a"}},
	}
	for _, tt := range tests {
		g, err := compileGlob(tt.pattern)
		if err != nil {
			t.Fatalf("%q: %v", tt.pattern, err)
		}
		for _, p := range tt.yes {
			if !g.match(p) {
				t.Errorf("%q should match %q", tt.pattern, p)
			}
		}
		for _, p := range tt.no {
			if g.match(p) {
				t.Errorf("%q should not match %q", tt.pattern, p)
			}
		}
	}
}

func TestGlobPruning(t *testing.T) {
	t.Parallel()
	g, _ := compileGlob("src/*/x.go")
	for dir, want := range map[string]bool{".": true, "src": true, "src/a": true, "src/a/b": false, "lib": false} {
		if got := g.mayMatchUnder(dir); got != want {
			t.Errorf("mayMatchUnder(%q) = %v, want %v", dir, got, want)
		}
	}
}

func TestSplitLiteralPrefix(t *testing.T) {
	t.Parallel()
	for pattern, want := range map[string][2]string{
		"internal/**/*.go": {"internal", "**/*.go"},
		"a/b/c.go":         {"a/b", "c.go"},
		"*.go":             {"", "*.go"},
		"/abs/dir/*.go":    {"/abs/dir", "*.go"},
		"/x.go":            {"/", "x.go"},
		"{a,b}/x":          {"", "{a,b}/x"},
	} {
		dir, rest := splitLiteralPrefix(pattern)
		if dir != want[0] || rest != want[1] {
			t.Errorf("splitLiteralPrefix(%q) = %q, %q; want %q, %q", pattern, dir, rest, want[0], want[1])
		}
	}
}

// tree creates files under root with increasing mtimes in the order given
// (the last one newest).
func tree(t *testing.T, root string, files ...string) {
	t.Helper()
	base := time.Now().Add(-time.Hour)
	for i, f := range files {
		p := filepath.Join(root, f)
		writeFile(t, p, "content of "+f+"\n")
		mt := base.Add(time.Duration(i) * time.Minute)
		if err := os.Chtimes(p, mt, mt); err != nil {
			t.Fatal(err)
		}
	}
}

func TestGlob(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	tree(t, root,
		"old.go",
		"cmd/main.go",
		"internal/x/x.go",
		"internal/x/x_test.go",
		"README.md",
		".git/hooks/pre.go",
		"newest.go",
	)
	env := NewEnv(root)
	tests := []struct {
		name  string
		input obj
		want  string
	}{
		{"newest first, .git skipped", obj{"pattern": "**/*.go"}, "newest.go\ninternal/x/x_test.go\ninternal/x/x.go\ncmd/main.go\nold.go\n"},
		{"top level only", obj{"pattern": "*.go"}, "newest.go\nold.go\n"},
		{"under a literal prefix", obj{"pattern": "internal/**/*_test.go"}, "internal/x/x_test.go\n"},
		{"path parameter", obj{"pattern": "*.go", "path": "internal/x"}, "internal/x/x_test.go\ninternal/x/x.go\n"},
		{"absolute pattern", obj{"pattern": filepath.Join(root, "cmd") + "/*.go"}, "cmd/main.go\n"},
		{"braces", obj{"pattern": "*.{md,go}"}, "newest.go\nREADME.md\nold.go\n"},
		{"no match", obj{"pattern": "**/*.rs"}, "No files found"},
		{"missing literal dir", obj{"pattern": "nope/*.go"}, "No files found"},
	}
	for _, tt := range tests {
		r := call(t, env, NameGlob, tt.input)
		wantOK(t, r)
		if r.Output != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, r.Output, tt.want)
		}
	}
	wantError(t, call(t, env, NameGlob, obj{"pattern": "*", "path": "missing"}), "directory does not exist: missing")
	wantError(t, call(t, env, NameGlob, obj{"pattern": "*", "path": "README.md"}), "not a directory")
}

func TestGlobCapped(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for i := range globMaxResults + 50 {
		writeFile(t, filepath.Join(root, "d", strings.Repeat("f", 1+i%5)+"-"+strconv.Itoa(i)), "")
	}
	r := call(t, NewEnv(root), NameGlob, obj{"pattern": "**"})
	wantOK(t, r)
	if !strings.Contains(r.Output, "of 1050 matches") {
		t.Fatalf("no cap note: %q", clip(r.Output))
	}
	if len(r.Output) > OutputCap+200 {
		t.Fatalf("output %d bytes", len(r.Output))
	}
}

// FuzzGlobPruning checks the walk never prunes a directory holding a match:
// whenever a path matches, every directory above it may hold matches.
func FuzzGlobPruning(f *testing.F) {
	f.Add("**/*.go", "a/b/c.go")
	f.Add("src/*/x.{go,md}", "src/a/x.md")
	f.Add("a/**/b/**/c", "a/x/b/y/c")
	f.Add("{a,b}/**", "b/c/d")
	f.Fuzz(func(t *testing.T, pattern, path string) {
		g, err := compileGlob(pattern)
		if err != nil {
			return
		}
		if !g.match(path) {
			return
		}
		segs := strings.Split(path, "/")
		for i := 1; i < len(segs); i++ {
			dir := strings.Join(segs[:i], "/")
			if !g.mayMatchUnder(dir) {
				t.Fatalf("%q matches %q but the walk would prune %q", pattern, path, dir)
			}
		}
	})
}

// TestGlobManyDoubleStars guards against exponential backtracking: a model
// can send any pattern.
func TestGlobManyDoubleStars(t *testing.T) {
	t.Parallel()
	g, err := compileGlob(strings.Repeat("**/a/", 12) + "b")
	if err != nil {
		t.Fatal(err)
	}
	deep := strings.Repeat("a/", 200)
	if g.match(deep+"c") || !g.match(deep+"b") {
		t.Fatal("wrong answer on a deep path")
	}
}
