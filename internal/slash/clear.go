package slash

func clearCommand() Command {
	return Command{
		Name:    "clear",
		Args:    "[title]",
		Summary: "same as /new: start over with an empty context",
		Run:     startNew,
	}
}
