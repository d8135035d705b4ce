package slash

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/clawdcode/clawdcode/internal/termtext"
)

func helpCommand(r *Registry) Command {
	return Command{
		Name:    "help",
		Summary: "list the commands",
		Run: func(_ context.Context, env *Env, _ string) error {
			w := tabwriter.NewWriter(env.IO.Out, 0, 4, 3, ' ', 0)
			fmt.Fprintln(w, "Commands:")
			for _, c := range r.Commands() {
				usage := "/" + c.Name
				if c.Args != "" {
					usage += " " + c.Args
				}
				// A custom command's summary is its file's: one line, shown.
				fmt.Fprintf(w, "  %s\t%s\n", termtext.Line(usage), termtext.Line(c.Summary))
			}
			return w.Flush()
		},
	}
}
