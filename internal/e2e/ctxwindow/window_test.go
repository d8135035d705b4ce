package ctxwindow

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// windowRecord is the part of a session record that carries a learnt
// context window: a context_window record's contextWindow, a boundary's
// compactMetadata.effectiveWindow.
type windowRecord struct {
	Type            string `json:"type"`
	Subtype         string `json:"subtype"`
	ContextWindow   int    `json:"contextWindow"`
	CompactMetadata *struct {
		EffectiveWindow int `json:"effectiveWindow"`
	} `json:"compactMetadata"`
}

func windowRecords(t *testing.T, path string) []windowRecord {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []windowRecord
	for line := range bytes.Lines(data) {
		var r windowRecord
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatalf("a line does not parse: %v", err)
		}
		out = append(out, r)
	}
	return out
}

// TestLearntWindowSurvivesContinue: the window a rejection taught one run
// is the window of the next -c run that is given none explicitly (the
// models table's 128000 for gpt-4o is no match for what the server said),
// which therefore fits its request to it instead of being rejected again;
// the record that keeps it shows nowhere in the transcript.
func TestLearntWindowSurvivesContinue(t *testing.T) {
	t.Parallel()
	const real = 6000
	w := newWorld(t, llmtest.Options{Window: real})
	w.Server.SetResponder(agentWithSummaries(fixedSummary))
	w.writeFile("huge.txt", bigText("huge", 400)) // alone over the real window

	first := w.mustJSON("-p", "read huge.txt", "--context-window", itoa(believedWindow))
	if got := statuses(w.Server.Requests()); got != "200 400 200" {
		t.Fatalf("first run: server answers %q, want \"200 400 200\"", got)
	}
	if first.Context.Window != real {
		t.Errorf("first run: window %d in the result, want the stated %d", first.Context.Window, real)
	}
	path := w.onlySession()
	var learnt []int
	for _, r := range windowRecords(t, path) {
		if r.Type == "system" && r.Subtype == "context_window" {
			learnt = append(learnt, r.ContextWindow)
		}
	}
	if len(learnt) != 1 || learnt[0] != real {
		t.Fatalf("context_window records %v, want one with %d", learnt, real)
	}

	before := len(w.Server.Requests())
	next := w.mustJSON("-c", "-p", "and now?")
	if next.Context.Window != real {
		t.Errorf("-c: window %d in the result, want the learnt %d", next.Context.Window, real)
	}
	for _, q := range w.Server.Requests()[before:] {
		if q.Status != 200 {
			t.Errorf("-c: a request was answered %d (%s): the learnt window was not used", q.Status, statuses(w.Server.Requests()[before:]))
		}
	}
	// Fitting the huge result into the learnt window took the context
	// ladder: clearing it (the context_window record stays in force), or
	// a compaction, whose boundary carries the window on.
	var carried []int
	cleared := 0
	for _, r := range windowRecords(t, path) {
		if r.Subtype == "compact_boundary" && r.CompactMetadata != nil {
			carried = append(carried, r.CompactMetadata.EffectiveWindow)
		}
		if r.Subtype == "context_clear" {
			cleared++
		}
	}
	if (len(carried) != 1 || carried[0] != real) && !(len(carried) == 0 && cleared > 0) {
		t.Errorf("boundaries carry effective windows %v (%d clearing steps), want [%d] or a clearing step", carried, cleared, real)
	}
	third := w.mustJSON("-c", "-p", "still there?")
	if third.Context.Window != real {
		t.Errorf("-c after the compaction: window %d, want %d", third.Context.Window, real)
	}

	show := w.MustRun("sessions", "show", next.SessionID)
	if strings.Contains(show.Stdout, "context_window") || strings.Contains(show.Stdout, "contextWindow") {
		t.Errorf("sessions show prints the context_window record:\n%s", show.Stdout)
	}
}
