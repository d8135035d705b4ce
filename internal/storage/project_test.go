package storage

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestEscapePath(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"/home/u/my_proj", "-home-u-my-proj"},
		{"/Users/me/.agents", "-Users-me--agents"},
		{"/x/a b/ü", "-x-a-b--"},
		{"/AZaz09", "-AZaz09"},
	}
	for _, tt := range tests {
		if got := escapePath(tt.in); got != tt.want {
			t.Errorf("escapePath(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestHome(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("CLAWDCODE_HOME", dir)
	if got, err := Home(); err != nil || got != dir {
		t.Fatalf("Home() = %q, %v; want %q", got, err, dir)
	}
	t.Setenv("CLAWDCODE_HOME", "")
	t.Setenv("HOME", dir)
	if got, err := Home(); err != nil || got != filepath.Join(dir, ".clawdcode") {
		t.Fatalf("Home() = %q, %v; want %q", got, err, filepath.Join(dir, ".clawdcode"))
	}
}

func TestProjectCreatesNothingUntilCreate(t *testing.T) {
	t.Parallel()
	home := filepath.Join(t.TempDir(), "home")
	p, err := NewStore(home).Project(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(home); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Project created %s (stat err %v)", home, err)
	}
	if list, err := p.List(); err != nil || len(list) != 0 {
		t.Fatalf("List of a new project = %v, %v", list, err)
	}
	if _, err := p.Latest(); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Latest of a new project: %v, want ErrNotFound", err)
	}
	if _, err := os.Stat(home); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("List created %s", home)
	}
}

// createIn makes root (under base) a project with one session and returns
// the directory the session landed in.
func createIn(t *testing.T, st *Store, root string) string {
	t.Helper()
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	p, err := st.Project(root)
	if err != nil {
		t.Fatal(err)
	}
	s := mustCreate(t, p)
	defer s.Close()
	mustAppend(t, s, userRecord("hi"))
	return filepath.Dir(s.Path())
}

func TestEscapedNameCollisions(t *testing.T) {
	t.Parallel()
	pairs := [][2]string{
		{"x/a-b/c", "x/a/b-c"},
		{"x/my_proj", "x/my.proj"},
	}
	for _, pair := range pairs {
		base, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		st := NewStore(t.TempDir())
		first := createIn(t, st, filepath.Join(base, pair[0]))
		second := createIn(t, st, filepath.Join(base, pair[1]))
		if first == second {
			t.Fatalf("%s and %s share %s", pair[0], pair[1], first)
		}
		if want := escapePath(filepath.Join(base, pair[0])); filepath.Base(first) != want {
			t.Errorf("first project dir = %s, want the plain name %s", filepath.Base(first), want)
		}
		if !strings.HasPrefix(filepath.Base(second), filepath.Base(first)+"-") {
			t.Errorf("second project dir %s is not the plain name plus a hash", filepath.Base(second))
		}
		// Each path finds its own directory again, in either order.
		for i, root := range []string{pair[0], pair[1]} {
			p, err := st.Project(filepath.Join(base, root))
			if err != nil {
				t.Fatal(err)
			}
			want := []string{first, second}[i]
			if p.Dir != want {
				t.Errorf("Project(%s).Dir = %s, want %s", root, p.Dir, want)
			}
			if list, _ := p.List(); len(list) != 1 {
				t.Errorf("Project(%s) lists %d sessions, want 1", root, len(list))
			}
		}
		projects, err := st.Projects()
		if err != nil || len(projects) != 2 {
			t.Fatalf("Projects() = %v, %v; want 2", projects, err)
		}
	}
}

func TestSymlinkedPathIsOneProject(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	real := filepath.Join(base, "real")
	link := filepath.Join(base, "link")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	st := NewStore(t.TempDir())
	a, err := st.Project(real)
	if err != nil {
		t.Fatal(err)
	}
	b, err := st.Project(link + "/")
	if err != nil {
		t.Fatal(err)
	}
	if a.Dir != b.Dir || a.Root != b.Root {
		t.Fatalf("real %+v and link %+v differ", a, b)
	}
	s := mustCreate(t, b)
	mustAppend(t, s, userRecord("via the link"))
	s.Close()
	recs, _, _ := readAll(t, s.Path())
	if want, _ := filepath.EvalSymlinks(real); recs[0].CWD != want {
		t.Errorf("cwd = %s, want the resolved path %s", recs[0].CWD, want)
	}
}

