package ctxbench

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// TestLadderCorpusSizesOutputsToTheWindow: every file a ladder task reads
// is 5-35 % of the window (o200k_base), every task is turns requests, and
// the corpus is the same for the same arguments.
func TestLadderCorpusSizesOutputsToTheWindow(t *testing.T) {
	t.Parallel()
	for _, window := range []int{4000, 32000} {
		c := ladderCorpus(seed, 2, 2, 40, window, runnerRuns(t))
		for _, s := range c {
			for _, tk := range s.tasks {
				if len(tk.replies) != 40 {
					t.Errorf("%dk %s: a task of %d requests, want 40", window/1000, s.name, len(tk.replies))
				}
				for _, r := range tk.replies {
					for _, call := range r.ToolCalls {
						if call.Name != "Read" {
							continue
						}
						var args struct {
							Path string `json:"file_path"`
						}
						if err := json.Unmarshal([]byte(call.Arguments), &args); err != nil {
							t.Fatal(err)
						}
						n := llmtest.TextTokens(s.files[args.Path])
						if lo, hi := int(ladderMinShare*float64(window)), int(ladderMaxShare*float64(window))+40; n < lo || n > hi {
							t.Errorf("%dk %s: %s is %d tokens, want %d to %d", window/1000, s.name, args.Path, n, lo, hi)
						}
					}
				}
			}
		}
		if again := ladderCorpus(seed, 2, 2, 40, window, runnerRuns(t)); fmt.Sprint(again[1].files) != fmt.Sprint(c[1].files) {
			t.Errorf("%dk: the corpus changed between two generations", window/1000)
		}
	}
}

// TestExplorationCorpusIsTheSameEitherWay: delegated or not, a session
// reads the same files and plants the same facts; only who reads differs.
func TestExplorationCorpusIsTheSameEitherWay(t *testing.T) {
	t.Parallel()
	self, deleg := explorationCorpus(seed, 1, 3, false)[0], explorationCorpus(seed, 1, 3, true)[0]
	if fmt.Sprint(self.files) != fmt.Sprint(deleg.files) || fmt.Sprint(self.facts) != fmt.Sprint(deleg.facts) {
		t.Fatal("the delegated session's files or facts differ from the self-exploring one's")
	}
	for i, tk := range deleg.tasks {
		if tk.sub == nil || len(tk.replies) != 2 || tk.replies[0].ToolCalls[0].Name != "Task" {
			t.Fatalf("delegated task %d: want a Task call then the answer, got %d replies", i, len(tk.replies))
		}
		if got, want := len(tk.sub.replies), len(self.tasks[i].replies); got != want {
			t.Errorf("task %d: the subagent plays %d replies, the self-exploring parent %d", i, got, want)
		}
	}
}
