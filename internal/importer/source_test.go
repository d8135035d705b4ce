package importer

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/clawdcode/clawdcode/internal/fixtures"
	"github.com/clawdcode/clawdcode/internal/storage"
)

// A source read whole into memory (readSmall) imports to the same
// sessions, record for record, as one read from its file: every real
// transcript of both tools, a torn last line and a line that does not
// parse included.
func TestSmallSourceImportsAsFromItsFile(t *testing.T) {
	for _, tool := range []string{ClaudeCode, Codex} {
		src := t.TempDir()
		dir := "claude-code"
		pattern := "*.jsonl"
		if tool == Codex {
			dir, pattern = "codex", "rollout-*.jsonl"
		}
		for _, path := range fixtures.Glob(t, dir, pattern) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			sub := "-p"
			if tool == Codex {
				sub = "2026/11/23"
			}
			name := filepath.Base(path)
			if tool == ClaudeCode {
				// a line that does not parse, and a last line still being written
				data = append(data, []byte("{\"type\":\"user\", oops\n{\"type\":\"user\"")...)
			}
			writeSource(t, filepath.Join(src, sub, name), data)
		}
		inMemory := importedSessions(t, tool, src)
		old := smallSource
		smallSource = 0
		fromFile := importedSessions(t, tool, src)
		smallSource = old
		if len(inMemory) == 0 {
			t.Fatalf("%s: nothing imported", tool)
		}
		if !reflect.DeepEqual(inMemory, fromFile) {
			for id := range fromFile {
				if !reflect.DeepEqual(inMemory[id], fromFile[id]) {
					t.Errorf("%s: session %s differs:\nin memory %.600v\nfrom file %.600v", tool, id, inMemory[id], fromFile[id])
				}
			}
			t.Fatalf("%s: %d sessions in memory, %d from the files", tool, len(inMemory), len(fromFile))
		}
	}
}

func writeSource(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// importedSessions imports dir into a new store and returns every
// session's records by file name, without the uuids the store makes up,
// and the warnings, sorted, under "warnings".
func importedSessions(t *testing.T, tool, dir string) map[string][]map[string]any {
	t.Helper()
	st := storage.NewStore(t.TempDir())
	var mu sync.Mutex
	var warnings []string
	im := &Importer{Store: st, Warn: func(s string) {
		mu.Lock()
		defer mu.Unlock()
		warnings = append(warnings, s)
	}}
	if _, err := im.Import(context.Background(), tool, dir); err != nil {
		t.Fatal(err)
	}
	sort.Strings(warnings) // (the workers' order)
	out := map[string][]map[string]any{"warnings": {{"warnings": warnings}}}
	err := filepath.WalkDir(st.Home(), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		out[filepath.Base(path)] = sessionRecords(t, data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
