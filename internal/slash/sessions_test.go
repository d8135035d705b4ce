package slash

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/storage"
)

var sampleSessions = []storage.SessionInfo{
	{ID: "aaaa1111-0000-4000-8000-000000000001", Title: "Fix the parser", Messages: 12, Updated: time.Date(2026, 5, 2, 10, 0, 0, 0, time.UTC)},
	{ID: "aaaa2222-0000-4000-8000-000000000002", Title: "fix CI", Messages: 3, Updated: time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)},
	{ID: "bbbb3333-0000-4000-8000-000000000003", Title: "", Messages: 1, Updated: time.Date(2026, 4, 30, 8, 0, 0, 0, time.UTC)},
	{ID: "cccc4444-0000-4000-8000-000000000004", Title: "aaaa notes", Messages: 5, Updated: time.Date(2026, 4, 29, 8, 0, 0, 0, time.UTC)},
}

func TestWriteSessionsMarksTheCurrentOne(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if err := writeSessions(&out, sampleSessions[:3], sampleSessions[1].ID); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("want a header and 3 rows:\n%s", out.String())
	}
	for i, want := range []string{"ID", "aaaa1111", "* aaaa2222", "bbbb3333"} {
		if !strings.Contains(lines[i], want) {
			t.Errorf("line %d = %q, want it to contain %q", i, lines[i], want)
		}
	}
	updated := sampleSessions[0].Updated.Local().Format("2006-01-02 15:04")
	if !strings.Contains(lines[1], updated) || !strings.Contains(lines[1], "12") || !strings.Contains(lines[1], "Fix the parser") {
		t.Errorf("row lacks updated/messages/title: %q", lines[1])
	}
	if !strings.Contains(lines[3], "(untitled)") || strings.HasPrefix(lines[1], "*") {
		t.Errorf("rows = %q", lines)
	}
}
