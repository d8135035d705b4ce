package slash

import (
	"context"
	"fmt"
	"text/tabwriter"
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
				fmt.Fprintf(w, "  %s\t%s\n", usage, c.Summary)
			}
			return w.Flush()
		},
	}
}
