package tools

import (
	"os"
	"path/filepath"
	"testing"
)

// The patterns of the work tree above the project apply, each in its own
// directory, with git's precedence.
func TestIgnoreSetFollowsTheWorkTree(t *testing.T) {
	t.Parallel()
	repo := t.TempDir()
	write := func(name, content string) {
		p := filepath.Join(repo, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".git/info/exclude", "secret.txt\n")
	write(".gitignore", "# comment\n*.tmp\ndist/\n")
	write("app/.gitignore", "!important.tmp\n/local/\n")
	project := filepath.Join(repo, "app")
	s := newIgnoreSet(project, project)
	cases := []struct {
		path  string
		isDir bool
		want  bool
	}{
		{"app/a.tmp", false, true},
		{"app/important.tmp", false, false},
		{"app/dist", true, true},
		{"app/local", true, true},
		{"app/sub/local", true, false}, // anchored to app/
		{"app/secret.txt", false, true},
		{"app/main.go", false, false},
		{"app/.git", true, true},
	}
	for _, c := range cases {
		if got := s.skips(filepath.Join(repo, c.path), c.isDir); got != c.want {
			t.Errorf("skips(%s) = %v, want %v", c.path, got, c.want)
		}
	}
	// A search the model points into an ignored directory sees all of it.
	inside := newIgnoreSet(project, filepath.Join(project, "dist"))
	if inside.skips(filepath.Join(project, "dist", "x.tmp"), false) {
		t.Error("a named ignored directory is still filtered")
	}
}
