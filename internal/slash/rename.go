package slash

import (
	"context"
	"fmt"
	"strings"
)

func renameCommand() Command {
	return Command{
		Name:    "rename",
		Args:    "<title>",
		Summary: "set this session's title",
		Run: func(_ context.Context, env *Env, title string) error {
			title = strings.TrimSpace(title)
			if title == "" {
				return fmt.Errorf("%w: /rename <title>", ErrUsage)
			}
			if err := env.Sessions.Rename(title); err != nil {
				return err
			}
			_, err := fmt.Fprintf(env.IO.Out, "Session renamed to %q.\n", title)
			return err
		},
	}
}

func expandCommand() Command {
	return Command{
		Name:    "expand",
		Summary: "show the last tool output in full (Ctrl-O)",
		Run: func(_ context.Context, env *Env, _ string) error {
			if env.Expand == nil {
				_, err := fmt.Fprintln(env.IO.Out, "Nothing to expand: /expand shows the last tool output of an interactive session.")
				return err
			}
			env.Expand()
			return nil
		},
	}
}
