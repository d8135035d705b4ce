package slash

import (
	"strings"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/tools"
)

func TestFormatShells(t *testing.T) {
	t.Parallel()
	if got := formatShells(nil); !strings.HasPrefix(got, "No background commands") {
		t.Errorf("empty list: %q", got)
	}
	got := formatShells([]tools.ShellInfo{
		{ID: "bash_1", Command: "npm run dev", Running: true, Status: "running", Runtime: 3200 * time.Millisecond, Bytes: 2048},
		{ID: "bash_2", Command: "make\nmake install", Status: "exit status 2", Runtime: 95 * time.Second, Bytes: 12},
	})
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("want a line per command:\n%s", got)
	}
	for i, want := range [][]string{
		{"bash_1", "running", "3.2s", "2.0 KiB", "npm run dev"},
		{"bash_2", "exit status 2", "1m35s", "12 B", "make…"},
	} {
		for _, w := range want {
			if !strings.Contains(lines[i], w) {
				t.Errorf("line %d %q lacks %q", i+1, lines[i], w)
			}
		}
	}
}
