package ctxwindow

import (
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// TestBogusWindowDoesNotCripple (issue 13 item 5): an overflow error
// stating a 50-token window, from a server that had accepted requests of
// a few thousand tokens, must not cripple the session. A window stated
// below what the server already answered is not believed and teaches
// nothing: the request goes again as it is, without compacting. Only a
// second rejection of it is estimated from, never below what the server
// answered; a window given explicitly (--context-window 128000) wins over
// the learnt one on the next run; and once the server answers a request
// larger than the learnt window, that window is forgotten, in the session
// file too. It used to persist 50, override the flag and fall back on
// every later turn, and then to learn the floor and keep it after the
// server had answered requests twice that size.
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
	learntRecords := func() []int {
		var learnt []int
		for _, rec := range windowRecords(t, path) {
			if rec.Type == "system" && rec.Subtype == "context_window" && rec.ContextWindow > 0 {
				learnt = append(learnt, rec.ContextWindow)
			}
		}
		return learnt
	}

	// One bogus rejection, then the server is itself again: nothing is
	// learnt, nothing compacted.
	w.Server.Enqueue(llmtest.ContextLengthExceeded(50, accepted+100))
	before := len(w.Server.Requests())
	obj, r := w.runJSON("-c", "-p", "go on", "--context-window", explicit)
	t.Logf("stderr:\n%s", r.Stderr)
	if r.Code != 0 || obj.IsError || *obj.Compactions != 0 {
		t.Fatalf("the run after one bogus rejection: exit %d, error %v, %d compactions; want 0, false, 0\n%s", r.Code, obj.IsError, *obj.Compactions, r)
	}
	if !strings.Contains(r.Stderr, "not believing it") {
		t.Errorf("the user was not told the stated window is not believed:\n%s", r.Stderr)
	}
	if n := len(w.Server.Requests()) - before; n != 2 {
		t.Errorf("the run sent %d requests, want the rejected one and the same again", n)
	}
	if learnt := learntRecords(); len(learnt) != 0 {
		t.Errorf("one rejection stating a window not believed taught the session %v", learnt)
	}

	// Rejected twice: the request really was too long for the server, and
	// the window is estimated from it — never below what it answered.
	w.Server.Enqueue(llmtest.ContextLengthExceeded(50, accepted+200), llmtest.ContextLengthExceeded(50, accepted+200))
	if _, r := w.runJSON("-c", "-p", "go on again", "--context-window", explicit); r.Code != 0 {
		t.Fatalf("the run after two bogus rejections failed\n%s", r)
	}
	learnt := learntRecords()
	if len(learnt) == 0 {
		t.Fatalf("two rejections taught nothing")
	}
	for _, n := range learnt {
		if n < 1024 || n < accepted {
			t.Errorf("the session learnt a %d-token window from a server that had accepted %d tokens", n, accepted)
		}
	}
	if ctx := w.MustRun("-c", "-p", "/context", "--context-window", explicit); !strings.Contains(ctx.Stdout, "a server once rejected requests over") {
		t.Errorf("/context does not report the learnt window:\n%s", ctx.Stdout)
	}

	// The explicit window wins over what was learnt: no compaction, no
	// fallback, no rejection.
	before = len(w.Server.Requests())
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

	// The server answers a request larger than the learnt window: that
	// window was wrong, and is forgotten for good.
	maxLearnt := 0
	for _, n := range learnt {
		maxLearnt = max(maxLearnt, n)
	}
	w.writeFile("big.txt", bigText("big", 3*maxLearnt/20))
	before = len(w.Server.Requests())
	w.MustRun("-c", "-p", "read big.txt", "--context-window", explicit)
	largest := 0
	for _, q := range w.Server.Requests()[before:] {
		if q.Status == 200 {
			largest = max(largest, q.Tokens)
		}
	}
	if largest <= maxLearnt {
		t.Fatalf("the test's read did not send a request over the learnt %d tokens (largest %d)", maxLearnt, largest)
	}
	ctx := w.MustRun("-c", "-p", "/context")
	if strings.Contains(ctx.Stdout, "rejected requests over") || strings.Contains(ctx.Stdout, "learnt from the server") {
		t.Errorf("after the server answered %d tokens, /context still reports the learnt %d-token window:\n%s", largest, maxLearnt, ctx.Stdout)
	}
	reset := w.MustRun("-c", "-p", "/context --reset-window")
	if !strings.Contains(reset.Stdout, "No window was learnt from the server") {
		t.Errorf("/context --reset-window said:\n%s", reset.Stdout)
	}
	after := w.mustJSON("-c", "-p", "after the reset?")
	if after.Context.Window != 128000 {
		t.Errorf("after /context --reset-window: window %d, want the models table's 128000", after.Context.Window)
	}
}
