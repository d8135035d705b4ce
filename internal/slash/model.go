package slash

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

func modelCommand() Command {
	return Command{
		Name:    "model",
		Args:    "[name]",
		Summary: "show the model and the ones the server offers, or switch to another",
		Run: func(ctx context.Context, env *Env, name string) error {
			current := env.Model.Model()
			if name == "" {
				if _, err := fmt.Fprintf(env.IO.Out, "Model: %s\n", current); err != nil {
					return err
				}
				name = chooseModel(ctx, env, current)
				if name == "" || name == current {
					return nil
				}
			}
			if strings.ContainsFunc(name, isSpace) {
				return fmt.Errorf("%w: /model [name] (a model name has no spaces)", ErrUsage)
			}
			env.Model.SetModel(name)
			_, err := fmt.Fprintf(env.IO.Out, "Model set to %s (was %s).\n", name, current)
			return err
		},
	}
}

// chooseModel lists the models the server offers and, on a terminal, lets
// the user pick one; "" when nothing was picked (or nothing is listed).
func chooseModel(ctx context.Context, env *Env, current string) string {
	models, err := env.Model.ListModels(ctx)
	if err != nil || len(models) == 0 {
		fmt.Fprintln(env.IO.ErrOut, "The server does not list its models; set one with /model <name>.")
		return ""
	}
	if env.Choose == nil {
		fmt.Fprintln(env.IO.Out, "The server offers:")
		for _, m := range models {
			mark := "  "
			if m == current {
				mark = "* "
			}
			fmt.Fprintln(env.IO.Out, "  "+mark+m)
		}
		fmt.Fprintln(env.IO.Out, "Switch with /model <name>.")
		return ""
	}
	items := slices.Clone(models)
	for i, m := range items {
		if m == current {
			items[i] += "  (current)"
		}
	}
	i, err := env.Choose(ctx, fmt.Sprintf("Switch to which of the %d models the server offers?", len(models)), items)
	if err != nil || i < 0 {
		return ""
	}
	return models[i]
}
