package storage

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

func TestConcurrentAppendsOnOneSession(t *testing.T) {
	t.Parallel()
	s := mustCreate(t, newTestProject(t))
	const workers, each = 4, 200
	var wg sync.WaitGroup
	offsets := make(chan int64, workers*each)
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				off, err := s.Append(userRecord(fmt.Sprintf("w%d-%d", w, i)))
				if err != nil {
					t.Error(err)
					return
				}
				offsets <- off
			}
		})
	}
	wg.Wait()
	close(offsets)
	s.Close()
	recs, offs, warns := readAll(t, s.Path())
	if len(recs) != workers*each || len(warns) != 0 {
		t.Fatalf("%d records, warnings %q", len(recs), warns)
	}
	at := map[int64]bool{}
	for _, o := range offs {
		at[o] = true
	}
	for o := range offsets {
		if !at[o] {
			t.Fatalf("Append returned offset %d, where no line starts", o)
		}
	}
	for i := 1; i < len(recs); i++ {
		if *recs[i].ParentUUID != recs[i-1].UUID {
			t.Fatalf("record %d breaks the parent chain", i)
		}
	}
}

func TestConcurrentClosesKeepEveryIndexEntry(t *testing.T) {
	t.Parallel()
	p := newTestProject(t)
	const n = 8
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			s, err := p.Create(t.Context())
			if err != nil {
				t.Error(err)
				return
			}
			s.Append(userRecord("x"))
			s.SetTitle(fmt.Sprintf("title %d", i))
			if err := s.Close(); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	// Titles live only in the index: a lost update would lose one.
	m := readIndexRedacted(p.Dir, nil)
	titles := map[string]bool{}
	for _, e := range m {
		titles[e.Title] = true
	}
	if len(m) != n || len(titles) != n {
		t.Fatalf("index has %d entries, %d titles; want %d", len(m), len(titles), n)
	}
}

func TestGitHead(t *testing.T) {
	t.Parallel()
	tests := []struct{ head, want string }{
		{"ref: refs/heads/main\n", "main"},
		{"ref: refs/heads/feat/a-b\n", "feat/a-b"},
		{"4b825dc642cb6eb9a060e54bf8d69288fbee4904\n", "HEAD"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := parseHead([]byte(tt.head)); got != tt.want {
			t.Errorf("parseHead(%q) = %q, want %q", tt.head, got, tt.want)
		}
	}
	// A worktree: .git is a file naming the real git directory.
	base := t.TempDir()
	gitdir := filepath.Join(base, "main.git", "worktrees", "wt")
	wt := filepath.Join(base, "wt")
	os.MkdirAll(gitdir, 0o755)
	os.MkdirAll(filepath.Join(wt, "deep"), 0o755)
	os.WriteFile(filepath.Join(gitdir, "HEAD"), []byte("ref: refs/heads/wt-branch\n"), 0o644)
	os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: "+gitdir+"\n"), 0o644)
	if got := newGitHead(filepath.Join(wt, "deep")).Branch(); got != "wt-branch" {
		t.Errorf("worktree branch = %q", got)
	}
}

// FuzzProjectDirs: two different project paths never share a directory,
// and each finds its own again.
func FuzzProjectDirs(f *testing.F) {
	f.Add("a-b/c", "a/b-c")
	f.Add("my_proj", "my.proj")
	f.Add("ü", "é")
	f.Fuzz(func(t *testing.T, a, b string) {
		base := t.TempDir()
		ra, rb := filepath.Join(base, "p", a), filepath.Join(base, "p", b)
		if ra == rb || filepath.Clean(ra) != ra || filepath.Clean(rb) != rb {
			return
		}
		if os.MkdirAll(ra, 0o755) != nil || os.MkdirAll(rb, 0o755) != nil {
			return
		}
		ea, errA := filepath.EvalSymlinks(ra)
		eb, errB := filepath.EvalSymlinks(rb)
		if errA != nil || errB != nil || ea == eb {
			return // one path inside the other's symlink, or the same dir
		}
		st := NewStore(filepath.Join(base, "home"))
		var dirs [2]string
		for i, root := range []string{ra, rb} {
			p, err := st.Project(root)
			if err != nil {
				t.Fatal(err)
			}
			if dirs[i], err = p.ensureDir(); err != nil {
				t.Fatal(err)
			}
		}
		if dirs[0] == dirs[1] {
			t.Fatalf("%q and %q share %s", ra, rb, dirs[0])
		}
		for i, root := range []string{ra, rb} {
			if p, _ := st.Project(root); p.Dir != dirs[i] {
				t.Fatalf("%q found %s, then %s", root, dirs[i], p.Dir)
			}
		}
	})
}
