package repl

import (
	"fmt"
	"strings"

	contextmgr "github.com/clawdcode/clawdcode/internal/context"
	"github.com/clawdcode/clawdcode/internal/mcphost"
	"github.com/clawdcode/clawdcode/internal/slash"
	"github.com/clawdcode/clawdcode/internal/tools"
)

// statusLine is the line under the entry while the user types: the model,
// the context used and what is left before auto-compaction, the
// permission mode (none shown in default; Shift-Tab switches it), the
// MCP servers not ready, the background commands running, what today's
// sessions cost (when a price is known) and the session's title. It is
// drawn by the editor as part of the entry and erased when the entry is
// sent, so it never mixes with a turn's output. It fits width columns.
func (s *session) statusLine(width int) string {
	e := s.opts.Parts
	var parts []string
	mode := s.mode()
	badge := modeBadge(mode, width < 60)
	if badge != "" {
		parts = append(parts, badge)
	}
	parts = append(parts, e.Model.Model())
	if fig := contextFigure(e.Context.Usage()); fig != "" {
		parts = append(parts, fig)
	}
	if mcp := mcpFigure(e.MCP.Servers()); mcp != "" {
		parts = append(parts, mcp)
	}
	if n := runningShells(e); n > 0 {
		parts = append(parts, plural(n, "shell")+" running (/bashes)")
	}
	if s.opts.Spend != nil {
		if f := s.opts.Spend.Figure(); f != "" {
			parts = append(parts, f)
		}
	}
	if title := e.Sessions.Title(); title != "" {
		parts = append(parts, title)
	}
	line := clipWidth(strings.Join(parts, " · "), width)
	if rest, ok := strings.CutPrefix(line, badge); ok && badge != "" {
		if mode == tools.ModeBypass {
			return s.cs.err(badge) + s.cs.dim(rest)
		}
		return s.cs.warn(badge) + s.cs.dim(rest)
	}
	return s.cs.dim(line)
}

// contextFigure is "ctx 12% · 73% to compact": how full the window is and
// how much of the budget before auto-compaction is left.
func contextFigure(u contextmgr.Usage) string {
	if u.Window <= 0 {
		return ""
	}
	return fmt.Sprintf("ctx %d%% · %d%% to compact", u.Used(), u.Left())
}

// mcpFigure is "mcp: 1 connecting, 1 failed": the MCP servers still
// connecting in the background and those that could not be started or
// died (/mcp says why). Servers that are ready go unmentioned: the figure
// leaves the line once every server has answered.
func mcpFigure(servers []mcphost.Status) string {
	var connecting, failed int
	for _, s := range servers {
		switch s.State {
		case mcphost.StateConnecting:
			connecting++
		case mcphost.StateFailed, mcphost.StateDied:
			failed++
		}
	}
	var parts []string
	if connecting > 0 {
		parts = append(parts, fmt.Sprintf("%d connecting", connecting))
	}
	if failed > 0 {
		parts = append(parts, fmt.Sprintf("%d failed (/mcp)", failed))
	}
	if len(parts) == 0 {
		return ""
	}
	return "mcp: " + strings.Join(parts, ", ")
}

// runningShells counts the background commands still running (0 without
// the part).
func runningShells(p slash.Parts) int {
	if p.Shells == nil {
		return 0
	}
	return p.Shells.Running()
}
