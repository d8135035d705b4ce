package checkpoint

import (
	"path/filepath"
	"strings"
	"testing"
)

// A rewind's restore can be taken back (Return): the files come back as
// they were before it, /undo then finds the turns the rewind undid (not
// one an /undo had undone before it, nor the rewind's own saves), and the
// return can be taken back in turn.
func TestReturnFromARewind(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	s := New(filepath.Join(t.TempDir(), "cp"), root)
	a, b := filepath.Join(root, "a.txt"), filepath.Join(root, "b.txt")
	write(t, a, "a0")
	must(t, s.Save("t1", a))
	write(t, a, "a1")
	must(t, s.Save("t2", a))
	write(t, a, "a2")
	must(t, s.Save("t2", b))
	write(t, b, "b2")
	must(t, s.Save("t3", a))
	write(t, a, "a3")
	if _, err := s.Restore([]string{"t3"}); err != nil { // an /undo
		t.Fatal(err)
	}

	if _, err := s.RestoreForRewind("r1", []string{"t2", "t3"}); err != nil {
		t.Fatal(err)
	}
	if read(t, a) != "a1" || !strings.Contains(read(t, b), "no such file") {
		t.Fatalf("after the rewind: a=%q b=%q", read(t, a), read(t, b))
	}
	if turn, _ := s.LastTurn(); turn != "t1" {
		t.Fatalf("after the rewind /undo takes %q, want t1", turn)
	}
	if ch, err := s.ReturnChanges("r1"); err != nil || len(ch) != 2 {
		t.Fatalf("a return puts back %+v (%v), want a.txt and b.txt", ch, err)
	}

	if _, err := s.Return("r1", "r2"); err != nil {
		t.Fatal(err)
	}
	if read(t, a) != "a2" || read(t, b) != "b2" {
		t.Fatalf("after the return: a=%q b=%q", read(t, a), read(t, b))
	}
	if turn, _ := s.LastTurn(); turn != "t2" {
		t.Fatalf("after the return /undo takes %q, want t2 (t3 was undone before the rewind)", turn)
	}

	if _, err := s.Return("r2", "r3"); err != nil {
		t.Fatal(err)
	}
	if read(t, a) != "a1" || !strings.Contains(read(t, b), "no such file") {
		t.Fatalf("after returning from the return: a=%q b=%q", read(t, a), read(t, b))
	}
}
