package ctxwindow

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// The context ladder (issue 22): old tool results are cleared to stubs
// before anything is summarised, superseded reads are dropped, a summary
// comes only when that is not enough, and when even that cannot free
// enough the user is told and nothing loops.

// ladderTurns is the length of the tool-heavy task: model calls, each
// but the last answered by a tool.
const ladderTurns = 40

// toolHeavyTask writes the project of a tool-heavy task for a window:
// files whose reads weigh 5 % to 35 % of it, and returns the agent that
// works through them — reads, shell commands that print, an edit of a
// file read before (so that read is superseded), a re-read — for
// ladderTurns calls, then answers "done". It keeps its own count, since
// the requests' history is cleared and summarised under it.
func toolHeavyTask(w *world, window int) func(llmtest.Request) llmtest.Reply {
	shares := []float64{0.05, 0.2, 0.1, 0.35, 0.15, 0.25, 0.08, 0.3}
	for i, s := range shares {
		// bigText lines are ~11 tokens.
		w.writeFile(fmt.Sprintf("f%d.txt", i), bigText(fmt.Sprintf("f%d", i), max(2, int(s*float64(window)/11))))
	}
	var mu sync.Mutex
	turn := 0
	return func(r llmtest.Request) llmtest.Reply {
		if isSummaryRequest(r) {
			return fixedSummary(r)
		}
		mu.Lock()
		k := turn
		turn++
		mu.Unlock()
		f := fmt.Sprintf("f%d.txt", k%len(shares))
		switch {
		case k >= ladderTurns-1:
			return llmtest.Text("done")
		case k%5 == 3:
			return llmtest.ToolCalls(llmtest.Call("Bash", fmt.Sprintf(`{"command": "head -c %d f%d.txt"}`, window/2, (k+1)%len(shares))))
		case k%7 == 6:
			prev := fmt.Sprintf("f%d.txt", (k-1)%len(shares))
			return llmtest.ToolCalls(llmtest.Call("Edit", fmt.Sprintf(`{"file_path": %q, "old_string": "f%d 0000:", "new_string": "F%d 0000:"}`, prev, (k-1)%len(shares), (k-1)%len(shares))))
		default:
			return llmtest.ToolCalls(llmtest.Call("Read", fmt.Sprintf(`{"file_path": %q}`, f)))
		}
	}
}

// TestLadderFinishesToolHeavyTasksOnSmallWindows: at 4k, 8k, 16k and 32k
// a 40-call tool-heavy task, one -p run, finishes with no request over the
// window (the server's window is clawdcode's) and at most one summary per
// ten calls: old results are cleared first, and old rounds whose results
// are stubs are folded into one line each (main took 13 to 16 summaries at
// 8k-32k for this task, 38 at 4k). At 4k the session sends the brief
// system prompt and tools, which leave the conversation twice the room of
// the full ones.
func TestLadderFinishesToolHeavyTasksOnSmallWindows(t *testing.T) {
	t.Parallel()
	for _, window := range []int{4000, 8000, 16000, 32000} {
		t.Run(itoa(window), func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, llmtest.Options{Window: window, PromptCache: true})
			w.Server.SetResponder(toolHeavyTask(w, window))
			obj, r := w.runJSON("-p", "work through the files", "--context-window", itoa(window), "--dangerously-skip-permissions")
			if r.Code != 0 || obj.IsError {
				t.Fatalf("the task failed\n%s", r)
			}
			if obj.Result != "done" {
				t.Errorf("the task did not finish: result %q", obj.Result)
			}
			noRejections(t, w.Server)
			agent := agentRequests(w.Server)
			if len(agent) != ladderTurns {
				t.Errorf("%d agent requests, want %d", len(agent), ladderTurns)
			}
			for i, q := range agent {
				if q.Tokens > window {
					t.Errorf("request %d weighs %d tokens, over the %d-token window", i, q.Tokens, window)
				}
			}
			sums := len(summaryRequests(w.Server))
			if sums*10 > len(agent) {
				t.Errorf("%d summaries in %d turns, want at most one per ten", sums, len(agent))
			}
			var clears []record // clearing steps (a context_clear record may also cap a new result)
			for _, c := range recordsOfSubtype(readRecords(t, w.onlySession()), "context_clear") {
				if len(c.CompactMetadata.Cleared) > 0 {
					clears = append(clears, c)
				}
			}
			if window <= 16000 && len(clears) == 0 {
				t.Errorf("no context_clear record at %d tokens: the ladder never cleared", window)
			}
			// The last step, past a summary, cuts texts to fit (context_cut).
			cuts := len(recordsOfSubtype(readRecords(t, w.onlySession()), "context_cut"))
			breaks := prefixBreaks(t, agent)
			if steps := len(clears) + sums + cuts; breaks > steps {
				t.Errorf("the request's prefix changed %d times with %d ladder steps: it must change only at a step", breaks, steps)
			}
			// Results of up to 35 % of the window, each kept for the
			// next reply: a batch lasts two to three calls at 8k.
			if window > 4000 && len(clears)*2 > len(agent) {
				t.Errorf("%d clearing steps in %d turns: clearing must come in batches", len(clears), len(agent))
			}
			t.Logf("window %d: %d turns, %d summaries, %d clearing steps, %d compactions, %d prefix changes; %s", window, len(agent), sums, len(clears), *obj.Compactions, breaks, inputCost(w.Server.Requests()))
		})
	}
}

