package importer

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
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

// A second source file whose lines carry another's session id (a
// transcript that begins with another's lines) is not appended to that
// session at the first file's offsets: it is reported, and the session
// holds the first file's records once.
func TestImportSameSessionFromTwoFiles(t *testing.T) {
	src := filepath.Join(t.TempDir(), "-p")
	if err := os.MkdirAll(src, 0o700); err != nil {
		t.Fatal(err)
	}
	b := fixtures.Read(t, "claude-code", "spotter_real_short.jsonl")
	// The copy went on after the lines it took over.
	more := append(bytes.Clone(b), `{"type":"user","uuid":"9a0f1c2e-1111-4aaa-8bbb-000000000001","sessionId":"55604662-cf2a-4331-851a-ec234028f8ca","cwd":"/home/marco/projects/spotter","timestamp":"2026-02-10T21:20:00.000Z","message":{"role":"user","content":"and then?"}}`+"\n"...)
	if err := os.WriteFile(filepath.Join(src, "55604662-cf2a-4331-851a-ec234028f8ca.jsonl"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "a-copy.jsonl"), more, 0o600); err != nil {
		t.Fatal(err)
	}
	st := storage.NewStore(t.TempDir())
	var (
		mu       sync.Mutex
		warnings []string
	)
	im := &Importer{Store: st, Warn: func(s string) { mu.Lock(); warnings = append(warnings, s); mu.Unlock() }}
	for range 2 {
		if _, err := im.Import(context.Background(), ClaudeCode, filepath.Dir(src)); err != nil {
			t.Fatal(err)
		}
	}
	p, err := st.ProjectAt("/home/marco/projects/spotter")
	if err != nil {
		t.Fatal(err)
	}
	// Whichever file went first, the session is that file's, whole and
	// once: its import record names it, and it holds the copy's last
	// message only if it is the copy's.
	var from string
	n, gotMore := 0, false
	err = storage.ReadAll(context.Background(), p.Path("55604662-cf2a-4331-851a-ec234028f8ca"), func(_ int64, r *storage.Record) error {
		n++
		if r.Import != nil {
			from = filepath.Base(r.Import.Path)
		}
		if r.Message != nil && r.Message.Content == "and then?" {
			gotMore = true
		}
		return nil
	}, func(w string) { t.Error(w) })
	if err != nil {
		t.Fatal(err)
	}
	want := len(convert(t, ClaudeCode, "claude-code", "spotter_real_short.jsonl").recs) + 1 // and the import record
	if from == "a-copy.jsonl" {
		want++
	}
	if n != want || gotMore != (from == "a-copy.jsonl") {
		t.Errorf("the session, imported from %s, holds %d records (the copy's last: %v), want %d; warnings %q", from, n, gotMore, want, warnings)
	}
	if !strings.Contains(strings.Join(warnings, "\n"), "was imported from") {
		t.Errorf("the second file is not reported: %q", warnings)
	}
}
