package memory

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUndoDoesNotFollowASymlinkedDirectoryOut: issue 17 item 8. A
// directory of the project that became a symlink out of it after the
// agent's edits is never written or deleted through: /undo names it and
// leaves the outside alone.
func TestUndoDoesNotFollowASymlinkedDirectoryOut(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	if err := os.MkdirAll(filepath.Join(w.Project, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	w.writeFile("sub/kept.txt", "the project's original\n")
	w.runJSON("-p", "read sub/kept.txt\nwrite sub/kept.txt rewritten\nwrite sub/made.txt created", "--dangerously-skip-permissions")
	if w.readFile("sub/kept.txt") != "rewritten" || w.readFile("sub/made.txt") != "created" {
		t.Fatalf("the turn did not write: %q %q", w.readFile("sub/kept.txt"), w.readFile("sub/made.txt"))
	}

	outside := filepath.Join(w.Root, "outside")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{"kept.txt": "outside's own\n", "made.txt": "outside's precious\n"} {
		if err := os.WriteFile(filepath.Join(outside, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.RemoveAll(filepath.Join(w.Project, "sub")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(w.Project, "sub")); err != nil {
		t.Fatal(err)
	}

	r := w.Run("-c", "-p", "/undo")
	if !strings.Contains(r.Stdout, "sub is now a symlink out of the project") {
		t.Errorf("/undo did not name the symlinked directory:\n%s", r)
	}
	entries, err := os.ReadDir(outside)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 {
		t.Errorf("/undo wrote outside the project: %v", entries)
	}
	for name, want := range map[string]string{"kept.txt": "outside's own\n", "made.txt": "outside's precious\n"} {
		if got, err := os.ReadFile(filepath.Join(outside, name)); err != nil || string(got) != want {
			t.Errorf("outside/%s = %q (%v) after /undo, want %q", name, got, err, want)
		}
	}
}

// TestUndoInPrintRefusesToLoseTheUsersChange: issue 17 item 8. A file the
// user changed after the agent's edit is not silently put back: -p
// refuses with one line naming it, and the user's change stays.
func TestUndoInPrintRefusesToLoseTheUsersChange(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.writeFile("notes.txt", "the original notes\n")
	w.runJSON("-p", "read notes.txt\nwrite notes.txt the agent's notes", "--dangerously-skip-permissions")
	w.writeFile("notes.txt", "the agent's notes\nand the user's own line\n")

	r := w.Run("-c", "-p", "/undo")
	if r.Code == 0 || !strings.Contains(r.Stderr, "clawdcode: ") || !strings.Contains(r.Stderr, "notes.txt changed since the agent's edit") {
		t.Fatalf("/undo over a user's change:\n%s", r)
	}
	if got := w.readFile("notes.txt"); got != "the agent's notes\nand the user's own line\n" {
		t.Fatalf("notes.txt = %q after the refused /undo: the user's change is lost", got)
	}
	// Once the file is back as the agent left it, /undo goes ahead.
	w.writeFile("notes.txt", "the agent's notes")
	if r := w.MustRun("-c", "-p", "/undo"); !strings.Contains(r.Stdout, "restored  notes.txt") {
		t.Fatalf("/undo after the change was reverted:\n%s", r)
	}
	if got := w.readFile("notes.txt"); got != "the original notes\n" {
		t.Fatalf("notes.txt = %q, want the original", got)
	}
}
