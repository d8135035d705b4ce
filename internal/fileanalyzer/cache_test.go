package fileanalyzer

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/chat"
)

type mapCache map[string]any

func (c mapCache) Get(k string) (any, bool) { v, ok := c[k]; return v, ok }
func (c mapCache) Add(k string, v any)      { c[k] = v }

// TestSelectCachesContents: with a Cache, an unchanged file's content
// comes from it (a second summary need not read it again) and a changed
// one is read anew.
func TestSelectCachesContents(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	path := filepath.Join(root, "a.go")
	if err := os.WriteFile(path, []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	msgs := []chat.Message{{Role: chat.RoleUser, Content: "look at a.go"}}
	cache := mapCache{}
	sel := func() string {
		t.Helper()
		files, err := Select(root, msgs, Options{Cache: cache})
		if err != nil || len(files) != 1 {
			t.Fatalf("Select: %v %v", files, err)
		}
		return files[0].Content
	}
	if got := sel(); got != "package a\n" || len(cache) != 1 {
		t.Fatalf("first Select: %q, %d cached", got, len(cache))
	}
	for k := range cache {
		cache[k] = cachedText{content: "from the cache\n"}
	}
	if got := sel(); got != "from the cache\n" {
		t.Errorf("an unchanged file was read again: %q", got)
	}
	if err := os.WriteFile(path, []byte("package a // changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(path, later, later); err != nil {
		t.Fatal(err)
	}
	if got := sel(); got != "package a // changed\n" {
		t.Errorf("a changed file came from the cache: %q", got)
	}
}
