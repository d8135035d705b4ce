package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestDeniedPaths(t *testing.T) {
	root := "/work/proj"
	for _, tc := range []struct {
		out  string
		want []string
	}{
		{"touch: cannot touch '/root/x': Permission denied\n", []string{"/root/x"}},
		{"/bin/bash: line 1: .git/hooks/pre-commit: Read-only file system\n", []string{"/work/proj/.git/hooks/pre-commit"}},
		{"error: could not write config file .git/config: Device or resource busy\n", []string{"/work/proj/.git/config"}},
		{"mkdir: cannot create directory ‘/etc/x’: Permission denied\n", []string{"/etc/x"}},
		{"/usr/bin/touch: cannot touch 'g': Permission denied\n", []string{"/work/proj/g"}},
		{"all fine\nPASS\n", nil},
	} {
		if got := deniedPaths(tc.out, root); !slices.Equal(got, tc.want) {
			t.Errorf("deniedPaths(%q) = %q, want %q", tc.out, got, tc.want)
		}
	}
}

// TestWriteNotes: one line per kind of refusal, naming the paths; a path
// the policy allows (the command failed for its own reasons) is not
// blamed on the sandbox.
func TestWriteNotes(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".git", "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".git", "config"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	pol := Policy{Mode: WorkspaceWrite, Root: root, TempDirs: []string{"/tmp-for-test"}}
	notes := writeNotes(pol, []string{"/home/u/x", filepath.Join(root, ".git", "config"), filepath.Join(root, "ok.txt"), "/tmp-for-test/y"})
	if len(notes) != 2 {
		t.Fatalf("notes %q, want two lines", notes)
	}
	if !strings.Contains(notes[0], ".git/config") || strings.Contains(notes[0], "ok.txt") {
		t.Errorf("protected note: %s", notes[0])
	}
	if !strings.Contains(notes[1], "/home/u/x") || strings.Contains(notes[1], "/tmp-for-test") {
		t.Errorf("outside note: %s", notes[1])
	}
	pol.Mode = ReadOnly
	if n := writeNotes(pol, []string{filepath.Join(root, "ok.txt")}); len(n) != 1 || !strings.Contains(n[0], "read-only") {
		t.Errorf("read-only note: %q", n)
	}
}

// TestProtected: .git/config, hooks and .clawdcode stay read-only, the
// rest of .git is writable; CLAWDCODE_HOME under a writable root too.
func TestProtected(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{".git/hooks", ".git/objects", ".clawdcode", "home"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, ".git", "config"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	pol := Policy{Mode: WorkspaceWrite, Root: root, Home: filepath.Join(root, "home")}
	want := []string{filepath.Join(root, ".clawdcode"), filepath.Join(root, ".git", "config"), filepath.Join(root, ".git", "hooks"), filepath.Join(root, "home")}
	if got := pol.Protected(); !slices.Equal(got, want) {
		t.Errorf("Protected = %q, want %q", got, want)
	}
	for path, may := range map[string]bool{
		filepath.Join(root, ".git", "objects", "ab"): true, filepath.Join(root, ".git", "index"): true,
		filepath.Join(root, ".git", "hooks", "pre-commit"): false, filepath.Join(root, "home", "x"): false,
		filepath.Join(root, "src", "a.go"): true, "/etc/passwd": false,
	} {
		if got := pol.MayWrite(path); got != may {
			t.Errorf("MayWrite(%s) = %v, want %v", path, got, may)
		}
	}
}
