package contextmgr

import (
	"fmt"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// The ledger's text stays within its budget: the reads and the commands
// that succeeded fold first, oldest first, to their refs; what changed
// the work stays.
func TestLedgerTextFoldsWithinBudget(t *testing.T) {
	t.Parallel()
	l := &storage.Ledger{}
	for i := range 60 {
		addFile(l, storage.LedgerFile{Path: fmt.Sprintf("src/read%02d.go", i), Op: "read", Lines: "40", Ref: fmt.Sprintf("%08d-read", i)})
	}
	addFile(l, storage.LedgerFile{Path: "src/edited.go", Op: "edit", Lines: "-1 +2", Ref: "edit0000-x"})
	addCommand(l, storage.LedgerCommand{Command: "go test ./...", Exit: 1, Error: "FAIL x", Ref: "cmd00000-x"})
	size := func(s string) int { return len(s) / 4 }
	for _, budget := range []int{150, 300, 2000} {
		text := ledgerText(l, budget, size)
		if n := size(text); n > budget {
			t.Errorf("budget %d: the text weighs %d:\n%s", budget, n, text)
		}
		for _, want := range []string{"src/edited.go (edited, lines -1 +2)", "`go test ./...` — exit status 1: FAIL x"} {
			if !strings.Contains(text, want) {
				t.Errorf("budget %d: %q was folded:\n%s", budget, want, text)
			}
		}
		if budget < 2000 && (!strings.Contains(text, "Folded for room") || !strings.Contains(text, "src/read59.go")) {
			t.Errorf("budget %d: the newest read should stay and the oldest fold:\n%s", budget, text)
		}
		if budget < 2000 && strings.Contains(text, "src/read00.go") {
			t.Errorf("budget %d: the oldest read was kept over newer ones:\n%s", budget, text)
		}
	}
}

// A file met again replaces its entry; a merge keeps the order of events.
func TestMergeLedgerReplaces(t *testing.T) {
	t.Parallel()
	prev := &storage.Ledger{Files: []storage.LedgerFile{{Path: "a.go", Op: "read", Ref: "1"}, {Path: "b.go", Op: "edit", Ref: "2"}}}
	next := &storage.Ledger{Files: []storage.LedgerFile{{Path: "a.go", Op: "write", Ref: "3"}}}
	got := mergeLedger(prev, next)
	if len(got.Files) != 2 || got.Files[0].Path != "b.go" || got.Files[1].Op != "write" {
		t.Errorf("merged %+v", got.Files)
	}
	if len(prev.Files) != 2 || prev.Files[0].Op != "read" {
		t.Errorf("the merge changed the ledger in force: %+v", prev.Files)
	}
}
