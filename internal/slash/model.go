package slash

import (
	"context"
	"fmt"
	"strings"
)

func modelCommand() Command {
	return Command{
		Name:    "model",
		Args:    "[name]",
		Summary: "show the model, or switch to another",
		Run: func(_ context.Context, env *Env, name string) error {
			current := env.Engine.Model()
			if name == "" {
				_, err := fmt.Fprintf(env.IO.Out, "Model: %s\n", current)
				return err
			}
			if strings.ContainsFunc(name, isSpace) {
				return fmt.Errorf("%w: /model [name] (a model name has no spaces)", ErrUsage)
			}
			env.Engine.SetModel(name)
			_, err := fmt.Fprintf(env.IO.Out, "Model set to %s (was %s).\n", name, current)
			return err
		},
	}
}
