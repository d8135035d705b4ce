package ctxwindow

import (
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// TestBogusWindowDoesNotCripple (issue 13 item 5): one overflow error
// stating a 50-token window, from a server that had accepted requests of
// a few thousand tokens, must not cripple the session. The guard never
// learns a window below 1024 tokens or below the prompt_tokens the server
// already answered; a window given explicitly (--context-window 128000)
// wins over the learnt one on the next run; /context --reset-window
// forgets it. It used to persist 50, override the flag and fall back on
// every later turn.
func TestBogusWindowDoesNotCripple(t *testing.T) {
	t.Parallel()
	const explicit = "128000"
	w := newWorld(t, llmtest.Options{})
	w.Server.SetResponder(agentWithSummaries(fixedSummary))
	for i := range 3 {
		name := "mid" + itoa(i) + ".txt"
		w.writeFile(name, bigText("mid"+itoa(i), 60))
		args := []string{"-p", "read " + name, "--context-window", explicit}
		if i > 0 {
			args = append([]string{"-c"}, args...)
		}
		w.MustRun(args...)
	}
	accepted := 0
	for _, q := range w.Server.Requests() {
		accepted = max(accepted, q.Tokens)
	}
	path := w.onlySession()

	// One bogus rejection, then the server is itself again.
	w.Server.Enqueue(llmtest.ContextLengthExceeded(50, accepted+100))
	obj, r := w.runJSON("-c", "-p", "go on", "--context-window", explicit)
	t.Logf("stderr:\n%s", r.Stderr)
	if r.Code != 0 || obj.IsError {
		t.Fatalf("the run after one bogus rejection failed\n%s", r)
	}
	var learnt []int
	for _, rec := range windowRecords(t, path) {
		if rec.Type == "system" && rec.Subtype == "context_window" && rec.ContextWindow > 0 {
			learnt = append(learnt, rec.ContextWindow)
		}
	}
	for _, n := range learnt {
		if n < 1024 || n < accepted {
			t.Errorf("the session learnt a %d-token window from a server that had accepted %d tokens", n, accepted)
		}
	}

	// The explicit window wins over what was learnt: no compaction, no
	// fallback, no rejection.
	before := len(w.Server.Requests())
	next, r := w.runJSON("-c", "-p", "and now?", "--context-window", explicit)
	if r.Code != 0 || next.Context.Window != 128000 || *next.Compactions != 0 {
		t.Errorf("with --context-window %s after the bogus rejection: exit %d, window %d, %d compactions; want 0, 128000, 0\n%s",
			explicit, r.Code, next.Context.Window, *next.Compactions, r)
	}
	if strings.Contains(r.Stderr, "fallback") || strings.Contains(r.Stderr, "summary failed") {
		t.Errorf("the next turn fell back:\n%s", r.Stderr)
	}
	for _, q := range w.Server.Requests()[before:] {
		if q.Status != 200 || isSummaryRequest(q) {
			t.Errorf("the next turn sent a %s request answered %d", map[bool]string{true: "summary", false: "agent"}[isSummaryRequest(q)], q.Status)
		}
	}

	// The learnt window can be forgotten (unit tests cover a resume after
	// it and the expiry).
	reset := w.MustRun("-c", "-p", "/context --reset-window")
	if !strings.Contains(reset.Stdout, "Window reset to 128000 tokens") {
		t.Errorf("/context --reset-window said:\n%s", reset.Stdout)
	}
	after := w.mustJSON("-c", "-p", "after the reset?")
	if after.Context.Window != 128000 {
		t.Errorf("after /context --reset-window: window %d, want the models table's 128000", after.Context.Window)
	}
}
