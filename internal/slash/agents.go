package slash

import (
	"context"
	"fmt"
	"strings"

	"github.com/clawdcode/clawdcode/internal/agent"
	"github.com/clawdcode/clawdcode/internal/termtext"
)

func agentsCommand() Command {
	return Command{
		Name:    "agents",
		Summary: "list the subagent types the Task tool offers (built-in and custom)",
		Run: func(_ context.Context, env *Env, _ string) error {
			_, err := fmt.Fprint(env.IO.Out, formatAgents(env.Tasks.Types()))
			return err
		},
	}
}

// formatAgents renders /agents: each type with its description, then its
// tools, model and where it comes from.
func formatAgents(types []agent.SubagentType) string {
	var b strings.Builder
	for _, t := range types {
		fmt.Fprintf(&b, "%s — %s\n", termtext.Line(t.Name), termtext.FirstLine(t.Description, 100, "…"))
		tools := "the session's tools but Task"
		if t.Tools != nil {
			tools = strings.Join(t.Tools, ", ")
			if tools == "" {
				tools = "none"
			}
		}
		fmt.Fprintf(&b, "    tools: %s", termtext.Line(tools))
		if t.Model != "" {
			fmt.Fprintf(&b, "; model: %s", termtext.Line(t.Model))
		}
		fmt.Fprintf(&b, "; %s\n", termtext.Line(t.Source))
	}
	b.WriteString("Custom types: .clawdcode/agents/<name>.md in the project, $CLAWDCODE_HOME/agents/<name>.md.\n")
	return b.String()
}
