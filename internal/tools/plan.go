package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/clawdcode/clawdcode/internal/termtext"
	"github.com/clawdcode/clawdcode/internal/toolcall"
)

// NameExitPlanMode is the tool that hands a plan made in plan mode to the
// user (Claude Code's name).
const NameExitPlanMode = toolcall.ExitPlanMode

// PlanParams are ExitPlanMode's parameters (see params.go).
type PlanParams struct {
	Plan string `json:"plan" param:"text" jsonschema:"The plan, in Markdown: the steps you will take, each naming the files it changes and how you will check it. It is shown to the user whole."`
}

// PlanHandler answers an ExitPlanMode call: it puts the plan to the user
// and says what the model is to do next (the engine's).
type PlanHandler interface {
	ExitPlan(ctx context.Context, plan string) Result
}

// NewExitPlanMode returns the ExitPlanMode tool over h. It needs no
// permission: it changes nothing, it asks the user.
func NewExitPlanMode(h PlanHandler) Tool {
	t := typed(&tool{
		name: NameExitPlanMode,
		description: "Plan mode only: once you have investigated and your plan is ready, hand it to the user for " +
			"approval with this tool, instead of writing it as your answer. The user approves it (plan mode then ends " +
			"and you carry the plan out at once, in the mode they chose) or keeps planning (you are told what to " +
			"change). Use it only for a plan of changes to make, not for research or questions; ask a question as " +
			"your answer instead.",
		brief: "Plan mode only: hand your finished plan (Markdown) to the user for approval; if approved, carry it out at once.",
	}, func(ctx context.Context, p PlanParams) Result {
		if strings.TrimSpace(p.Plan) == "" {
			return fail("plan is empty: give the whole plan, in Markdown")
		}
		return h.ExitPlan(ctx, p.Plan)
	}, func(p PlanParams) string {
		return termtext.FirstLine(strings.TrimLeft(p.Plan, "# "), 60, termtext.Ellipsis)
	})
	return t
}

// PlanApproved is what ExitPlanMode answers the model when the user
// approved its plan and chose mode to carry it out in.
func PlanApproved(mode Mode) string {
	how := "Write, Edit and Bash ask the user as usual"
	if mode == ModeAcceptEdits {
		how = "Write and Edit in the project run without asking"
	}
	return fmt.Sprintf("The user approved your plan. Plan mode is off: you are now in %s mode (%s). "+
		"Carry out the plan now, step by step from the first, without asking again; "+
		"if it has several steps, track them with TodoWrite.", mode, how)
}

// PlanNotApproved is what ExitPlanMode answers when the user keeps
// planning, with what they said to change (note; "" = nothing yet).
func PlanNotApproved(note string) string {
	if note == "" {
		return "The user did not approve the plan: plan mode stays on. Stop here and wait for the user to say what to change."
	}
	return "The user did not approve the plan: plan mode stays on. They said: " + note +
		"\nRevise the plan accordingly (investigate further if needed) and hand it over again with ExitPlanMode."
}

// PlanUnanswered is what ExitPlanMode answers where nobody can approve
// the plan (-p): the plan is the run's answer.
const PlanUnanswered = "Nobody can approve the plan in this run: it is the run's answer, shown to the user, and the turn ends here. Make no change."
