package slash

import "context"

func exitCommand() Command {
	return Command{
		Name:    "exit",
		Summary: "leave clawdcode",
		Aliases: []string{"quit"},
		Run:     func(context.Context, *Env, string) error { return ErrExit },
	}
}
