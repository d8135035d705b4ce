package slash

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/clawdcode/clawdcode/internal/agent"
	"github.com/clawdcode/clawdcode/internal/termtext"
)

func agentsCommand() Command {
	return Command{
		Name:    "agents",
		Args:    "[new]",
		Summary: "list the subagent types the Task tool offers (built-in and custom); /agents new creates one",
		Run: func(ctx context.Context, env *Env, args string) error {
			switch strings.TrimSpace(args) {
			case "":
				_, err := fmt.Fprint(env.IO.Out, formatAgents(env.Tasks.Types()))
				return err
			case "new", "create":
				return newAgent(ctx, env)
			}
			return fmt.Errorf("%w: /agents [new], not %q", ErrUsage, args)
		},
	}
}

// errAgentAbandoned ends /agents new when a question gets no answer.
var errAgentAbandoned = errors.New("no subagent type created")

// newAgent is /agents new: a few questions — name, description, tools,
// where, system prompt — then the file, which Task offers from the next
// message on.
func newAgent(ctx context.Context, env *Env) error {
	if env.Ask == nil || env.Choose == nil {
		return fmt.Errorf("%w: /agents new asks questions, in the REPL; here, write .clawdcode/agents/<name>.md (front matter description:, tools:, then the system prompt)", ErrUsage)
	}
	ask := func(q string) (string, error) {
		a, err := env.Ask(ctx, q)
		if err == nil && strings.TrimSpace(a) == "" {
			err = errAgentAbandoned
		}
		return strings.TrimSpace(a), err
	}
	var a agent.NewAgent
	var err error
	if a.Name, err = ask("Name of the new subagent type (letters, digits, - and _; Esc: cancel):"); err != nil {
		return abandoned(env, err)
	}
	if a.Description, err = ask("When should the model use it? (one line: the description Task shows)"); err != nil {
		return abandoned(env, err)
	}
	tools, err := env.Ask(ctx, "Which tools may it use? (comma-separated, e.g. Read, Grep, Glob; Enter: all of the session's but Task)")
	if err != nil {
		return abandoned(env, err)
	}
	for _, t := range strings.Split(tools, ",") {
		if t = strings.TrimSpace(t); t != "" {
			a.Tools = append(a.Tools, t)
		}
	}
	where, err := env.Choose(ctx, "Where should it live?", []string{"this project (.clawdcode/agents)", "every project of mine ($CLAWDCODE_HOME/agents)"})
	if err != nil || where < 0 {
		return abandoned(env, errAgentAbandoned)
	}
	a.User = where == 1
	if a.Prompt, err = ask("Its system prompt (one line here; edit the file for more):"); err != nil {
		return abandoned(env, err)
	}
	path, err := env.Tasks.Create(a)
	if err != nil {
		return fmt.Errorf("%w: /agents new: %w", ErrUsage, err)
	}
	_, err = fmt.Fprintf(env.IO.Out, "Created %s: the Task tool offers %q from your next message.\n", termtext.Line(path), a.Name)
	return err
}

// abandoned ends /agents new without a file: quietly for a question left
// unanswered, with the error otherwise (an interrupt).
func abandoned(env *Env, err error) error {
	if errors.Is(err, errAgentAbandoned) {
		_, err = fmt.Fprintln(env.IO.Out, "No subagent type created.")
	}
	return err
}

// formatAgents renders /agents: each type with its description, then its
// tools, model and where it comes from.
func formatAgents(types []agent.SubagentType) string {
	var b strings.Builder
	for _, t := range types {
		fmt.Fprintf(&b, "%s — %s\n", termtext.Line(t.Name), termtext.Line(termtext.Flatten(t.Description, 0)))
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
	b.WriteString("Custom types: .clawdcode/agents/<name>.md in the project, $CLAWDCODE_HOME/agents/<name>.md; /agents new writes one.\n")
	return b.String()
}
