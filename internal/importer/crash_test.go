package importer

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/clawdcode/clawdcode/internal/fixtures"
	"github.com/clawdcode/clawdcode/internal/storage"
)

// An import killed at any moment leaves its session file cut at some
// byte: SIGKILL in the middle of a write(2) keeps the pages copied so
// far, so the cut may fall anywhere in a line — between a record's last
// '}' and its '\n' too — and the import state and the index may not have
// been written. For a cut at each such place in a session imported in two
// passes (the source grew between them), the next import must leave the
// session with exactly the records of the import that was never cut, in
// the same order: none missing, none twice.
func TestImportResumesAfterACutAtAnyPlace(t *testing.T) {
	skipSweepUnderRace(t)
	t.Parallel()
	const id, cwd = "6f1c5a52-3a63-4c9e-9f1b-6a0b3c1d2e4f", "/home/someone/project"
	for _, transcript := range []string{
		"claude-code-log_dag_compact_after_rewind.jsonl", // a rewind and a compaction
		"claude-code-log_representative_messages.jsonl",  // a title
	} {
		t.Run(transcript, func(t *testing.T) {
			t.Parallel()
			parts := [][]byte{ // two passes
				fixtures.ClaudeCopies(t, transcript, id, cwd, 1, 2),
				fixtures.ClaudeCopies(t, transcript, id, cwd, 3, 2),
			}
			testResumeAfterCuts(t, ClaudeCode, filepath.Join("-p", id+".jsonl"), id, parts)
		})
	}
	t.Run("codex", func(t *testing.T) {
		t.Parallel()
		name := "rollout-2026-11-23T15-58-06-01a20920-faf5-7b82-b470-7899bbb2e813.jsonl"
		lines := bytes.SplitAfter(fixtures.Read(t, "codex", name), []byte("\n"))
		// The file grew inside a turn: the second pass names the model
		// the turn's context, in the first part, named (a pass that
		// starts there once said "unknown").
		half := len(lines) / 2
		for !bytes.Contains(lines[half-1], []byte(`"role":"user"`)) {
			half++ // the reply to this user message is in the second part
		}
		parts := [][]byte{bytes.Join(lines[:half], nil), bytes.Join(lines[half:], nil)}
		testResumeAfterCuts(t, Codex, filepath.Join("2026", "11", "23", name), "01a20920-faf5-7b82-b470-7899bbb2e813", parts)
	})
}

// skipSweepUnderRace skips a sweep — one scenario imported again at every
// place a file can be cut or split, hundreds of sequential imports — in a
// race-enabled binary, where it costs four times its CPU without -race and
// the imports it repeats are the ones the other tests already run under the
// detector. make test runs the sweeps without -race in its second step.
func skipSweepUnderRace(t *testing.T) {
	t.Helper()
	if raceDetector {
		t.Skip("a sweep of sequential imports: make test runs it without -race")
	}
}

// testResumeAfterCuts imports parts of a source file, written one after
// the other, to the session id; then cuts that session at every place a
// kill can and checks what the next import makes of it.
func testResumeAfterCuts(t *testing.T, tool, rel, id string, parts [][]byte) {
	srcDir := t.TempDir()
	src := filepath.Join(srcDir, rel)
	if err := os.MkdirAll(filepath.Dir(src), 0o700); err != nil {
		t.Fatal(err)
	}
	clean := t.TempDir()
	for _, part := range parts {
		appendFile(t, src, part)
		importHome(t, tool, clean, srcDir)
	}
	session := sessionFile(t, clean, id)
	full, err := os.ReadFile(session)
	if err != nil {
		t.Fatal(err)
	}
	want, wantLoose := recordLines(full, false), recordLines(full, true)
	srel, _ := filepath.Rel(clean, session)
	for _, cut := range cutPlaces(full) {
		home := t.TempDir()
		if err := os.CopyFS(home, os.DirFS(clean)); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(filepath.Join(home, srel), int64(cut)); err != nil {
			t.Fatal(err)
		}
		os.Remove(filepath.Join(home, "import", "state.json")) // killed before the state was saved
		importHome(t, tool, home, srcDir)
		b, err := os.ReadFile(filepath.Join(home, srel))
		if err != nil {
			t.Fatal(err)
		}
		got, want := recordLines(b, false), want
		if len(recordLines(full[:cut], false)) == 0 {
			// Nothing of the session was whole: the import starts over
			// with the source as it is now, in one pass, so the marks
			// and the titles (one per pass) differ from the clean's.
			got, want = recordLines(b, true), wantLoose
		}
		if !slices.Equal(got, want) {
			t.Errorf("cut at byte %d of %d (%q|%q): the session holds %d records, want %d; first difference:\n%s",
				cut, len(full), full[max(0, cut-16):cut], full[cut:min(len(full), cut+16)], len(got), len(want), firstDifference(got, want))
		}
		// No torn line is left in the middle of the session: the
		// import acknowledged it before writing on (issue 32).
		checked, err := storage.CheckSession(context.Background(), filepath.Join(home, srel), id)
		if err != nil {
			t.Fatal(err)
		}
		if len(checked.Problems) > 0 {
			t.Errorf("cut at byte %d of %d: sessions check finds %+v", cut, len(full), checked.Problems)
		}
	}
}