// prefixBreaks counts the agent requests that do not begin with the whole
// request before them (a prompt cache would miss there), and checks that
// the system prompt and the tools never change.
func prefixBreaks(t *testing.T, reqs []llmtest.Request) int {
	t.Helper()
	breaks := 0
	for i := 1; i < len(reqs); i++ {
		prev, cur := reqs[i-1], reqs[i]
		a, _ := json.Marshal(prev.Tools)
		b, _ := json.Marshal(cur.Tools)
		if string(a) != string(b) || prev.Messages[0].Content != cur.Messages[0].Content {
			t.Errorf("request %d changed the tools or the system prompt", i)
		}
		for k := range prev.Messages {
			x, _ := json.Marshal(prev.Messages[k])
			y, _ := json.Marshal(cur.Messages[min(k, len(cur.Messages)-1)])
			if k >= len(cur.Messages) || string(x) != string(y) {
				breaks++
				break
			}
		}
	}
	return breaks
}

// inputCost sums what every request (summaries included) sent: input
// tokens, the share a prompt cache served, and the cost-equivalent input
// with cached tokens at a tenth (BENCHMARKS.md, issue 22).
func inputCost(reqs []llmtest.Request) string {
	prompt, cached := 0, 0
	for _, q := range reqs {
		prompt += q.Tokens
		cached += q.CachedTokens
	}
	return fmt.Sprintf("input %d tokens, %d%% cached, cost-equivalent %d", prompt, 100*cached/max(prompt, 1), prompt-cached+cached/10)
}

// recordsOfSubtype are the system records of subtype.
func recordsOfSubtype(recs []record, subtype string) []record {
	var out []record
	for _, r := range recs {
		if r.Type == "system" && r.Subtype == subtype {
			out = append(out, r)
		}
	}
	return out
}

// stubRef finds a cleared result's stub in msgs and the ref it names.
var stubRef = regexp.MustCompile(`^\[(?:cleared to save context|superseded by a later read or edit): .*; Recall ref=([0-9a-f]{8}) shows it\]$`)

func clearedStub(msgs []chat.Message) (ref string, ok bool) {
	for _, m := range msgs {
		if m.Role != chat.RoleTool {
			continue
		}
		if sm := stubRef.FindStringSubmatch(m.Content); sm != nil {
			return sm[1], true
		}
	}
	return "", false
}

// clearedSession runs reads of large files, one -c -p turn each, in a
// window where a few of them reach the trigger, until a request carries
// a cleared result's stub. It returns that request's index among the
// agent requests.
func clearedSession(t *testing.T, window int) (*world, int) {
	t.Helper()
	w := newWorld(t, llmtest.Options{Window: window})
	w.Server.SetResponder(agentWithSummaries(fixedSummary))
	for i := range 8 {
		name := fmt.Sprintf("r%d.txt", i)
		w.writeFile(name, bigText(fmt.Sprintf("r%d", i), window/60))
		args := []string{"-p", "read " + name, "--context-window", itoa(window)}
		if i > 0 {
			args = append([]string{"-c"}, args...)
		}
		w.mustJSON(args...)
		agent := agentRequests(w.Server)
		for j := range agent {
			if _, ok := clearedStub(agent[j].Messages); ok {
				return w, j
			}
		}
	}
	t.Fatalf("no request carried a cleared tool result after 8 turns of large reads in a %d-token window", window)
	return nil, 0
}

