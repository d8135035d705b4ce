package harness

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/fixtures"
)

// InstallSource copies a real session of another tool (a fixture under
// testdata/fixtures) into dir/rel, with every working directory it
// records rewritten to project, so that clawdcode can import it as a
// session of project and be run there. It returns the copy's path.
func InstallSource(t testing.TB, fixture []string, dir, rel, project string) string {
	t.Helper()
	b := string(fixtures.Read(t, fixture...))
	b = regexp.MustCompile(`"cwd":"[^"]*"`).ReplaceAllString(b, `"cwd":"`+project+`"`)
	b = strings.ReplaceAll(b, "/home/dev/inventory", project) // Codex's session_meta and context
	path := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(b), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
