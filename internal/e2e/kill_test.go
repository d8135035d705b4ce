package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/e2e/harness"
	"github.com/clawdcode/clawdcode/internal/llmtest"
	"github.com/clawdcode/clawdcode/internal/tools"
)

// killSeed fixes where the kills land; change it to explore other points.
const killSeed = 20261121

// killer answers like threeRounds and reports when an armed request
// arrives, so the test can SIGKILL clawdcode while it waits for that reply
// (the reply is delayed) or just after it arrives (mid-append).
type killer struct {
	mu        sync.Mutex
	requests  int
	summaries int
	// armed: the request number that fires (0 = none), or the next
	// summarisation call; delay holds the fired reply back.
	triggerAt int
	onSummary bool
	delay     time.Duration
	fired     chan string
}

func newKiller() *killer { return &killer{fired: make(chan string, 1)} }

func (k *killer) respond(r llmtest.Request) llmtest.Reply {
	reply := threeRounds(r)
	summary := isSummaryRequest(r)
	k.mu.Lock()
	defer k.mu.Unlock()
	k.requests++
	if summary {
		k.summaries++
	}
	if (k.triggerAt != 0 && k.requests == k.triggerAt) || (k.onSummary && summary) {
		what := fmt.Sprintf("request %d", k.requests)
		if summary {
			what = fmt.Sprintf("summarisation request %d", k.requests)
		}
		k.triggerAt, k.onSummary = 0, false
		reply.Delay = k.delay
		select {
		case k.fired <- what:
		default:
		}
	}
	return reply
}

// arm sets the next trigger and drains a stale one.
func (k *killer) arm(at int, onSummary bool, delay time.Duration) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.triggerAt, k.onSummary, k.delay = at, onSummary, delay
	select {
	case <-k.fired:
	default:
	}
}

func (k *killer) count() (requests, summaries int) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.requests, k.summaries
}

// killPlan is where one step's process dies.
type killPlan struct {
	mode   string // "request", "summary" or "clock"
	at     int    // request mode: how many requests into the step
	delay  time.Duration
	jitter time.Duration // from the trigger (or start, for clock) to the kill
}

func (p killPlan) String() string {
	return fmt.Sprintf("%s at=%d delay=%v jitter=%v", p.mode, p.at, p.delay, p.jitter)
}

func choosePlan(rng *rand.Rand) killPlan {
	switch x := rng.IntN(100); {
	case x < 45:
		// Request 1..4 of the step: the model call of any tool round.
		// A reply held back 40 ms and a kill 0–70 ms after it arrives
		// lands either while clawdcode waits or while it appends and
		// runs tools.
		return killPlan{mode: "request", at: 1 + rng.IntN(4), delay: 40 * time.Millisecond, jitter: time.Duration(rng.IntN(70)) * time.Millisecond}
	case x < 70:
		// The next summarisation call, if this step compacts: killed
		// while the summary is awaited or while boundary and summary are
		// appended.
		return killPlan{mode: "summary", delay: 60 * time.Millisecond, jitter: time.Duration(rng.IntN(100)) * time.Millisecond}
	default:
		return killPlan{mode: "clock", jitter: time.Duration(rng.IntN(250)) * time.Millisecond}
	}
}

// killWindow is the context window of the kill runs: 4000 tokens when the
// tool definitions weighed toolTokensTuned (as llmtest estimates a request,
// whose count drives compaction), plus whatever they weigh more now. The
// messages keep the room the plan was tuned with, so a tool added to the
// contract does not make the runs compact more often and end short of
// their 100 model calls. At that window a session sends the tools' brief
// forms (contextmgr's brief.go), so those are what is weighed.
func killWindow() int {
	const toolTokensTuned = 1613
	var defs []chat.ToolDef
	for _, tl := range append(tools.Set(tools.NewEnv(os.TempDir())), tools.NewRecall(nil)) {
		defs = append(defs, tools.BriefDefinition(tl))
	}
	return 4000 + llmtest.EstimateTokens(llmtest.Request{Tools: defs}) - toolTokensTuned
}

