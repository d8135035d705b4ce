package slash

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/clawdcode/clawdcode/internal/agent"
	"github.com/clawdcode/clawdcode/internal/mcphost"
	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/termtext"
	"github.com/clawdcode/clawdcode/internal/tokens"
)

func doctorCommand() Command {
	return Command{
		Name:    "doctor",
		Summary: "check the server, the window, the sandbox, trust, the MCP servers and the session store: one line each, ✓ or ✗ with what to do",
		Run: func(ctx context.Context, env *Env, _ string) error {
			bad := 0
			for _, c := range doctorChecks(ctx, env.Parts) {
				writeCheck(env.IO.Out, c)
				if !c.OK {
					bad++
				}
			}
			if bad > 0 {
				fmt.Fprintf(env.IO.Out, "%d of the checks above need a look.\n", bad)
			}
			return nil
		},
	}
}

// namedCheck is one line of /doctor.
type namedCheck struct {
	name string
	agent.Check
}

func writeCheck(w io.Writer, c namedCheck) {
	mark := "✓"
	if !c.OK {
		mark = "✗"
	}
	line := fmt.Sprintf("%s %-8s %s", mark, c.name, termtext.Line(c.Text))
	if !c.OK && c.Hint != "" {
		line += " — " + termtext.Line(c.Hint)
	}
	fmt.Fprintln(w, line)
}

// doctorChecks are /doctor's checks, in order.
func doctorChecks(ctx context.Context, p Parts) []namedCheck {
	out := []namedCheck{
		{"server", serverCheck(ctx, p)},
		{"window", windowCheck(p)},
		{"sandbox", sandboxCheck(p)},
		{"trust", trustCheck(p)},
	}
	for _, c := range mcpChecks(p.MCP) {
		out = append(out, namedCheck{"MCP", c})
	}
	return append(out, namedCheck{"store", storeCheck(ctx, p.Sessions.Project())})
}

func serverCheck(ctx context.Context, p Parts) agent.Check {
	if p.About.CheckServer == nil {
		return agent.Check{OK: true, Text: "not checked here"}
	}
	r := p.About.CheckServer(ctx, p.Model.Model())
	return agent.Check{OK: r.OK, Text: r.Text, Hint: r.Hint}
}

func windowCheck(p Parts) agent.Check {
	u := p.Context.Usage()
	source := orNone(p.Context.WindowSource(), "the models table")
	model := p.Model.Model()
	if strings.Contains(source, "models table") && !tokens.Lookup(model).Known {
		return agent.Check{Text: fmt.Sprintf("%d tokens assumed: %s is not in the models table and the server does not say", u.Window, model),
			Hint: "set it: --context-window N, or context_window = N in config.toml"}
	}
	return agent.Check{OK: true, Text: fmt.Sprintf("%d tokens, from %s", u.Window, source)}
}

func sandboxCheck(p Parts) agent.Check {
	if p.About.Sandbox == nil {
		return agent.Check{OK: true, Text: "not checked here"}
	}
	text := p.About.Sandbox()
	if p.About.Contained != nil && p.About.Contained() {
		return agent.Check{OK: true, Text: text}
	}
	if strings.HasPrefix(text, "off") {
		return agent.Check{Text: text, Hint: "--sandbox workspace-write (or [sandbox] mode) contains the agent's commands"}
	}
	return agent.Check{Text: text, Hint: "every command asks; see docs/cli.md, The sandbox, for what the system must offer"}
}

func trustCheck(p Parts) agent.Check {
	c := p.About.Trust
	if c.Text == "" {
		c = agent.Check{OK: true, Text: "not checked here"}
	}
	if p.Skills == nil {
		return c
	}
	if ignored := p.Skills.Ignored(); len(ignored) > 0 {
		names := make([]string, len(ignored))
		for i, sk := range ignored {
			names[i] = sk.Name
		}
		c.OK = false
		c.Text += fmt.Sprintf("; the project's skills (%s) are not offered", strings.Join(names, ", "))
		c.Hint = "--trust-project trusts them for a run; the REPL asks at its start"
	}
	return c
}

// mcpChecks is one line per configured server, or one saying there are
// none.
func mcpChecks(m MCP) []agent.Check {
	servers := m.Servers()
	if len(servers) == 0 {
		return []agent.Check{{OK: true, Text: "no servers configured"}}
	}
	var out []agent.Check
	for _, s := range servers {
		c := agent.Check{Text: fmt.Sprintf("server %q %s", s.Name, s.State)}
		switch s.State {
		case mcphost.StateConnected:
			c.OK = true
			c.Text += fmt.Sprintf(", %d tools", len(s.Tools))
		case mcphost.StateConnecting:
			c.Hint = "still starting: /mcp shows it when it is done"
		default:
			c.Text += ": " + s.Error
			c.Hint = "check its command or url in config.toml (or --mcp-config); /mcp shows every server"
		}
		out = append(out, c)
	}
	return out
}

// storeCheck is `clawdcode sessions check` for this project, summed up.
func storeCheck(ctx context.Context, p *storage.Project) agent.Check {
	if p == nil {
		return agent.Check{OK: true, Text: "no project"}
	}
	files, err := p.SessionFiles()
	if err != nil {
		return agent.Check{Text: "the project's sessions cannot be listed: " + err.Error(), Hint: "check the permissions of CLAWDCODE_HOME"}
	}
	problems := 0
	for _, f := range files {
		c, err := storage.CheckSession(ctx, p.Path(f.ID), f.ID)
		if errors.Is(err, storage.ErrNotFound) {
			continue
		}
		if err != nil {
			return agent.Check{Text: "session " + f.ID + " cannot be checked: " + err.Error(), Hint: "`clawdcode sessions check` says more"}
		}
		problems += len(c.Problems)
	}
	drift, err := p.IndexDrift()
	if err == nil {
		problems += len(drift)
	}
	sessions := fmt.Sprintf("%d session", len(files))
	if len(files) != 1 {
		sessions += "s"
	}
	if problems > 0 {
		return agent.Check{Text: fmt.Sprintf("%d problems in this project's %s", problems, sessions),
			Hint: "`clawdcode sessions check` lists them; --repair mends what it can without dropping a record"}
	}
	return agent.Check{OK: true, Text: fmt.Sprintf("%s of this project checked, no problems", sessions)}
}
