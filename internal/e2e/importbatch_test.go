package e2e

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/clawdcode/clawdcode/internal/fixtures"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// TestImportKilledBetweenIndexBatches: an import of many small sessions
// writes their index entries and its state in batches (the first after 512
// sessions, then larger ones), not per session. Killed after a batch was
// written, with hundreds of sessions written since and in neither the
// index nor the state, then killed again in the import that resumes, one
// clean import ends with exit 0, every session holding its records once
// (as an import never interrupted) and every session in its project's
// index at its size.
func TestImportKilledBetweenIndexBatches(t *testing.T) {
	if testing.Short() {
		t.Skip("imports 1,100 sessions several times")
	}
	t.Parallel()
	const files = 1100
	rng := rand.New(rand.NewPCG(killSeed, 20))
	w := newWorld(t, llmtest.Options{})
	src := filepath.Join(w.Root, "claude")
	writeSmallSessions(t, src, w.Project, files)
	args := []string{"import", "claude-code", src}

	w.ExtraEnv = []string{"CLAWDCODE_HOME=" + filepath.Join(w.Root, "refhome")}
	w.MustRun(args...)
	want := importedRecords(t, filepath.Join(w.Root, "refhome"), w.Project)
	if len(want) != files {
		t.Fatalf("the reference import holds %d sessions of %d", len(want), files)
	}
	for round := range 3 {
		home := filepath.Join(w.Root, fmt.Sprintf("home%d", round))
		w.ExtraEnv = []string{"CLAWDCODE_HOME=" + home}
		// Past the first batch (512), before the second (1,024).
		first := killAt{after: 530 + rng.IntN(480), pause: time.Duration(rng.IntN(3_000)) * time.Microsecond}
		if !importAndKill(t, w, first, args...) {
			t.Fatalf("round %d: the import ended before the kill after %s", round, first)
		}
		again := killAt{after: 1 + rng.IntN(200), pause: time.Duration(rng.IntN(3_000)) * time.Microsecond}
		killed := importAndKill(t, w, again, args...)
		t.Logf("round %d: killed after %s, then after %s: %v", round, first, again, killed)
		if r := w.Run(args...); r.Code != 0 {
			t.Fatalf("round %d: the import after the kills:\n%s", round, r)
		}
		if r := w.Run(args...); r.Code != 0 || !strings.Contains(r.Stdout, "Nothing new") {
			t.Errorf("round %d: an import after it:\n%s", round, r)
		}
		compareImports(t, importedRecords(t, home, w.Project), want)
		checkIndexed(t, home, w.Project)
	}
}

// writeSmallSessions writes n Claude Code sessions of 2 to 11 KB (one copy
// of a small real transcript each) under dir.
func writeSmallSessions(t *testing.T, dir, project string, n int) {
	t.Helper()
	pdir := filepath.Join(dir, "-project")
	if err := os.MkdirAll(pdir, 0o755); err != nil {
		t.Fatal(err)
	}
	small := []string{
		"simonw_claude-code-transcripts_sample_session.jsonl",
		"claude-code-log_dag_compact_after_rewind.jsonl",
		"claude-code-log_representative_messages.jsonl",
		"spotter_real_short.jsonl",
	}
	for i := range n {
		id := uuid.NewSHA1(uuid.NameSpaceURL, fmt.Appendf(nil, "small-%d", i)).String()
		data := fixtures.ClaudeCopies(t, small[i%len(small)], id, project, 1, 1)
		if err := os.WriteFile(filepath.Join(pdir, id+".jsonl"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// checkIndexed fails unless the project's index.json lists every session
// file of the store at its size.
func checkIndexed(t *testing.T, home, project string) {
	t.Helper()
	dir := filepath.Join(home, "projects", escapeForTest(project))
	data, err := os.ReadFile(filepath.Join(dir, "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	var idx struct {
		Sessions []struct {
			ID   string `json:"id"`
			Size int64  `json:"size"`
		} `json:"sessions"`
	}
	if err := json.Unmarshal(data, &idx); err != nil {
		t.Fatalf("index.json: %v", err)
	}
	size := map[string]int64{}
	for _, e := range idx.Sessions {
		size[e.ID] = e.Size
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	missing := 0
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		if s, ok := size[strings.TrimSuffix(filepath.Base(f), ".jsonl")]; !ok || s != fi.Size() {
			missing++
		}
	}
	if missing > 0 {
		t.Errorf("%d of %d sessions missing from index.json or at another size", missing, len(files))
	}
}

// TestImportRemovesWhatAKilledSaveLeft: an import killed while it saved
// its state leaves the temporary file of that save in the home's import
// directory. The next import, which holds the import lock, removes it, so
// kills do not pile files up there.
func TestImportRemovesWhatAKilledSaveLeft(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	src := filepath.Join(w.Root, "claude")
	writeSmallSessions(t, src, w.Project, 3)
	dir := filepath.Join(w.Home, "import")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	left := filepath.Join(dir, "state-123456.tmp")
	if err := os.WriteFile(left, []byte(`{"files":`), 0o600); err != nil {
		t.Fatal(err)
	}
	w.MustRun("import", "claude-code", src)
	if _, err := os.Stat(left); !os.IsNotExist(err) {
		t.Errorf("the killed save's %s is still there after an import (%v)", filepath.Base(left), err)
	}
	if _, err := os.Stat(filepath.Join(dir, "state.json")); err != nil {
		t.Errorf("the import wrote no state: %v", err)
	}
}
