package slash

import "strings"

// initPrompt is what /init sends to the model, as Claude Code's /init
// does: the model studies the project with its tools (Read, Glob, Grep)
// and writes AGENTS.md with Write, which asks the user as any edit does.
// An AGENTS.md already there is improved, not replaced.
const initPrompt = `Please analyse this codebase and write an AGENTS.md file at the root of the project. It will be given to future coding agents working in this repository.

First look at the project with your tools: list its files (Glob), read the README, the build files (go.mod, package.json, Makefile, pyproject.toml, Cargo.toml or similar), any CONTRIBUTING or docs, and the main source directories (Read, Grep). Do not guess what you can check.

AGENTS.md should contain:
1. The commands used most: how to build, lint and test, and how to run a single test.
2. The high-level architecture: the big picture that takes reading several files to understand, not a list of every file.
3. Conventions a newcomer would get wrong: code style, error handling, naming, how tests are written.

Keep it short and specific to this project. Do not repeat generic advice ("write tests", "use meaningful names"), do not invent sections for which the project gives no evidence, and do not list every component that is easy to discover.

If AGENTS.md already exists, read it first and improve it: keep what is there and still true, correct what is wrong, and add what is missing. If there are CLAUDE.md, .cursorrules, .cursor/rules or .github/copilot-instructions.md files, take their important parts into account.

Write the file with the Write tool.`

func initCommand() Command {
	return Command{
		Name:    "init",
		Args:    "[focus]",
		Summary: "ask the model to write (or improve) AGENTS.md for this project",
		Prompt: func(args string) string {
			if args = strings.TrimSpace(args); args != "" {
				return initPrompt + "\n\nThe user adds: " + args
			}
			return initPrompt
		},
	}
}
