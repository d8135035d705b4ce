package importer

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/clawdcode/clawdcode/internal/fixtures"
	"github.com/clawdcode/clawdcode/internal/storage"
)

// An import started while another holds the store says that it waits,
// and runs once the other is done.
func TestImportWaitsForAnotherImport(t *testing.T) {
	src := filepath.Join(t.TempDir(), "-p")
	if err := os.MkdirAll(src, 0o700); err != nil {
		t.Fatal(err)
	}
	b := fixtures.Read(t, "claude-code", "spotter_real_short.jsonl")
	if err := os.WriteFile(filepath.Join(src, "55604662-cf2a-4331-851a-ec234028f8ca.jsonl"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	st := storage.NewStore(t.TempDir())
	first := &Importer{Store: st, Warn: func(s string) { t.Error(s) }}
	unlock, err := first.lock(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	waiting := make(chan struct{})
	done := make(chan *Result, 1)
	second := &Importer{Store: st, Warn: func(s string) { t.Error(s) }, Waiting: func() { close(waiting) }}
	go func() {
		res, err := second.Import(context.Background(), ClaudeCode, filepath.Dir(src))
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	<-waiting
	select {
	case <-done:
		t.Fatal("the second import ran while the first held the store")
	default:
	}
	unlock()
	if res := <-done; res == nil || len(res.Sessions) != 1 {
		t.Fatalf("the second import, once the first was done: %+v", res)
	}
}
