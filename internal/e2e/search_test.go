package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// Searches and session writers at once: every search succeeds, none sees
// half an index, and a search started after the writers finished sees
// every record they wrote — also after the index is deleted.
func TestSearchWhileOthersSearchAndWrite(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	w.Server.SetResponder(llmtest.Agent())
	var wg sync.WaitGroup
	errs := make(chan string, 32)
	for i := range 4 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			if r := w.Run("-p", fmt.Sprintf("wombat number %d", i)); r.Code != 0 {
				errs <- r.String()
			}
		}()
		go func() {
			defer wg.Done()
			if r := w.Run("search", "--json", "wombat"); r.Code != 0 || !strings.HasPrefix(strings.TrimSpace(r.Stdout), "[") {
				errs <- r.String()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Errorf("a concurrent run failed: %s", e)
	}
	// Each run wrote its prompt and the echo of it.
	r := w.MustRun("search", "--json", "--limit", "100", "wombat")
	if n := strings.Count(r.Stdout, `"uuid"`); n != 8 {
		t.Errorf("%d hits after the writers finished, want 8:\n%s", n, r.Stdout)
	}
	if err := os.RemoveAll(filepath.Join(w.Home, "search")); err != nil {
		t.Fatal(err)
	}
	r = w.MustRun("search", "--json", "--limit", "100", "wombat")
	if n := strings.Count(r.Stdout, `"uuid"`); n != 8 {
		t.Errorf("%d hits after deleting the index, want 8", n)
	}
}
