package ledger

import (
	"fmt"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// The ledger's text stays within its budget: the reads and the commands
// that succeeded fold first, oldest first, and the folded note names the
// boundary's ref, which Recall opens as the whole ledger; what changed the
// work stays. Each entry is one short line: a read's numbers as bare
// name=value tokens on its path's line.
func TestLedgerTextFoldsWithinBudget(t *testing.T) {
	t.Parallel()
	l := &storage.Ledger{}
	for i := range 60 {
		ref := fmt.Sprintf("%08d-read", i)
		addFile(l, storage.LedgerFile{Path: fmt.Sprintf("src/read%02d.go", i), Op: "read", Lines: "40", Ref: ref})
		addNumber(l, storage.LedgerLine{Text: fmt.Sprintf("budget-%d limit = %d", i, 4000000+i), Source: fmt.Sprintf("Read src/read%02d.go", i), Ref: ref})
	}
	addFile(l, storage.LedgerFile{Path: "src/edited.go", Op: "edit", Lines: "-1 +2", Ref: "edit0000-x"})
	addCommand(l, storage.LedgerCommand{Command: "go test ./...", Exit: 1, Error: "FAIL x", Ref: "cmd00000-x"})
	size := func(s string) int { return len(s) / 4 }
	const boundary = "b0b0b0b0-1111-2222-3333-444444444444"
	for _, budget := range []int{150, 300, 2000} {
		text := render(l, []bound{{budget, size}}, boundary)
		if n := size(text); n > budget {
			t.Errorf("budget %d: the text weighs %d:\n%s", budget, n, text)
		}
		for _, want := range []string{"\nsrc/edited.go edited -1 +2\n", "\ngo test ./... → exit status 1: FAIL x"} {
			if !strings.Contains(text, want) {
				t.Errorf("budget %d: %q was folded:\n%s", budget, want, text)
			}
		}
		if budget < 2000 && (!strings.Contains(text, "Recall ref=b0b0b0b0 lists the whole ledger") || !strings.Contains(text, "\nsrc/read59.go limit=4000059\n")) {
			t.Errorf("budget %d: the newest read should stay, the oldest fold to the boundary's ref:\n%s", budget, text)
		}
		if budget < 2000 && strings.Contains(text, "src/read00.go") {
			t.Errorf("budget %d: the oldest read was kept over newer ones:\n%s", budget, text)
		}
		if budget == 2000 && strings.Contains(text, "Folded") {
			t.Errorf("budget %d: folded what fits:\n%s", budget, text)
		}
	}
}

// A number a search printed before the file was read goes on the file's
// line once it is read: one entry, not two.
func TestLedgerNumberMovesToTheRead(t *testing.T) {
	t.Parallel()
	l := &storage.Ledger{}
	addNumber(l, storage.LedgerLine{Text: "budget-11 limit = 4653246", Source: "Grep", Ref: "grep0000"})
	addFile(l, storage.LedgerFile{Path: "src/a.txt", Op: "read", Ref: "read0000"})
	addNumber(l, storage.LedgerLine{Text: "budget-11 limit = 4653246", Source: "Read src/a.txt", Ref: "read0000"})
	addNumber(l, storage.LedgerLine{Text: "budget-11 limit = 4653246", Source: "Grep", Ref: "grep0001"})
	got := render(l, []bound{{1000, func(s string) int { return len(s) / 4 }}}, "b0b0b0b0")
	if !strings.Contains(got, "\nsrc/a.txt limit=4653246") || strings.Contains(got, "Numbers:") {
		t.Errorf("the number should sit on the read's line alone:\n%s", got)
	}
}

// A file met again replaces its entry; a merge keeps the order of events.
func TestMergeLedgerReplaces(t *testing.T) {
	t.Parallel()
	prev := &storage.Ledger{Files: []storage.LedgerFile{{Path: "a.go", Op: "read", Ref: "1"}, {Path: "b.go", Op: "edit", Ref: "2"}}}
	next := &storage.Ledger{Files: []storage.LedgerFile{{Path: "a.go", Op: "write", Ref: "3"}}}
	got := Merge(prev, next)
	if len(got.Files) != 2 || got.Files[0].Path != "b.go" || got.Files[1].Op != "write" {
		t.Errorf("merged %+v", got.Files)
	}
	if len(prev.Files) != 2 || prev.Files[0].Op != "read" {
		t.Errorf("the merge changed the ledger in force: %+v", prev.Files)
	}
}
