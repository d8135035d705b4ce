package slash

import (
	"context"
	"fmt"
	"strings"

	"github.com/clawdcode/clawdcode/internal/termtext"
)

func mcpCommand() Command {
	return Command{
		Name:    "mcp",
		Summary: "list the MCP servers, their state and their tools",
		Run: func(_ context.Context, env *Env, _ string) error {
			servers := env.MCP.Servers()
			if len(servers) == 0 {
				_, err := fmt.Fprintln(env.IO.Out, "No MCP servers are configured ([mcp_servers.NAME] in .clawdcode/config.toml or $CLAWDCODE_HOME/config.toml).")
				return err
			}
			var b strings.Builder
			for _, s := range servers {
				// Names, errors and tools are the servers' words: one line each, shown.
				fmt.Fprintf(&b, "%s: %s", termtext.Line(s.Name), termtext.Line(s.State))
				if s.Error != "" {
					fmt.Fprintf(&b, " (%s)", termtext.Line(s.Error))
				}
				if len(s.Tools) > 0 {
					fmt.Fprintf(&b, ", %d tools", len(s.Tools))
				}
				b.WriteByte('\n')
				for _, t := range s.Tools {
					fmt.Fprintf(&b, "  %s", termtext.Line(t))
					if full := s.Full[t]; full != "" {
						// The name the model is given is cut or changed:
						// the server's own beside it.
						fmt.Fprintf(&b, "  (%s)", termtext.Line(full))
					}
					b.WriteByte('\n')
				}
			}
			_, err := fmt.Fprint(env.IO.Out, b.String())
			return err
		},
	}
}