// cutPlaces are the places a kill can leave a session file at: empty,
// and around every line's end — after its '\n', before it (the record
// whole, its '\n' not written), one byte earlier (the record torn) — and
// in the middle of every line.
func cutPlaces(b []byte) []int {
	cuts := []int{0}
	start := 0
	for i, c := range b {
		if c != '\n' {
			continue
		}
		cuts = append(cuts, start+(i-start)/2, i-1, i, i+1)
		start = i + 1
	}
	return cuts
}

// recordLines are the session's records, one JSON object per line as
// stored, without what a store draws anew (uuids it makes up, the
// parents that follow from them) and what follows from how the index
// was kept (the listing); loose, also without what depends on how the
// import was cut into passes (the progress marks, the titles). Lines
// that do not parse (torn) are left out: readers skip them.
func recordLines(b []byte, loose bool) []string {
	var out []string
	for _, line := range bytes.Split(b, []byte("\n")) {
		var m map[string]any
		if json.Unmarshal(line, &m) != nil || loose && m["type"] == "title" || m["subtype"] == storage.SubtypeRepair {
			continue // (a repair acknowledges a torn line: no content)
		}
		if loose {
			delete(m, "importPos")
		}
		delete(m, "uuid")
		delete(m, "parentUuid")
		delete(m, "listing")
		j, _ := json.Marshal(m)
		out = append(out, string(j))
	}
	return out
}

func firstDifference(got, want []string) string {
	for i := range max(len(got), len(want)) {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			return fmt.Sprintf("record %d\n got  %.300s\n want %.300s", i+1, g, w)
		}
	}
	return ""
}

func importHome(t *testing.T, tool, home, srcDir string) {
	t.Helper()
	im := &Importer{Store: storage.NewStore(home), Warn: func(s string) { t.Errorf("warning: %s", s) }}
	if _, err := im.Import(context.Background(), tool, srcDir); err != nil {
		t.Fatal(err)
	}
}

func sessionFile(t *testing.T, home, id string) string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(home, "projects", "*", id+".jsonl"))
	if err != nil || len(m) != 1 {
		t.Fatalf("session %s in %s: %v %v", id, home, m, err)
	}
	return m[0]
}

func appendFile(t *testing.T, path string, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
}

// TestCodexImportedInTwoPassesAsInOne: a rollout that grew between two
// imports, at any line, becomes the records one import of the whole
// would have made (the pass that starts inside a turn is primed with the
// model, the branch and whether a reply is open — so a call right after
// the reply's text joins that reply, as in one pass). The real rollout,
// and a short one whose reply has text and then a call.
func TestCodexImportedInTwoPassesAsInOne(t *testing.T) {
	skipSweepUnderRace(t)
	t.Parallel()
	const fixtureID = "01a20920-faf5-7b82-b470-7899bbb2e813"
	const textThenCallID = "0f5c2b9e-8d1a-4e7b-9c3f-2a6d4e8b1c70"
	item := func(ts, payload string) string {
		return `{"timestamp":"2026-11-23T10:00:` + ts + `Z","type":"response_item","payload":` + payload + "}\n"
	}
	textThenCall := "" +
		`{"timestamp":"2026-11-23T10:00:00Z","type":"session_meta","payload":{"id":"` + textThenCallID + `","cwd":"/home/dev/p","git":{"branch":"main"}}}` + "\n" +
		`{"timestamp":"2026-11-23T10:00:01Z","type":"turn_context","payload":{"model":"gpt-5-codex"}}` + "\n" +
		item("02", `{"type":"message","role":"user","content":[{"type":"input_text","text":"fix the bug"}]}`) +
		item("03", `{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Let me look."}]}`) +
		item("04", `{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"ls\"}","call_id":"c1"}`) +
		item("05", `{"type":"function_call_output","call_id":"c1","output":"main.go"}`) +
		item("06", `{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"cat main.go\"}","call_id":"c2"}`) +
		item("07", `{"type":"function_call_output","call_id":"c2","output":"package main"}`) +
		item("08", `{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Done."}]}`)
	for _, src := range []struct{ id, data string }{
		{fixtureID, string(fixtures.Read(t, "codex", "rollout-2026-11-23T15-58-06-"+fixtureID+".jsonl"))},
		{textThenCallID, textThenCall},
	} {
		rel := filepath.Join("2026", "11", "23", "rollout-2026-11-23T10-00-00-"+src.id+".jsonl")
		lines := bytes.SplitAfter([]byte(src.data), []byte("\n"))
		importParts := func(parts ...[]byte) []string {
			srcDir, home := t.TempDir(), t.TempDir()
			path := filepath.Join(srcDir, rel)
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				t.Fatal(err)
			}
			for _, part := range parts {
				appendFile(t, path, part)
				importHome(t, Codex, home, srcDir)
			}
			b, err := os.ReadFile(sessionFile(t, home, src.id))
			if err != nil {
				t.Fatal(err)
			}
			return recordLines(bytes.ReplaceAll(b, []byte(srcDir), []byte("SRC")), true) // the import record names the source
		}
		want := importParts(bytes.Join(lines, nil))
		for k := 1; k < len(lines)-1; k++ {
			if got := importParts(bytes.Join(lines[:k], nil), bytes.Join(lines[k:], nil)); !slices.Equal(got, want) {
				t.Errorf("%s grown after line %d: %d records, want %d; first difference:\n%s", src.id, k, len(got), len(want), firstDifference(got, want))
			}
		}
	}
}