func TestKillAtAnyMoment(t *testing.T) {
	t.Parallel()
	const (
		wantKills = 24
		maxSteps  = 60
	)
	rng := rand.New(rand.NewPCG(killSeed, killSeed))
	w := newWorld(t, llmtest.Options{})
	k := newKiller()
	w.Server.SetResponder(k.respond)
	flags := []string{"-p", "--dangerously-skip-permissions", "--context-window", strconv.Itoa(killWindow()), "--output-format", "json"}

	w.MustRun(append(flags, stepPrompt(1))...)
	id, path := w.onlySession()
	// verified is the file as of the last check: every later state must
	// begin with it (append-only, compaction included).
	verified := readFile(t, path)

	kills, summaryKills := 0, 0
	for step := 2; step <= maxSteps && kills < wantKills; step++ {
		plan := choosePlan(rng)
		reqs, _ := k.count()
		switch plan.mode {
		case "request":
			k.arm(reqs+plan.at, false, plan.delay)
		case "summary":
			k.arm(0, true, plan.delay)
		default:
			k.arm(0, false, 0)
		}
		killed, snapshot, what := w.runAndKill(t, k, plan, append(append([]string{"-c"}, flags...), stepPrompt(step))...)
		k.arm(0, false, 0)
		if !killed {
			continue
		}
		kills++
		if strings.HasPrefix(what, "summarisation") {
			summaryKills++
		}
		t.Logf("step %d: killed (%s) on %s", step, plan, what)
		if !bytes.HasPrefix(snapshot, verified) {
			t.Fatalf("step %d: the file before the kill does not begin with the file as last verified: an earlier line was rewritten", step)
		}
		verified = w.checkAfterKill(t, step, id, path, snapshot)

		mark := len(w.Server.Requests())
		obj, r := w.printJSON(append(append([]string{"-c"}, flags...), "continue")...)
		if r.Code != 0 || obj.IsError {
			t.Fatalf("step %d: -c after the kill (%s) failed\n%s", step, plan, r)
		}
		for _, req := range w.Server.Requests()[mark:] {
			if req.Status != 200 {
				t.Fatalf("step %d: after the kill (%s), -c sent a request the server rejected: %d %s", step, plan, req.Status, req.Error)
			}
		}
		if obj.SessionID != id {
			t.Fatalf("step %d: -c continued session %s, want %s", step, obj.SessionID, id)
		}
		checkRestored(t, step, parseSessionBytes(verified).records, w.Server.Requests()[mark:])
		after := readFile(t, path)
		if !bytes.HasPrefix(after, verified) {
			t.Fatalf("step %d: -c rewrote earlier lines of the session file", step)
		}
		verified = after
	}

	reqs, summaries := k.count()
	t.Logf("%d kills (%d during compaction), %d model calls, %d summarisation calls", kills, summaryKills, reqs, summaries)
	if kills < wantKills {
		t.Errorf("only %d kills landed, want %d", kills, wantKills)
	}
	if reqs < 100 {
		t.Errorf("only %d model calls, want a run of 100+ turns", reqs)
	}
	if summaries == 0 {
		t.Errorf("no compaction happened: the window is too large to exercise kills around compaction")
	}
	p := parseSession(t, path)
	checkChain(t, id, p.records)
	// No process closed the session cleanly after most kills, so the index
	// is stale: listing must rebuild it from the file.
	if list := w.Run("sessions", "list", "--json"); list.Code != 0 || !strings.Contains(list.Stdout, id) {
		t.Errorf("sessions list after the kills\n%s", list)
	}
	boundaries := 0
	for _, r := range p.records {
		if r.Subtype == "compact_boundary" {
			boundaries++
		}
	}
	if boundaries == 0 {
		t.Errorf("the session file holds no compact_boundary after %d summarisation calls", summaries)
	}
}

// runAndKill runs one step and SIGKILLs it as planned. It reports whether
// the process died of the kill, the session files' bytes just before the
// kill, and what triggered it. A process that ends before its kill must
// have succeeded.
func (w *world) runAndKill(t *testing.T, k *killer, plan killPlan, args ...string) (killed bool, snapshot []byte, what string) {
	t.Helper()
	id, _ := w.onlySession()
	return w.runAndKillPlan(t, k, plan, id, args...)
}

// runAndKillSession kills on k's trigger at once, snapshotting session id.
func (w *world) runAndKillSession(t *testing.T, k *killer, id string, args ...string) (killed bool, snapshot []byte, what string) {
	t.Helper()
	return w.runAndKillPlan(t, k, killPlan{mode: "request"}, id, args...)
}

func (w *world) runAndKillPlan(t *testing.T, k *killer, plan killPlan, id string, args ...string) (killed bool, snapshot []byte, what string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), harness.RunTimeout)
	defer cancel()
	cmd := w.Command(ctx, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()

	var clock <-chan time.Time
	if plan.mode == "clock" {
		timer := time.NewTimer(plan.jitter)
		defer timer.Stop()
		clock = timer.C
		what = fmt.Sprintf("the clock, %v after start", plan.jitter)
	}
	var err error
	select {
	case err = <-done:
		if err != nil {
			t.Fatalf("clawdcode %q (no kill yet): %v\nstdout: %s\nstderr: %s", args, err, stdout.String(), stderr.String())
		}
		return false, nil, ""
	case what = <-k.fired:
		time.Sleep(plan.jitter)
	case <-clock:
	}
	snapshot = readFile(t, w.sessionFiles()[id])
	_ = cmd.Process.Signal(syscall.SIGKILL)
	err = <-done
	if ctx.Err() != nil {
		t.Fatalf("clawdcode %q outlived its deadline", args)
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return true, snapshot, what
		}
	}
	if err != nil {
		t.Fatalf("clawdcode %q: %v\nstderr: %s", args, err, stderr.String())
	}
	return false, nil, "" // it finished between the trigger and the kill
}

