package ctxwindow

import (
	"fmt"
	"sync"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// servedTurns is the length of the served-window task: user turns, each
// one -c -p run.
const servedTurns = 40

// servedModel is a local model the models table does not know: its
// window is the server's to say.
const servedModel = "qwen2.5-coder-local"

// turnByTurnTask writes the project of a tool-heavy task worked one user
// turn a run, and returns the agent: each turn reads three files of 5 %
// to 35 % of the window and greps once, then answers.
func turnByTurnTask(w *world, window int) func(llmtest.Request) llmtest.Reply {
	shares := []float64{0.05, 0.2, 0.1, 0.35, 0.15, 0.25, 0.08, 0.3}
	for i, s := range shares {
		w.writeFile(fmt.Sprintf("f%d.txt", i), bigText(fmt.Sprintf("f%d", i), max(2, int(s*float64(window)/11))))
	}
	var mu sync.Mutex
	read, step := 0, 0
	return func(r llmtest.Request) llmtest.Reply {
		if isSummaryRequest(r) {
			return fixedSummary(r)
		}
		mu.Lock()
		defer mu.Unlock()
		if r.Messages[len(r.Messages)-1].Role != "tool" {
			step = 0 // a user turn begins
		}
		step++
		switch {
		case step > 4:
			return llmtest.Text("read them")
		case step == 3:
			return llmtest.ToolCalls(llmtest.Call("Grep", `{"pattern": "f1 0001"}`))
		}
		f := fmt.Sprintf("f%d.txt", read%len(shares))
		read++
		return llmtest.ToolCalls(llmtest.Call("Read", fmt.Sprintf(`{"file_path": %q}`, f)))
	}
}

// TestServedSmallWindowsSummariseRarely (issue 35): a local model whose
// window of 4k or 8k the server states (vLLM's /models max_model_len),
// worked one -c -p turn at a time, each turn reading files of 5–35 % of
// the window: every turn is answered, no request is refused, and at most
// one turn in ten summarises (main: 9 summaries at 4k, 4 at 8k — each
// resume's re-orientation packet stayed in the request until a summary).
func TestServedSmallWindowsSummariseRarely(t *testing.T) {
	t.Parallel()
	for _, window := range []int{4000, 8000} {
		t.Run(itoa(window), func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, llmtest.Options{Window: window, PromptCache: true, Family: llmtest.FamilyVLLM, FamilyModel: servedModel})
			w.Server.SetResponder(turnByTurnTask(w, window))
			for i := range servedTurns {
				args := []string{"-p", "read the next files", "-m", servedModel, "--dangerously-skip-permissions"}
				if i > 0 {
					args = append([]string{"-c"}, args...)
				}
				obj, r := w.runJSON(args...)
				if r.Code != 0 || obj.IsError || obj.Result != "read them" {
					t.Fatalf("turn %d was not answered: result %q\n%s", i+1, obj.Result, r)
				}
				if obj.Context.Window != window {
					t.Fatalf("turn %d: window %d, want the server's %d", i+1, obj.Context.Window, window)
				}
			}
			noRejections(t, w.Server)
			sums := len(summaryRequests(w.Server))
			if sums*10 > servedTurns {
				t.Errorf("%d summaries in %d turns, want at most one per ten", sums, servedTurns)
			}
			t.Logf("window %d: %d turns, %d agent requests, %d summaries; %s", window, servedTurns, len(agentRequests(w.Server)), sums, inputCost(w.Server.Requests()))
		})
	}
}
