package memory

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/clawdcode/clawdcode/internal/tools"
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
// appended, and the file is replaced atomically (tools.WriteFileAtomic,
// as the agent's own writes) with its mode kept. It returns the file's path and how many memories it wrote.
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
	if err := tools.WriteFileAtomic(path, data, mode); err != nil {
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