// checkAfterKill asserts what a kill may leave: the complete lines seen
// before it, intact; a file that loads with at most a warning per line that
// does not parse; a consistent record chain. It returns the file as
// verified.
func (w *world) checkAfterKill(t *testing.T, step int, id, path string, snapshot []byte) []byte {
	t.Helper()
	after := readFile(t, path)
	complete := snapshot[:bytes.LastIndexByte(snapshot, '\n')+1]
	if !bytes.HasPrefix(after, complete) {
		t.Fatalf("step %d: a line that was complete before the kill changed or vanished", step)
	}
	p := parseSessionBytes(after)
	before := parseSessionBytes(complete)
	if len(p.records) < len(before.records) {
		t.Fatalf("step %d: %d records parse after the kill, %d did before", step, len(p.records), len(before.records))
	}
	checkChain(t, id, p.records)

	r := w.Run("sessions", "show", id)
	if r.Code != 0 {
		t.Fatalf("step %d: the session does not load after the kill\n%s", step, r)
	}
	allowed := len(p.bad)
	warnings := nonEmptyLines(r.Stderr)
	if len(warnings) > allowed {
		t.Fatalf("step %d: %d lines on stderr for a file with %d unparsable lines (torn tail %v)\n%s", step, len(warnings), allowed, p.tornTail, r)
	}
	for _, l := range warnings {
		if !strings.Contains(strings.ToLower(l), "warning") {
			t.Fatalf("step %d: stderr line is not a warning: %q", step, l)
		}
	}
	return after
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func nonEmptyLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

// TestContinueAfterKillPicksKilledSession: a process killed mid-turn never
// updates the index, yet its session is now the most recently updated one,
// so -c must pick it over an older session whose index entry looks newer.
func TestContinueAfterKillPicksKilledSession(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	k := newKiller()
	w.Server.SetResponder(k.respond)
	flags := []string{"-p", "--dangerously-skip-permissions"}

	w.MustRun(append(flags, stepPrompt(1))...)
	first, _ := w.onlySession()
	w.MustRun(append(flags, stepPrompt(2))...) // a second, newer session
	second := ""
	for id := range w.sessionFiles() {
		if id != first {
			second = id
		}
	}
	time.Sleep(20 * time.Millisecond) // distinct modification times
	// Resume the older session and kill it after its first reply.
	reqs, _ := k.count()
	k.arm(reqs+2, false, 0)
	killed, _, what := w.runAndKillSession(t, k, first, append([]string{"-r", first}, append(flags, stepPrompt(3))...)...)
	if !killed {
		t.Fatal("the resumed run finished before the kill")
	}
	t.Logf("killed on %s", what)
	obj, r := w.printJSON("-c", "-p", "which session?")
	if r.Code != 0 {
		t.Fatalf("-c after the kill\n%s", r)
	}
	if obj.SessionID != first {
		t.Errorf("-c continued %s, want the session last written to (%s, killed mid-turn) over %s", obj.SessionID, first, second)
	}
}

// checkRestored asserts that the first model request of a resume carries
// the context in force when the session was left: the latest summary when
// the file holds a finished compaction (or the resume compacted first),
// else the very first request.
func checkRestored(t *testing.T, step int, recs []record, reqs []llmtest.Request) {
	t.Helper()
	want, what := stepPrompt(1), "the first step's request"
	for i := len(recs) - 1; i >= 0; i-- {
		if recs[i].Subtype == "compact_boundary" {
			if i+1 >= len(recs) || !recs[i+1].IsCompactSummary {
				// A boundary without its summary: a known bug
				// (TestBoundaryWithoutSummaryKeepsHistory).
				t.Logf("step %d: the kill fell between a compact_boundary and its summary", step)
				return
			}
			want, what = "the next step", "the summary in force"
			break
		}
	}
	for _, r := range reqs {
		if isSummaryRequest(r) {
			// The resume compacted first: its summary is now in force.
			want, what = "the next step", "the summary just written"
			continue
		}
		for _, m := range r.Messages {
			if strings.Contains(m.Content, want) {
				return
			}
		}
		t.Errorf("step %d: the resumed request (%d messages) lacks %s (%q)", step, len(r.Messages), what, want)
		return
	}
}
