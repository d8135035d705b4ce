package repl

import (
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
