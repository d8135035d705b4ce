package deffile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestReadRefusesAllButRegularFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	secret := filepath.Join(t.TempDir(), "credentials")
	for name, content := range map[string]string{"ok.md": "hello", secret: "TOPSECRET", "big.md": strings.Repeat("x", 11)} {
		if !filepath.IsAbs(name) {
			name = filepath.Join(dir, name)
		}
		if err := os.WriteFile(name, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	must(t, os.Symlink(secret, filepath.Join(dir, "link.md")))
	must(t, os.Symlink("ok.md", filepath.Join(dir, "inside-link.md")))
	must(t, os.Mkdir(filepath.Join(dir, "sub.md"), 0o755))
	must(t, syscall.Mkfifo(filepath.Join(dir, "fifo.md"), 0o600))

	if data, err := Read(dir, "ok.md", 10); err != nil || string(data) != "hello" {
		t.Fatalf("a regular file: %q, %v", data, err)
	}
	for name, want := range map[string]string{
		"link.md":        "a symbolic link",
		"inside-link.md": "a symbolic link",
		"sub.md":         "a directory",
		"fifo.md":        "not a regular file",
		"../x.md":        "the name",
		"..":             "the name",
	} {
		data, err := Read(dir, name, 10)
		if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), want) || data != nil {
			t.Errorf("%s: %q, %v; want %q", name, data, err, want)
		}
	}
	if _, err := Read(dir, "big.md", 10); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("a file over the limit: %v", err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
