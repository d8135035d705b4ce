package tools

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// newFileMode is the mode of files the tools create: these are the user's
// project files, readable like any file their editor would create.
const newFileMode fs.FileMode = 0o644

// WriteFileAtomic replaces path with data so that a crash or a concurrent
// reader sees the old content or the new, never a torn file: a temp file in
// the same directory, synced, given the mode, then renamed over path.
func WriteFileAtomic(path string, data []byte, mode fs.FileMode) (err error) {
	dir, base := filepath.Split(path)
	tmp, err := os.CreateTemp(dir, "."+base+".clawdcode-*")
	if err != nil {
		return fmt.Errorf("create temp file: %w", err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", tmp.Name(), err)
	}
	if err = tmp.Chmod(mode); err != nil {
		return fmt.Errorf("chmod %s: %w", tmp.Name(), err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", tmp.Name(), err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("close %s: %w", tmp.Name(), err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("rename into place: %w", err)
	}
	return nil
}

// countLines counts lines as an editor shows them: a final line without a
// newline still counts, an empty file has none.
// lineCount is "1 line" or "N lines": the lines of s.
func lineCount(s string) string {
	if n := countLines(s); n != 1 {
		return fmt.Sprintf("%d lines", n)
	}
	return "1 line"
}

func countLines(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			n++
		}
	}
	if len(s) > 0 && s[len(s)-1] != '\n' {
		n++
	}
	return n
}