// TestClearedResultIsOneRecallAway: a cleared result's stub names the
// record's uuid, and Recall with that ref gives the model its content
// word for word.
func TestClearedResultIsOneRecallAway(t *testing.T) {
	t.Parallel()
	w, i := clearedSession(t, 8000)
	ref, _ := clearedStub(agentRequests(w.Server)[i].Messages)
	var original string
	for _, r := range readRecords(t, w.onlySession()) {
		if strings.HasPrefix(r.UUID, ref) {
			if r.Type != "tool_result" || r.ToolResult == nil {
				t.Fatalf("the stub's ref %s names a %s record, want a tool_result", ref, r.Type)
			}
			original = r.ToolResult.Output
		}
	}
	if original == "" {
		t.Fatalf("the stub's ref %s is no record of the session", ref)
	}
	w.mustJSON("-c", "-p", "recall-ref "+ref, "--context-window", "8000")
	last := agentRequests(w.Server)
	msgs := last[len(last)-1].Messages
	got := msgs[len(msgs)-1]
	if got.Role != chat.RoleTool {
		t.Fatalf("the last request does not end with the Recall result: %s", roles(msgs))
	}
	// The record is shown in full (lines are Recall's, so compare lines).
	for _, line := range strings.Split(strings.TrimSpace(original), "\n")[:5] {
		if !strings.Contains(got.Content, line) {
			t.Fatalf("Recall ref=%s does not show the cleared content (line %q missing):\n%.600s", ref, line, got.Content)
		}
	}
}

// TestResumeAfterClearingSendsTheSameBytes: the request a process sent
// after clearing, and the first request a -c run sends, agree byte for
// byte over the whole of the former: the stubs are rebuilt from the
// context_clear record, so the server's prompt cache still holds.
func TestResumeAfterClearingSendsTheSameBytes(t *testing.T) {
	t.Parallel()
	w, _ := clearedSession(t, 8000)
	agent := agentRequests(w.Server)
	before := agent[len(agent)-1]
	w.mustJSON("-c", "-p", "and now?", "--context-window", "8000")
	after := agentRequests(w.Server)[len(agent)]
	if len(after.Messages) <= len(before.Messages) {
		t.Fatalf("the resumed request has %d messages, the one before %d", len(after.Messages), len(before.Messages))
	}
	for k := range before.Messages {
		a, _ := json.Marshal(before.Messages[k])
		b, _ := json.Marshal(after.Messages[k])
		if string(a) != string(b) {
			t.Fatalf("message %d differs after the resume:\nbefore: %.400s\nafter:  %.400s", k, a, b)
		}
	}
	if _, ok := clearedStub(after.Messages); !ok {
		t.Error("the resumed request carries no stub")
	}
	if n := len(recordsOfSubtype(readRecords(t, w.onlySession()), "context_clear")); n == 0 {
		t.Error("no context_clear record in the session")
	}
	w.MustRun("sessions", "check") // the records are sound to the checker too
}

