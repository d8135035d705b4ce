package slash

import (
	"context"
	"fmt"
	"strings"

	"github.com/clawdcode/clawdcode/internal/termtext"
)

func addDirCommand() Command {
	return Command{
		Name:    "add-dir",
		Args:    "[dir]",
		Summary: "let the tools read and change files in another directory, as in the project (and the sandbox's commands write there); without one, list those added",
		Run: func(_ context.Context, env *Env, args string) error {
			dir := strings.TrimSpace(args)
			if dir == "" {
				dirs := env.Permissions.Dirs()
				if len(dirs) == 0 {
					_, err := fmt.Fprintln(env.IO.Out, "No directories added: the tools work in the project. /add-dir <dir> adds one (--add-dir at start).")
					return err
				}
				for _, d := range dirs {
					fmt.Fprintln(env.IO.Out, termtext.Line(d))
				}
				return nil
			}
			abs, err := env.Permissions.AddDir(dir)
			if err != nil {
				return fmt.Errorf("%w: /add-dir: %w", ErrUsage, err)
			}
			_, err = fmt.Fprintf(env.IO.Out, "Added %s: Write and Edit there count as in the project, and commands may write there (the model is told with your next message).\n", termtext.Line(abs))
			return err
		},
	}
}
