package perf

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/fixtures"
)

// importHugeBytes is the one huge tool output of BenchmarkImportHugeRecord:
// issue 18's 100 MB record.
const importHugeBytes = 100 << 20

// BenchmarkImportHugeRecord is `clawdcode import claude-code` of a session
// holding one 100 MB tool result, through the binary, with its peak RSS:
// the result alone (a 100 MB line), and as Claude Code writes it, also
// repeated in toolUseResult (a 200 MB line). Target (issue 18): ≤ 256 MiB
// for the 100 MB record.
func BenchmarkImportHugeRecord(b *testing.B) {
	for _, c := range []struct {
		name  string
		twice bool
	}{{"Line100MB", false}, {"ToolUseResult200MB", true}} {
		b.Run(c.name, func(b *testing.B) {
			w := newWorld(b)
			src := filepath.Join(w.root, "claude-projects")
			out := strings.Repeat("0123456789abcdef\n", importHugeBytes/17)
			total := fixtures.WriteHugeClaudeSession(b, filepath.Join(src, "-p", "0c0ffee0-0000-4000-8000-000000000100.jsonl"), w.project, out, c.twice)
			benchImport(b, w, src, total, "Imported 1 session")
		})
	}
}
