package repl

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/clawdcode/clawdcode/internal/tools"
)

// mode is the permission mode the status line shows: the policy's, or
// without one, bypass for --dangerously-skip-permissions.
func (s *session) mode() tools.Mode {
	if s.opts.Modes != nil {
		return s.opts.Modes.Mode()
	}
	if s.opts.SkipPermissions {
		return tools.ModeBypass
	}
	return tools.ModeDefault
}

// modeBadge is the status line's word for the mode, "" in default; narrow
// shortens bypass's to leave room for the model and the context.
func modeBadge(m tools.Mode, narrow bool) string {
	switch m {
	case tools.ModeDefault:
		return ""
	case tools.ModePlan:
		return "⏸ plan mode"
	case tools.ModeBypass:
		if narrow {
			return "⏵⏵ no prompts"
		}
	}
	return "⏵⏵ " + m.Label()
}

// planAnswers are the answers to the plan's approval, and the mode each
// leaves plan mode for (ModePlan: keep planning).
var planAnswers = []struct {
	choice
	mode tools.Mode
}{
	{choice{key: '1', alias: 'y', label: "Yes, approve → default mode (ask before each change)"}, tools.ModeDefault},
	{choice{key: '2', alias: 'a', label: "Yes, approve → accept edits (Write and Edit in the project without asking)"}, tools.ModeAcceptEdits},
	{choice{key: '3', alias: 'n', label: "No, keep planning", cancel: true}, tools.ModePlan},
}

// approvePlan follows an answer given in plan mode, in a terminal: the
// answer is the model's plan, and one key approves it, which leaves plan
// mode, or keeps planning. Elsewhere, or in another mode, it does nothing.
func (s *session) approvePlan(ctx context.Context) error {
	if s.kb == nil || s.opts.Modes == nil || s.opts.Modes.Mode() != tools.ModePlan {
		return nil
	}
	s.con.kb.beginDialog()
	defer s.con.kb.endDialog()
	w := s.io.ErrOut
	s.say(s.cs.warn("?") + " " + styleWords(s.cs.bold, "Approve this plan and leave plan mode?") + " " +
		styleWords(s.cs.dim, "(y: approve → default mode / a: approve → accept edits / n: keep planning)"))
	options := make([]choice, len(planAnswers))
	for i, a := range planAnswers {
		options[i] = a.choice
	}
	i, err := selectOption(ctx, s.con, w, s.cs, options, nil)
	if err != nil {
		// Ctrl-C or the end of input answers nothing: still planning.
		if errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) && ctx.Err() == nil {
			return nil
		}
		return err
	}
	next := planAnswers[i].mode
	if next == tools.ModePlan {
		s.say(styleWords(s.cs.dim, "still in plan mode: say what to change in the plan"))
		return nil
	}
	s.opts.Modes.SetMode(next)
	s.say(styleWords(s.cs.dim, fmt.Sprintf("plan approved: now in %s mode; ask the model to carry it out", next)))
	return nil
}
