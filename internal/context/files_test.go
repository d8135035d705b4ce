package contextmgr

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/fileanalyzer"
)

func writeFile(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// testFiles picks the files named by tool calls, modified ones first, and
// reads them from disk: enough of the analyzer's contract to see that the
// manager passes the current content on.
func testFiles(root string, msgs []chat.Message) ([]fileanalyzer.File, error) {
	var modified, read []string
	seen := map[string]bool{}
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			var args struct {
				Path string `json:"file_path"`
			}
			if json.Unmarshal([]byte(c.Arguments), &args) != nil || args.Path == "" || seen[args.Path] {
				continue
			}
			seen[args.Path] = true
			if c.Name == "Edit" || c.Name == "Write" {
				modified = append(modified, args.Path)
			} else {
				read = append(read, args.Path)
			}
		}
	}
	var out []fileanalyzer.File
	for _, p := range append(modified, read...) {
		b, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			continue
		}
		out = append(out, fileanalyzer.File{Path: p, Content: string(b)})
	}
	return out, nil
}
