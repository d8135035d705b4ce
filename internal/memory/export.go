package memory

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// The markers around clawdcode's section of AGENTS.md. Everything outside
// them is the user's and is kept byte for byte.
const (
	exportBegin = "<!-- clawdcode:memory:begin (written by /memory export; edit with /memory) -->"
	exportEnd   = "<!-- clawdcode:memory:end -->"
	beginPrefix = "<!-- clawdcode:memory:begin"
)

// Export writes the project's live memories (not the user's, which are
// personal; not stale, retired or suggested ones) as clawdcode's section
// of the project's AGENTS.md: the section is replaced where it is, or
// appended, and the file is replaced atomically (a temporary file in the
// same directory, synced, renamed over it, the directory synced) with its
// mode kept. It returns the file's path and how many memories it wrote.
// A file with only one of the two markers is left alone (ErrUnmarked).
func (b *Book) Export() (string, int, error) {
	v, err := b.View()
	if err != nil {
		return "", 0, err
	}
	var sec strings.Builder
	sec.WriteString(exportBegin + "\n## Project memory\n\n")
	n := 0
	for _, m := range v.Memories {
		if m.Scope == Project && m.Stale == "" {
			fmt.Fprintf(&sec, "- %s\n", m.Text)
			n++
		}
	}
	if n == 0 {
		sec.WriteString("(no memories)\n")
	}
	sec.WriteString(exportEnd + "\n")
	path := filepath.Join(b.root, "AGENTS.md")
	old, mode, err := readAgents(path)
	if err != nil {
		return "", 0, err
	}
	data, err := replaceSection(old, sec.String())
	if err != nil {
		return "", 0, fmt.Errorf("export to %s: %w", path, err)
	}
	if err := writeAtomic(path, data, mode); err != nil {
		return "", 0, fmt.Errorf("export to %s: %w", path, err)
	}
	return path, n, nil
}

func readAgents(path string) ([]byte, fs.FileMode, error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0o644, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("export: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, 0, fmt.Errorf("export: %s is not a regular file", path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, fmt.Errorf("export: %w", err)
	}
	return data, fi.Mode().Perm(), nil
}

// replaceSection puts sec in the place of the marked section of old, or
// at its end after a blank line.
func replaceSection(old []byte, sec string) ([]byte, error) {
	begin := bytes.Index(old, []byte(beginPrefix))
	end := bytes.Index(old, []byte(exportEnd))
	switch {
	case begin < 0 && end < 0:
		var out bytes.Buffer
		out.Write(old)
		if len(old) > 0 && !bytes.HasSuffix(old, []byte("\n")) {
			out.WriteByte('\n')
		}
		if len(old) > 0 {
			out.WriteByte('\n')
		}
		out.WriteString(sec)
		return out.Bytes(), nil
	case begin < 0 || end < begin:
		return nil, ErrUnmarked
	}
	after := end + len(exportEnd)
	if after < len(old) && old[after] == '\n' {
		after++
	}
	out := append(append(bytes.Clone(old[:begin]), sec...), old[after:]...)
	return out, nil
}

// writeAtomic replaces path with data: a temporary file beside it, synced,
// renamed over it, and the directory synced.
func writeAtomic(path string, data []byte, mode fs.FileMode) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, ".AGENTS.md.*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // gone after the rename; cleans up a failure
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
