package storage

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestUnwritableIndexWarnsOnce: index.json is a cache, so a directory
// standing where it goes (as any unwritable index would) fails nothing:
// sessions are created, closed, listed from their files and removed, and
// the store reports the problem once through its warning hook.
func TestUnwritableIndexWarnsOnce(t *testing.T) {
	t.Parallel()
	st := NewStore(t.TempDir())
	var mu sync.Mutex
	var warnings []string
	st.SetWarn(func(msg string) {
		mu.Lock()
		defer mu.Unlock()
		warnings = append(warnings, msg)
	})
	p, err := st.Project(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s, err := p.Create(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(p.Dir, indexName), 0o700); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, userRecord("hello"))
	if err := s.Flush(); err != nil {
		t.Fatalf("Flush with an unwritable index = %v, want nil", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close with an unwritable index = %v, want nil", err)
	}
	s2, err := p.Create(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s2, userRecord("second"))
	if err := s2.Close(); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		list, err := p.List()
		if err != nil {
			t.Fatalf("List with an unwritable index = %v", err)
		}
		if len(list) != 2 || list[0].ID != s2.ID() || list[1].Title != "hello" {
			t.Fatalf("List = %+v, want both sessions from their files", list)
		}
	}
	if err := p.Remove(s.ID()); err != nil {
		t.Fatalf("Remove with an unwritable index = %v", err)
	}
	if list, err := p.List(); err != nil || len(list) != 1 {
		t.Fatalf("List after Remove = %+v, %v", list, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(warnings) != 1 {
		t.Fatalf("warnings = %q, want exactly one", warnings)
	}
	if w := warnings[0]; !strings.Contains(w, "index") || !strings.Contains(w, p.Dir) || strings.Count(w, "index.json") > 2 {
		t.Errorf("warning %q should name the index and the OS error once", w)
	}
}

// TestUnwritableIndexWithoutHook: with no warning hook the operations still
// succeed.
func TestUnwritableIndexWithoutHook(t *testing.T) {
	t.Parallel()
	p := newTestProject(t)
	s := mustCreate(t, p)
	if err := os.Mkdir(filepath.Join(p.Dir, indexName), 0o700); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, userRecord("hello"))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if list, err := p.List(); err != nil || len(list) != 1 {
		t.Fatalf("List = %+v, %v", list, err)
	}
}
