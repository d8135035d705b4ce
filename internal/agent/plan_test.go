package agent

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
	"github.com/clawdcode/clawdcode/internal/tools"
)

// scriptedApprover answers every plan with ans and keeps the plans.
type scriptedApprover struct {
	ans   PlanAnswer
	plans []string
}

func (a *scriptedApprover) ApprovePlan(_ context.Context, plan string) (PlanAnswer, error) {
	a.plans = append(a.plans, plan)
	return a.ans, nil
}

func toolNames(r llmtest.Request) []string {
	var names []string
	for _, t := range r.Tools {
		names = append(names, t.Name)
	}
	return names
}

// ExitPlanMode is offered in a turn that starts in plan mode only; an
// approved plan changes the mode and the model goes on in the same turn,
// told so; kept planning without a word ends the turn with the plan as
// its answer, as it does where nobody can approve (no approver).
func TestPlanHandover(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name     string
		approver *scriptedApprover
		mode     tools.Mode // after the turn
		calls    int        // model calls of the turn
		told     string
		answer   string
	}{
		{"approved", &scriptedApprover{ans: PlanAnswer{Mode: tools.ModeAcceptEdits}}, tools.ModeAcceptEdits, 3, "you are now in acceptEdits mode", "done"},
		{"keep planning", &scriptedApprover{ans: PlanAnswer{Mode: tools.ModePlan}}, tools.ModePlan, 1, "", "1. change a.txt"},
		{"keep planning, said what", &scriptedApprover{ans: PlanAnswer{Mode: tools.ModePlan, Note: "use b.txt"}}, tools.ModePlan, 2, "They said: use b.txt", "Tool results"},
		{"nobody to ask", nil, tools.ModePlan, 1, "", "1. change a.txt"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, llmtest.Options{})
			agent := llmtest.Agent()
			w.srv.SetResponder(func(r llmtest.Request) llmtest.Reply {
				last := r.Messages[len(r.Messages)-1]
				if last.Role == "tool" && strings.Contains(last.Content, "approved your plan") {
					return llmtest.ToolCalls(llmtest.Call("Write", `{"file_path":"a.txt","content":"planned"}`))
				}
				if last.Role == "tool" && strings.Contains(w.lastToolName(r), "Write") {
					return llmtest.Text("done")
				}
				return agent(r)
			})
			perms := tools.NewPermissions(tools.PermissionsConfig{Root: w.root, Mode: tools.ModePlan})
			e := w.engine(t, perms, 0)
			if tt.approver != nil {
				e.Permissions().SetPlanApprover(tt.approver)
			}
			res, err := e.Turns().Submit(t.Context(), `exit-plan 1. change a.txt`, nil)
			if err != nil {
				t.Fatal(err)
			}
			reqs := w.srv.Requests()
			if !slices.Contains(toolNames(reqs[0]), tools.NameExitPlanMode) {
				t.Fatalf("plan mode's turn does not offer ExitPlanMode: %v", toolNames(reqs[0]))
			}
			if got := perms.Mode(); got != tt.mode || len(reqs) != tt.calls || !strings.Contains(res.Text, tt.answer) {
				t.Fatalf("mode %s after %d calls, answer %q; want %s after %d, answer with %q", got, len(reqs), res.Text, tt.mode, tt.calls, tt.answer)
			}
			if tt.told != "" && !strings.Contains(w.toolResults(reqs[1]), tt.told) {
				t.Errorf("the model was not told %q: %s", tt.told, w.toolResults(reqs[1]))
			}
			if tt.mode == tools.ModeAcceptEdits {
				if b, _ := os.ReadFile(filepath.Join(w.root, "a.txt")); string(b) != "planned" {
					t.Errorf("the approved plan was not carried out in the same turn (a.txt %q)", b)
				}
				// The next turn, out of plan mode, no longer offers it.
				w.srv.SetResponder(llmtest.Agent())
				if _, err := e.Turns().Submit(t.Context(), "thanks", nil); err != nil {
					t.Fatal(err)
				}
				if slices.Contains(toolNames(w.srv.LastRequest()), tools.NameExitPlanMode) {
					t.Errorf("ExitPlanMode is offered outside plan mode")
				}
			}
			w.checkAccepted(t)
		})
	}
}

func (w *world) lastToolName(r llmtest.Request) string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		for _, c := range r.Messages[i].ToolCalls {
			return c.Name
		}
	}
	return ""
}

func (w *world) toolResults(r llmtest.Request) string {
	var b strings.Builder
	for _, m := range r.Messages {
		if m.Role == "tool" {
			b.WriteString(m.Content + "\n")
		}
	}
	return b.String()
}
