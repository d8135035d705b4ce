package storage

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

func TestRepoRootAndEnclosing(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	root := filepath.Join(tmp, "repo")
	sub := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := RepoRoot(sub); got != root {
		t.Fatalf("RepoRoot(%s) = %q, want %q", sub, got, root)
	}
	if got := RepoRoot(tmp); got != "" {
		t.Fatalf("RepoRoot outside a repository = %q", got)
	}

	store := NewStore(filepath.Join(tmp, "home"))
	p, err := store.Project(sub)
	if err != nil {
		t.Fatal(err)
	}
	if q, _ := p.Enclosing(); q != nil {
		t.Fatalf("Enclosing found %s with no session anywhere", q.Root)
	}
	if _, err := os.Stat(filepath.Join(tmp, "home")); !os.IsNotExist(err) {
		t.Fatalf("looking for sessions created the store (%v)", err)
	}
	rp, err := store.Project(root)
	if err != nil {
		t.Fatal(err)
	}
	s, err := rp.Create(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(&Record{Type: TypeUser, Message: &Message{Role: "user", Content: "hello"}}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	q, list := p.Enclosing()
	if q == nil || q.Root != root || len(list) != 1 {
		t.Fatalf("Enclosing = %v, %v; want the root's one session", q, list)
	}
}