// TestLadderSaysWhenItCannotFreeEnough: with instructions that take most
// of the window, neither clearing nor a summary brings the request under
// the trigger. The run says so on stderr, offers /handoff, still answers
// (texts cut to fit, no rejection), and summarises at most once — it does
// not compact again every call.
func TestLadderSaysWhenItCannotFreeEnough(t *testing.T) {
	t.Parallel()
	const window = 7000
	w := newWorld(t, llmtest.Options{Window: window})
	w.writeFile("CLAUDE.md", bigText("rule", 900)) // cut to 16 KB, ~3k tokens in the system prompt
	var prompt []string
	for i := range 4 {
		name := fmt.Sprintf("g%d.txt", i)
		w.writeFile(name, bigText(name, 150))
		prompt = append(prompt, "read "+name)
	}
	w.Server.SetResponder(agentWithSummaries(fixedSummary))
	w.mustJSON("-p", "read g0.txt", "--context-window", itoa(window))
	obj, r := w.runJSON("-c", "-p", strings.Join(prompt, "\n"), "--context-window", itoa(window))
	if r.Code != 0 || obj.IsError {
		t.Fatalf("the run did not answer\n%s", r)
	}
	if !strings.Contains(r.Stderr, "cannot be freed enough") || !strings.Contains(r.Stderr, "/handoff") {
		t.Errorf("stderr does not say the context cannot be freed enough, with /handoff offered:\n%s", r.Stderr)
	}
	noRejections(t, w.Server)
	if n := len(summaryRequests(w.Server)); n > 1 {
		t.Errorf("%d summary calls: the ladder compacted again after it could not free enough", n)
	}
}

// TestContextShowsTheLadder: /context shows the results the ladder
// cleared and its steps with the tokens each freed; after a summary that
// followed clearing (/compact after the tool-heavy task), the receipt
// lists the ladder's steps in order.
func TestContextShowsTheLadder(t *testing.T) {
	t.Parallel()
	w, _ := clearedSession(t, 8000)
	r := w.MustRun("-c", "-p", "/context", "--context-window", "8000")
	if !regexp.MustCompile(`cleared tool results: [1-9]\d* sent as a one-line stub`).MatchString(r.Stdout) ||
		!regexp.MustCompile(`cleared old tool results \(\d+\): -[\d,]+ tokens`).MatchString(r.Stdout) {
		t.Errorf("/context does not show the cleared results and the ladder's steps:\n%s", r.Stdout)
	}

	const window = 8000
	h := newWorld(t, llmtest.Options{Window: window})
	h.Server.SetResponder(toolHeavyTask(h, window))
	h.mustJSON("-p", "work through the files", "--context-window", itoa(window), "--dangerously-skip-permissions")
	// The task needs no summary now (old rounds are folded): /compact
	// writes the receipt.
	h.MustRun("-c", "-p", "/compact", "--context-window", itoa(window))
	r = h.MustRun("-c", "-p", "/context", "--context-window", itoa(window))
	if !strings.Contains(r.Stdout, "Last compaction:\n  the context ladder, in order:\n") ||
		!regexp.MustCompile(`  summarised: -[\d,]+ tokens`).MatchString(r.Stdout) {
		t.Errorf("/context's receipt does not list the ladder's steps before the summary:\n%s", r.Stdout)
	}
}

// TestLadderDoesNotLoopAcrossContinues: in a window the instructions
// leave little of, a -c -p run per read does not compact every run, and
// the run after one where the ladder gave up knows it (the
// context_give_up record): it does not summarise again.
func TestLadderDoesNotLoopAcrossContinues(t *testing.T) {
	t.Parallel()
	const window = 9000
	w := newWorld(t, llmtest.Options{Window: window})
	w.writeFile("CLAUDE.md", bigText("rule", 900))
	w.Server.SetResponder(agentWithSummaries(fixedSummary))
	const runs = 8
	var perRun []int // summary calls each run made
	for i := range runs {
		name := fmt.Sprintf("h%d.txt", i)
		w.writeFile(name, bigText(name, 150))
		args := []string{"-p", "read " + name, "--context-window", itoa(window)}
		if i > 0 {
			args = append([]string{"-c"}, args...)
		}
		before := len(summaryRequests(w.Server))
		w.mustJSON(args...)
		perRun = append(perRun, len(summaryRequests(w.Server))-before)
	}
	noRejections(t, w.Server)
	// A summary waits for half the room of new material (each read here
	// brings about a third): 73c7cc2 made 15 summary calls in these 8
	// runs, 81f235b, which kept the give-up in memory only, 4 — one in
	// each run after a give-up.
	total := 0
	for i, n := range perRun {
		total += n
		if i > 0 && n > 0 && perRun[i-1] > 0 {
			t.Errorf("runs %d and %d both summarised (%v): the run after a give-up summarises again", i, i+1, perRun)
		}
	}
	if total > 2 {
		t.Errorf("%d summary calls in %d runs (%v): the ladder summarises again across -c", total, runs, perRun)
	}
}
