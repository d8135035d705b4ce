package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/e2e/harness"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// installSource is harness.InstallSource.
var installSource = harness.InstallSource

// sessionIDs returns the ids `sessions list --json` lists.
func sessionIDs(t *testing.T, w *world) []string {
	t.Helper()
	var rows []struct {
		ID string `json:"id"`
	}
	r := w.MustRun("sessions", "list", "--json")
	if err := json.Unmarshal([]byte(r.Stdout), &rows); err != nil {
		t.Fatalf("sessions list --json: %v\n%s", err, r.Stdout)
	}
	var ids []string
	for _, r := range rows {
		ids = append(ids, r.ID)
	}
	return ids
}

// The real Claude Code sessions import, list, search and resume with a
// strict server accepting the first request; a second import adds nothing;
// a source that grew is continued, not duplicated.
func TestImportClaudeCode(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	src := filepath.Join(w.Root, "claude", "projects")
	esc := "-project"
	short := installSource(t, []string{"claude-code", "spotter_real_short.jsonl"}, src, esc+"/55604662-cf2a-4331-851a-ec234028f8ca.jsonl", w.Project)
	installSource(t, []string{"claude-code", "spotter_real_tool_heavy.jsonl"}, src, esc+"/d6e0bada-1959-4eec-a9d2-0bfade768d8f.jsonl", w.Project)
	installSource(t, []string{"claude-code", "spotter_real_compact_boundary_excerpt_lines753-765.jsonl"}, src, esc+"/4d5611e5-241a-462a-8d15-5122611a9569.jsonl", w.Project)
	installSource(t, []string{"claude-code", "claude-code-log_dag_compact_after_rewind.jsonl"}, src, esc+"/s1.jsonl", w.Project)
	// A sub-agent's transcript lives below its session: not a session.
	installSource(t, []string{"claude-code", "spotter_real_agent-acompact-e1f845.jsonl"}, src, esc+"/4d5611e5-241a-462a-8d15-5122611a9569/subagents/agent-acompact-e1f845.jsonl", w.Project)

	// The default directory is $CLAUDE_CONFIG_DIR/projects.
	w.ExtraEnv = []string{"CLAUDE_CONFIG_DIR=" + filepath.Dir(src)}
	r := w.MustRun("import", "claude-code")
	for _, id := range []string{"55604662-cf2a-4331-851a-ec234028f8ca", "d6e0bada-1959-4eec-a9d2-0bfade768d8f", "4d5611e5-241a-462a-8d15-5122611a9569", "s1"} {
		if !strings.Contains(r.Stdout, "imported "+id+"  ") {
			t.Errorf("import does not report session %s:\n%s", id, r.Stdout)
		}
	}
	if !strings.Contains(r.Stdout, "Imported 4 sessions") {
		t.Errorf("import total:\n%s", r.Stdout)
	}
	if got := sessionIDs(t, w); len(got) != 4 {
		t.Errorf("sessions list after import: %v", got)
	}

	// A second import adds nothing.
	if r := w.MustRun("import", "claude-code"); !strings.Contains(r.Stdout, "Nothing new to import") {
		t.Errorf("second import:\n%s", r.Stdout)
	}

	// Search finds the imported history: messages, tool input and output.
	for q, id := range map[string]string{
		`"phx.server doesnt seem to start"`: "55604662",
		"spotter-dov":                       "4d5611e5",
		`"First attempt"`:                   "s1",
	} {
		if r := w.MustRun("search", q); !strings.Contains(r.Stdout, id) {
			t.Errorf("search %s does not find session %s:\n%s", q, id, r.Stdout)
		}
	}

	// Each session resumes, and the strict server accepts the request.
	for _, id := range []string{"55604662", "d6e0bada", "4d5611e5", "s1"} {
		w.Server.Enqueue(llmtest.Text("resumed"))
		w.MustRun("-r", id, "-p", "go on")
		req := w.Server.LastRequest()
		if req.Status != 200 {
			t.Fatalf("resume of %s: the server refused the request (%d): %s", id, req.Status, req.Error)
		}
		joined := requestText(req)
		switch id {
		case "4d5611e5":
			// Compacted in Claude Code: the summary, not the history.
			if !strings.Contains(joined, "This session is being continued from a previous conversation") {
				t.Errorf("resume of the compacted session does not send its summary:\n%s", joined)
			}
		case "s1":
			// Rewound, then compacted: what Claude Code would resume.
			if !strings.Contains(joined, "After compaction") || !strings.Contains(joined, "Final answer") || strings.Contains(joined, "First attempt") {
				t.Errorf("resume of the rewound session sends:\n%s", joined)
			}
		case "55604662":
			if !strings.Contains(joined, "mix phx.server doesnt seem to start") {
				t.Errorf("resume sends:\n%s", joined)
			}
		}
	}

	// The source grows (Claude Code went on with it): a new import
	// continues the session with the new lines only.
	f, err := os.OpenFile(short, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"parentUuid":"40003bdd-0000-0000-0000-000000000000","isSidechain":false,"type":"user","message":{"role":"user","content":"one more question about quokkas"},"uuid":"9a0f1c2e-1111-4aaa-8bbb-000000000001","timestamp":"2026-02-10T21:20:00.000Z","cwd":"` + w.Project + `","sessionId":"55604662-cf2a-4331-851a-ec234028f8ca"}` + "\n")
	f.WriteString("{not json at all\n")
	f.Close()
	r = w.MustRun("import", "claude-code")
	if !strings.Contains(r.Stdout, "continued 55604662-cf2a-4331-851a-ec234028f8ca  1 records") || !strings.Contains(r.Stderr, "skipped a line that does not parse") {
		t.Errorf("import of a grown source:\nstdout %s\nstderr %s", r.Stdout, r.Stderr)
	}
	if r := w.MustRun("search", "--json", "quokkas"); strings.Count(r.Stdout, `"uuid"`) != 1 {
		t.Errorf("the new line is there once:\n%s", r.Stdout)
	}
}

// requestText is every message of a request, one per line.
func requestText(req llmtest.Request) string {
	var b strings.Builder
	for _, m := range req.Messages {
		b.WriteString(m.Role + ": " + m.Content + "\n")
	}
	return b.String()
}

// The real Codex rollout imports (compactions become boundary + summary),
// and resumes with the context Codex would have resumed with.
func TestImportCodex(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	src := filepath.Join(w.Root, "codex")
	name := "rollout-2026-11-23T15-58-06-01a20920-faf5-7b82-b470-7899bbb2e813.jsonl"
	installSource(t, []string{"codex", name}, filepath.Join(src, "sessions"), "2026/11/23/"+name, w.Project)
	w.ExtraEnv = []string{"CODEX_HOME=" + src}
	r := w.MustRun("import", "codex")
	id := "01a20920-faf5-7b82-b470-7899bbb2e813"
	if !strings.Contains(r.Stdout, "imported "+id) {
		t.Fatalf("import:\n%s", r.Stdout)
	}
	if r := w.MustRun("import", "codex"); !strings.Contains(r.Stdout, "Nothing new") {
		t.Errorf("second import:\n%s", r.Stdout)
	}
	// History from before the compactions is searchable.
	if r := w.MustRun("search", "FACT-cx1", "first", "turn"); !strings.Contains(r.Stdout, id) {
		t.Errorf("search:\n%s", r.Stdout)
	}
	w.Server.Enqueue(llmtest.Text("resumed"))
	w.MustRun("-r", "01a2", "-p", "go on")
	req := w.Server.LastRequest()
	if req.Status != 200 {
		t.Fatalf("the server refused the resumed request (%d): %s", req.Status, req.Error)
	}
	joined := requestText(req)
	// After the last compaction Codex keeps the user messages and the
	// summary, then turn 8; the assistant's padding before it is gone.
	for _, want := range []string{"FACT-cx1 first turn", "FACT-cx7 turn 7", "Another language model started", "FACT-cx8 turn 8", "go on"} {
		if !strings.Contains(joined, want) {
			t.Errorf("resumed request lacks %q:\n%s", want, joined)
		}
	}
	if strings.Count(joined, "Another language model started") != 1 {
		t.Errorf("the resumed request sends more than the last summary:\n%s", joined)
	}
	var recs []map[string]any
	data, err := os.ReadFile(filepath.Join(w.Home, "projects", escapeForTest(w.Project), id+".jsonl"))
	if err == nil {
		for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			var m map[string]any
			json.Unmarshal([]byte(l), &m)
			recs = append(recs, m)
		}
	}
	if len(recs) == 0 || recs[0]["subtype"] != "import" {
		t.Errorf("the session does not open with its import record: %v", recs[:min(1, len(recs))])
	}
}

func escapeForTest(p string) string {
	return regexp.MustCompile(`[^A-Za-z0-9]`).ReplaceAllString(p, "-")
}

// An imported session exported with `sessions export --format jsonl`
// imports again (as a Claude Code directory) to the same context: the
// resumed request is the same, message for message.
func TestImportExportRoundTrip(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	src := filepath.Join(w.Root, "codex")
	name := "rollout-2026-11-23T15-58-06-01a20920-faf5-7b82-b470-7899bbb2e813.jsonl"
	installSource(t, []string{"codex", name}, src, "2026/11/23/"+name, w.Project)
	cc := filepath.Join(w.Root, "claude")
	installSource(t, []string{"claude-code", "claude-code-log_dag_compact_after_rewind.jsonl"}, cc, "-p/s1.jsonl", w.Project)
	installSource(t, []string{"claude-code", "spotter_real_tool_heavy.jsonl"}, cc, "-p/d6e0bada-1959-4eec-a9d2-0bfade768d8f.jsonl", w.Project)
	w.MustRun("import", "codex", src)
	w.MustRun("import", "claude-code", cc)

	resumed := func(id string) string {
		t.Helper()
		w.Server.Enqueue(llmtest.Text("ok"))
		w.MustRun("-r", id, "-p", "go on", "--fork-session")
		req := w.Server.LastRequest()
		if req.Status != 200 {
			t.Fatalf("resume of %s refused: %s", id, req.Error)
		}
		return requestText(req)
	}
	export := filepath.Join(w.Root, "export", "-p")
	if err := os.MkdirAll(export, 0o755); err != nil {
		t.Fatal(err)
	}
	ids := []string{"01a20920-faf5-7b82-b470-7899bbb2e813", "s1", "d6e0bada-1959-4eec-a9d2-0bfade768d8f"}
	before := map[string]string{}
	for _, id := range ids {
		before[id] = resumed(id)
		r := w.MustRun("sessions", "export", id, "--format", "jsonl")
		if err := os.WriteFile(filepath.Join(export, id+".jsonl"), []byte(r.Stdout), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A second store: the exports imported there resume the same.
	w.ExtraEnv = []string{"CLAWDCODE_HOME=" + filepath.Join(w.Root, "home2")}
	r := w.MustRun("import", "claude-code", filepath.Dir(export))
	if !strings.Contains(r.Stdout, "Imported 3 sessions") {
		t.Fatalf("re-import:\n%s\n%s", r.Stdout, r.Stderr)
	}
	for _, id := range ids {
		if after := resumed(id); after != before[id] {
			t.Errorf("session %s resumes differently after the round trip:\nbefore\n%s\nafter\n%s", id, before[id], after)
		}
	}
}

// A file that cannot be read is reported, the others are imported, and
// the exit status says something went wrong.
func TestImportReportsUnreadableFile(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	src := filepath.Join(w.Root, "claude")
	installSource(t, []string{"claude-code", "spotter_real_short.jsonl"}, src, "-p/55604662-cf2a-4331-851a-ec234028f8ca.jsonl", w.Project)
	if err := os.Symlink(filepath.Join(w.Root, "gone.jsonl"), filepath.Join(src, "-p", "0badf11e-0000-4000-8000-000000000000.jsonl")); err != nil {
		t.Fatal(err)
	}
	r := w.Run("import", "claude-code", src)
	if r.Code != 1 || !strings.Contains(r.Stdout, "imported 55604662-cf2a-4331-851a-ec234028f8ca") ||
		!strings.Contains(r.Stderr, "0badf11e-0000-4000-8000-000000000000.jsonl") || !strings.Contains(r.Stderr, "1 file could not be imported") {
		t.Errorf("import with an unreadable file: %s", r)
	}
}