func TestVeryLongPath(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	root := base
	for len(root) < 600 {
		root = filepath.Join(root, strings.Repeat("long_segment", 8))
	}
	st := NewStore(t.TempDir())
	dir := createIn(t, st, root)
	if n := len(filepath.Base(dir)); n >= 255 {
		t.Fatalf("project dir name is %d bytes", n)
	}
	// A sibling with the same first 200 escaped characters gets its own.
	other := createIn(t, st, root+"x")
	if other == dir {
		t.Fatalf("two long paths share %s", dir)
	}
	p, _ := st.Project(root)
	if p.Dir != dir {
		t.Fatalf("long path found %s, then %s", dir, p.Dir)
	}
}

func TestPermissions(t *testing.T) {
	// No t.Parallel: the umask is process-wide.
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	home := filepath.Join(t.TempDir(), "home")
	p, err := NewStore(home).Project(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s := mustCreate(t, p)
	mustAppend(t, s, userRecord("hi"))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := p.List(); err != nil {
		t.Fatal(err)
	}
	checked := 0
	err = filepath.WalkDir(home, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		want := fs.FileMode(0o600)
		if d.IsDir() {
			want = 0o700
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s has mode %v, want %v", path, fi.Mode().Perm(), want)
		}
		checked++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 6 { // home, projects, project dir, marker, session, index
		t.Errorf("only %d paths under home", checked)
	}
}

func TestPathRejectsInvalidIDs(t *testing.T) {
	t.Parallel()
	p := newTestProject(t)
	for _, id := range []string{"", "../x", "a/b", "..", `a\b`, "a.b", "x y"} {
		if got := p.Path(id); got != "" {
			t.Errorf("Path(%q) = %q, want empty", id, got)
		}
		// Resolve also matches titles, so "a.b" or "x y" may name a
		// session; nothing that looks like a path does.
		if _, err := p.Resolve(id); !errors.Is(err, ErrInvalidID) && !(errors.Is(err, ErrNotFound) && (id == "a.b" || id == "x y")) {
			t.Errorf("Resolve(%q) = %v, want ErrInvalidID", id, err)
		}
		if _, err := p.Open(context.Background(), id); !errors.Is(err, ErrInvalidID) {
			t.Errorf("Open(%q) = %v, want ErrInvalidID", id, err)
		}
		if err := p.Remove(id); !errors.Is(err, ErrInvalidID) {
			t.Errorf("Remove(%q) = %v, want ErrInvalidID", id, err)
		}
	}
}

func TestCreateMovesWhenNameClaimedMeanwhile(t *testing.T) {
	t.Parallel()
	base, _ := filepath.EvalSymlinks(t.TempDir())
	ra, rb := filepath.Join(base, "a-b", "c"), filepath.Join(base, "a", "b-c")
	os.MkdirAll(ra, 0o755)
	os.MkdirAll(rb, 0o755)
	st := NewStore(t.TempDir())
	pa, _ := st.Project(ra)
	pb, _ := st.Project(rb)
	if pa.Dir != pb.Dir {
		t.Fatalf("setup: both should pick the free plain name, got %s and %s", pa.Dir, pb.Dir)
	}
	sb := mustCreate(t, pb) // b claims the name first
	sb.Close()
	sa := mustCreate(t, pa) // a finds it taken and moves
	sa.Close()
	if filepath.Dir(sa.Path()) == filepath.Dir(sb.Path()) || pa.Dir == pb.Dir {
		t.Fatalf("a and b share %s", pa.Dir)
	}
	if again, _ := st.Project(ra); again.Dir != pa.Dir {
		t.Fatalf("a found %s, then %s", pa.Dir, again.Dir)
	}
}

// A Project claims its directory once; a Create after the directory was
// removed (the whole store deleted while a process holds the Project)
// claims it again instead of failing.
func TestCreateAfterTheProjectDirectoryWasRemoved(t *testing.T) {
	t.Parallel()
	st := NewStore(t.TempDir())
	p, err := st.Project(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s := mustCreate(t, p)
	s.Close()
	if err := os.RemoveAll(st.Home()); err != nil {
		t.Fatal(err)
	}
	s = mustCreate(t, p)
	mustAppend(t, s, userRecord("hi"))
	s.Close()
	if owner, err := readMarker(p.Dir); err != nil || owner != p.Root {
		t.Fatalf("marker after the second Create: %q, %v", owner, err)
	}
}
