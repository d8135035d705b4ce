package ledger

import (
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// A ledger's lines are short: a read's numbers as bare name=value tokens
// on its path's line, a command with its exit status and last output;
// the listing Recall shows gives every entry its ref.
func TestLedgerEntriesAndListing(t *testing.T) {
	t.Parallel()
	l := &storage.Ledger{
		Files: []storage.LedgerFile{{Path: "src/a.go", Op: "read", Ref: "aaaaaaaa-1"}, {Path: "src/b.go", Op: "edit", Lines: "-1 +2", Ref: "bbbbbbbb-2"}},
		Commands: []storage.LedgerCommand{{Command: "go test ./...", Exit: 1, Error: "FAIL x", Ref: "cccccccc-3"},
			{Command: "go vet", Exit: 0, Ref: "dddddddd-4"}, {Command: "sleep 99", Exit: -1, Error: "timed out", Ref: "eeeeeeee-5"}},
		Numbers: []storage.LedgerLine{{Text: "retry budget = 4817263, p99: 35ms", Source: "Read src/a.go", Ref: "aaaaaaaa-1"},
			{Text: "src/c.go:3:max conns = 128", Source: "Grep", Ref: "ffffffff-6"}},
	}
	want := []string{
		"src/a.go budget=4817263 p99=35ms",
		"src/b.go edited -1 +2",
		"go test ./... → exit status 1: FAIL x",
		"go vet → exit status 0",
		"sleep 99 → did not exit: timed out",
		"src/c.go:3:max conns=128 (Grep)",
	}
	got := entries(l)
	if len(got) != len(want) {
		t.Fatalf("%d entries, want %d: %+v", len(got), len(want), got)
	}
	for i, e := range got {
		if e.Line != want[i] {
			t.Errorf("entry %d = %q, want %q", i, e.Line, want[i])
		}
	}
	if !got[0].HasNumbers || got[1].Op != "edit" || got[2].Exit != 1 {
		t.Errorf("weights' inputs lost: %+v", got[:3])
	}
	listing := Listing(l)
	for _, s := range []string{"Files:\nsrc/a.go budget=4817263 p99=35ms ref=aaaaaaaa\n", "\nNumbers:\nsrc/c.go:3:max conns=128 (Grep) ref=ffffffff"} {
		if !strings.Contains(listing, s) {
			t.Errorf("the listing lacks %q:\n%s", s, listing)
		}
	}
}

// TestLedgerCommandIsOneLine: a command of several lines (a heredoc) is
// one line of the ledger, as every entry is.
func TestLedgerCommandIsOneLine(t *testing.T) {
	t.Parallel()
	l := &storage.Ledger{Commands: []storage.LedgerCommand{{Command: "cat > notes.txt <<'EOF'\nfirst\nsecond\nEOF", Exit: 2, Error: "no space", Ref: "dddddddd-4"}}}
	if line := commandLine(l.Commands[0]); strings.Contains(line, "\n") || !strings.HasPrefix(line, "cat > notes.txt <<'EOF' first second EOF → exit status 2") {
		t.Errorf("Line = %q, want the command on one line", line)
	}
	if listing := Listing(l); strings.Count(listing, "\n") != 1 {
		t.Errorf("Listing holds %d lines, want the heading and one entry:\n%s", strings.Count(listing, "\n")+1, listing)
	}
}
