package checkpoint

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o640); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

// TestUndoRestoresTheTurnsFirstState: the state before a turn's first
// change comes back (a created file goes), turn by turn, newest first.
func TestUndoRestoresTheTurnsFirstState(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	s := New(filepath.Join(t.TempDir(), "cp"), root)
	a, b := filepath.Join(root, "a.txt"), filepath.Join(root, "b.txt")
	write(t, a, "a0")

	// Turn 1 changes a twice; turn 2 changes a and creates b.
	must(t, s.Save("t1", a))
	write(t, a, "a1")
	must(t, s.Save("t1", a))
	write(t, a, "a1b")
	must(t, s.Save("t2", a))
	write(t, a, "a2")
	must(t, s.Save("t2", b))
	write(t, b, "b2")

	turn, err := s.LastTurn()
	if err != nil || turn != "t2" {
		t.Fatalf("last turn %q, %v", turn, err)
	}
	res, err := s.Restore([]string{turn})
	if err != nil || len(res) != 2 {
		t.Fatalf("restore: %+v, %v", res, err)
	}
	if read(t, a) != "a1b" || !strings.Contains(read(t, b), "no such file") {
		t.Fatalf("after undo of t2: a=%q b=%q", read(t, a), read(t, b))
	}
	if turn, _ := s.LastTurn(); turn != "t1" {
		t.Fatalf("next undo is %q, want t1", turn)
	}
	if _, err := s.Restore([]string{"t1"}); err != nil {
		t.Fatal(err)
	}
	if read(t, a) != "a0" {
		t.Fatalf("after undo of t1: a=%q", read(t, a))
	}
	if info, _ := os.Stat(a); info.Mode().Perm() != 0o640 {
		t.Fatalf("mode %v, want the file's own 0640", info.Mode().Perm())
	}
	if turn, _ := s.LastTurn(); turn != "" {
		t.Fatalf("nothing left to undo, got %q", turn)
	}
}

// TestRewindRestoresTheEarliestStateAcrossTurns and never saves a file
// outside the project.
func TestRewindAndBounds(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	s := New(filepath.Join(t.TempDir(), "cp"), root)
	a := filepath.Join(root, "a.txt")
	outside := filepath.Join(t.TempDir(), "outside.txt")
	write(t, a, "a0")
	write(t, outside, "o0")
	must(t, s.Save("t1", a))
	write(t, a, "a1")
	must(t, s.Save("t2", a))
	write(t, a, "a2")
	must(t, s.Save("t2", outside))
	write(t, outside, "o2")
	big := filepath.Join(root, "big.bin")
	write(t, big, strings.Repeat("x", MaxFileBytes+1))
	must(t, s.Save("t2", big))

	changes, err := s.Changes([]string{"t1", "t2"})
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 2 || changes[0].Path != a || changes[1].Skipped == "" {
		t.Fatalf("changes %+v", changes)
	}
	res, err := s.Restore([]string{"t1", "t2"})
	if err != nil {
		t.Fatal(err)
	}
	if read(t, a) != "a0" || read(t, outside) != "o2" {
		t.Fatalf("a=%q outside=%q", read(t, a), read(t, outside))
	}
	if !strings.HasPrefix(res[1].Action, "not restored: larger than") {
		t.Fatalf("big file: %+v", res[1])
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
