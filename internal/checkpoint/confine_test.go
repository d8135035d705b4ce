package checkpoint

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDriftedListsWhatARestoreWouldLose: a file changed after clawdcode
// wrote it is listed with the lines a restore drops; once it is back as
// clawdcode left it, it is not; after a restore, the restored content is
// what clawdcode left.
func TestDriftedListsWhatARestoreWouldLose(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	s := New(filepath.Join(t.TempDir(), "cp"), root)
	a := filepath.Join(root, "a.txt")
	write(t, a, "before\n")
	must(t, s.Save("t1", a))
	write(t, a, "agent\n")
	must(t, s.Wrote(a, []byte("agent\n")))

	if d, err := s.Drifted([]string{"t1"}); err != nil || len(d) != 0 {
		t.Fatalf("unchanged file drifted: %v %v", d, err)
	}
	write(t, a, "agent\nuser's line\n")
	d, err := s.Drifted([]string{"t1"})
	if err != nil || len(d) != 1 || d[0].Path != a || !strings.Contains(d[0].Diff, "-user's line") {
		t.Fatalf("drift = %+v, %v", d, err)
	}
	write(t, a, "agent\n")
	if _, err := s.Restore([]string{"t1"}); err != nil || read(t, a) != "before\n" {
		t.Fatalf("restore: %q %v", read(t, a), err)
	}
	must(t, s.Save("t2", a))
	if d, err := s.Drifted([]string{"t2"}); err != nil || len(d) != 0 {
		t.Fatalf("the restored file drifted: %v %v", d, err)
	}
}

// TestRestoreDoesNotFollowADirectoryOutOfTheProject: a directory that
// became a symlink out of the project is named, and nothing outside is
// written or removed.
func TestRestoreDoesNotFollowADirectoryOutOfTheProject(t *testing.T) {
	t.Parallel()
	root, outside := t.TempDir(), t.TempDir()
	s := New(filepath.Join(t.TempDir(), "cp"), root)
	sub := filepath.Join(root, "sub")
	must(t, os.Mkdir(sub, 0o755))
	kept, made := filepath.Join(sub, "kept.txt"), filepath.Join(sub, "made.txt")
	write(t, kept, "old")
	must(t, s.Save("t1", kept))
	must(t, s.Save("t1", made))
	must(t, os.RemoveAll(sub))
	must(t, os.Symlink(outside, sub))
	write(t, filepath.Join(outside, "kept.txt"), "outside")
	write(t, filepath.Join(outside, "made.txt"), "outside")

	res, err := s.Restore([]string{"t1"})
	if err != nil || len(res) != 2 {
		t.Fatalf("restore %v %v", res, err)
	}
	for _, r := range res {
		if !strings.Contains(r.Action, sub+" is now a symlink out of the project") {
			t.Errorf("%s: %s", r.Path, r.Action)
		}
	}
	for _, name := range []string{"kept.txt", "made.txt"} {
		if got := read(t, filepath.Join(outside, name)); got != "outside" {
			t.Errorf("outside/%s = %q", name, got)
		}
	}
}
