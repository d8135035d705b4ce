package slash

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/clawdcode/clawdcode/internal/buildinfo"
	"github.com/clawdcode/clawdcode/internal/termtext"
	"github.com/clawdcode/clawdcode/internal/tools"
)

func statusCommand() Command {
	return Command{
		Name:    "status",
		Summary: "version, model, server, session, project, permissions, sandbox, MCP servers, memories and log file",
		Run: func(_ context.Context, env *Env, _ string) error {
			writeStatus(env.IO.Out, env.Parts)
			return nil
		},
	}
}

// writeStatus writes one "name: value" line per fact; the API key is
// never among them (About carries none).
func writeStatus(w io.Writer, e Parts) {
	line := func(name, value string) { fmt.Fprintf(w, "%-12s %s\n", name+":", termtext.Line(value)) }
	line("Version", buildinfo.Version)
	line("Model", e.Model.Model())
	line("Base URL", e.About.BaseURL)
	line("Window", fmt.Sprintf("%d tokens (%s)", e.Context.Usage().Window, orNone(e.Context.WindowSource(), "models table")))
	session := orNone(e.Sessions.ID(), "none yet (starts with the first message)")
	if t := e.Sessions.Title(); t != "" {
		session += " · " + t
	}
	line("Session", session)
	if p := e.Sessions.Project(); p != nil {
		line("Project", p.Root)
	}
	line("Permissions", permissionText(e.Permissions.Summary()))
	if e.About.Sandbox != nil {
		line("Sandbox", e.About.Sandbox())
	}
	line("MCP servers", mcpText(e.MCP))
	line("Memories", memoriesText(e.Memory))
	line("Log file", orNone(e.About.LogFile, "off (set CLAWDCODE_LOG=info to keep one)"))
}

func permissionText(p tools.PermissionSummary) string {
	mode := "ask"
	switch {
	case p.Mode == tools.ModeBypass:
		mode = "skip (--dangerously-skip-permissions; deny rules still apply)"
	case p.Mode == tools.ModePlan:
		mode = "plan (read-only tools until a plan is approved)"
	case p.Mode == tools.ModeAcceptEdits && p.Interactive:
		mode = "accept edits (Write and Edit inside the project run; the rest asks)"
	case p.Mode == tools.ModeAcceptEdits:
		mode = "accept edits (Write and Edit inside the project run; what no rule allows is denied)"
	case !p.Interactive:
		mode = "rules only (no one to ask: what no rule allows is denied)"
	}
	return fmt.Sprintf("%s · %d allow, %d deny, %d for this session", mode, p.Allow, p.Deny, p.Session)
}

func mcpText(m MCP) string {
	servers := m.Servers()
	if len(servers) == 0 {
		return "none"
	}
	parts := make([]string, 0, len(servers))
	for _, s := range servers {
		parts = append(parts, s.Name+" "+s.State)
	}
	return strings.Join(parts, ", ")
}

func memoriesText(m Memory) string {
	book := m.Book()
	if book == nil {
		return "none"
	}
	v, err := book.View()
	if err != nil {
		return "unreadable: " + err.Error()
	}
	return fmt.Sprintf("%d (%d suggested) (/memory)", len(v.Memories), len(v.Suggestions))
}

func orNone(s, none string) string {
	if s == "" {
		return none
	}
	return s
}
