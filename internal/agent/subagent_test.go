package agent

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llm"
	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/tools"
)

// recordingAsker answers every question with its decision and keeps what
// the dialog would have shown.
type recordingAsker struct {
	decision tools.Decision
	asked    []string
}

func (a *recordingAsker) Ask(_ context.Context, tool tools.Tool, input json.RawMessage) (tools.Decision, error) {
	a.asked = append(a.asked, tool.Describe(input))
	return a.decision, nil
}

// A subagent's call is decided by the parent's permissions, and the
// question names the subagent; a denial reaches it as for the parent.
func TestSubagentAsksThroughTheParent(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	bash, _ := tools.Lookup(tools.Set(tools.NewEnv(root)), tools.NameBash)
	input := json.RawMessage(`{"command":"go test ./..."}`)
	for _, tc := range []struct {
		decision   tools.Decision
		wantDenied bool
	}{{tools.AllowOnce, false}, {tools.Deny, true}} {
		asker := &recordingAsker{decision: tc.decision}
		perms := tools.NewPermissions(tools.PermissionsConfig{Root: root, Asker: asker})
		c := labeledChecker{inner: perms, label: "[explore: find tests]", asking: &sync.Mutex{}}
		denied, err := c.Check(context.Background(), bash, input)
		if err != nil {
			t.Fatal(err)
		}
		if (denied != "") != tc.wantDenied {
			t.Errorf("decision %v: denied %q", tc.decision, denied)
		}
		if len(asker.asked) != 1 || asker.asked[0] != "[explore: find tests] Bash(go test ./...)" {
			t.Errorf("the dialog showed %q", asker.asked)
		}
	}
}

// countingLLM answers every call with a reply that spent n tokens.
type countingLLM struct {
	LLM
	calls, n int
}

func (c *countingLLM) Stream(context.Context, llm.Request, func(llm.Delta)) (*llm.Response, error) {
	c.calls++
	return &llm.Response{Usage: llm.Usage{PromptTokens: c.n}}, nil
}

// A subagent's calls stop once they have spent its token budget.
func TestSubagentTokenBudget(t *testing.T) {
	t.Parallel()
	inner := &countingLLM{n: 600}
	b := &budgetLLM{LLM: inner, limit: 1000}
	for range 2 {
		if _, err := b.Stream(context.Background(), llm.Request{}, nil); err != nil {
			t.Fatal(err)
		}
	}
	_, err := b.Stream(context.Background(), llm.Request{}, nil)
	if err == nil || !strings.Contains(err.Error(), "token budget") || inner.calls != 2 {
		t.Fatalf("third call: %v after %d calls, want the budget refusal after 2", err, inner.calls)
	}
}

// taskEvents records the TaskEvents a Sink is given.
type taskEvents struct {
	discardSink
	got []TaskEvent
}

func (r *taskEvents) TaskEvent(_ string, ev TaskEvent) { r.got = append(r.got, ev) }

// A subagent's end says how it ended, as the Task result does: an answer
// is ok, an interrupt cancelled, any other stop failed; and what it spent.
func TestTaskEndedOutcome(t *testing.T) {
	t.Parallel()
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		ctx  context.Context
		err  error
		want string
	}{
		{context.Background(), nil, TaskOK},
		{cancelled, ErrInterrupted, TaskCancelled},
		{context.Background(), errTaskBudget, TaskFailed},
	} {
		rec := &taskEvents{}
		sink := newTaskSink(rec, "call_1", "[general: x]")
		taskEnded(tc.ctx, sink, &TurnResult{Usage: storage.Usage{InputTokens: 7}}, tc.err)
		if len(rec.got) != 1 || rec.got[0].Kind != TaskDone || rec.got[0].Outcome != tc.want || rec.got[0].Usage.InputTokens != 7 {
			t.Errorf("after %v: events %+v, want one done %s with the usage", tc.err, rec.got, tc.want)
		}
	}
}
