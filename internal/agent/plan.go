package agent

import (
	"context"
	"fmt"

	"github.com/clawdcode/clawdcode/internal/tools"
)

// Plan mode hands over through the ExitPlanMode tool, which a turn that
// starts in plan mode offers (Engine.offer): the model calls it with its
// plan, the front end puts the plan to the user (PlanApprover), and on
// approval the mode changes and the call's result tells the model to
// carry the plan out, which it does in the same turn, with no other
// prompt. Where nobody can answer (no PlanApprover: -p, a REPL without a
// terminal) the plan is the turn's answer and the turn ends there, as it
// does when the user keeps planning without saying what to change.

// PlanApprover puts a plan the model handed over (ExitPlanMode) to the
// user: the REPL's dialog, an editor's permission request. It is called
// on the goroutine that runs the turn (Submit's), which waits for the
// answer; ctx is the turn's.
type PlanApprover interface {
	ApprovePlan(ctx context.Context, plan string) (PlanAnswer, error)
}

// PlanAnswer is the user's answer to a plan.
type PlanAnswer struct {
	// Mode is the permission mode the plan is to be carried out in
	// (tools.ModeDefault, tools.ModeAcceptEdits, or tools.ModeBypass when
	// the run may bypass); tools.ModePlan: not approved, keep planning.
	Mode tools.Mode
	// Note is what the user said with it ("" = nothing): what to change
	// in the plan, when planning goes on. The model gets it and goes on
	// planning at once; without one the turn ends.
	Note string
}

// SetPlanApprover makes a the one that answers the plans the model hands
// over (nil: none, the plan is the turn's answer). A front end that can
// ask the user sets it before its first turn.
func (p *Permissions) SetPlanApprover(a PlanApprover) { p.plans = a }

// planHandler answers ExitPlanMode's calls (tools.PlanHandler) by the
// Permissions part's approver and policy.
type planHandler struct{ p *Permissions }

var _ tools.PlanHandler = planHandler{}

func (h planHandler) ExitPlan(ctx context.Context, plan string) tools.Result {
	p := h.p
	if p.p.Mode() != tools.ModePlan {
		return tools.Result{Error: "plan mode is not on: there is no plan to approve; carry on with the task"}
	}
	if p.plans == nil {
		return tools.Result{Output: tools.PlanUnanswered, Final: plan}
	}
	ans, err := p.plans.ApprovePlan(ctx, plan)
	switch {
	case err != nil && ctx.Err() != nil:
		return tools.Result{Error: interruptedResult}
	case err != nil:
		return tools.Result{Error: fmt.Sprintf("the plan could not be put to the user: %v", err)}
	case ans.Mode == tools.ModePlan && ans.Note == "":
		return tools.Result{Output: tools.PlanNotApproved(""), Final: plan}
	case ans.Mode == tools.ModePlan:
		return tools.Result{Output: tools.PlanNotApproved(ans.Note)}
	case !p.p.SetMode(ans.Mode):
		return tools.Result{Error: fmt.Sprintf("the plan was approved, but the mode could not change to %s; plan mode stays on", ans.Mode)}
	}
	return tools.Result{Output: tools.PlanApproved(ans.Mode)}
}
