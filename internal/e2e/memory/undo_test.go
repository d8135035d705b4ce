package memory

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUndoRestoresTheLastTurnsFiles: /undo (as the -p prompt) puts back
// the files Write changed in the last turn — a created file goes, an
// overwritten one gets its content back — one turn at a time; the
// checkpoints live under CLAWDCODE_HOME.
func TestUndoRestoresTheLastTurnsFiles(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.writeFile("notes.txt", "the original notes\n")
	// Write replaces only a file the session has read.
	w.runJSON("-p", "read notes.txt\nwrite notes.txt rewritten", "--dangerously-skip-permissions")
	w.runJSON("-c", "-p", "write created.txt brand-new", "--dangerously-skip-permissions")
	if w.readFile("notes.txt") != "rewritten" || w.readFile("created.txt") != "brand-new" {
		t.Fatalf("the turns did not write: %q %q", w.readFile("notes.txt"), w.readFile("created.txt"))
	}

	r := w.MustRun("-c", "-p", "/undo")
	if !strings.Contains(r.Stdout, "removed  created.txt") {
		t.Fatalf("/undo printed:\n%s", r)
	}
	if _, err := os.Stat(filepath.Join(w.Project, "created.txt")); !os.IsNotExist(err) {
		t.Fatalf("created.txt is still there after /undo: %v", err)
	}
	if w.readFile("notes.txt") != "rewritten" {
		t.Fatal("/undo went further back than the last turn")
	}
	r = w.MustRun("-c", "-p", "/undo")
	if w.readFile("notes.txt") != "the original notes\n" || !strings.Contains(r.Stdout, "restored  notes.txt") {
		t.Fatalf("second /undo: notes.txt = %q\n%s", w.readFile("notes.txt"), r)
	}
	r = w.MustRun("-c", "-p", "/undo")
	if !strings.Contains(r.Stdout, "Nothing to undo") {
		t.Fatalf("third /undo:\n%s", r)
	}
	if m, _ := filepath.Glob(filepath.Join(w.Home, "checkpoints", "*", "*", "manifest.jsonl")); len(m) != 1 {
		t.Fatalf("checkpoints under CLAWDCODE_HOME: %v", m)
	}
}
