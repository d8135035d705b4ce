package slash

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	"github.com/clawdcode/clawdcode/internal/iostreams"
	"github.com/clawdcode/clawdcode/internal/search"
	"github.com/clawdcode/clawdcode/internal/storage"
)

// Env is what a command runs with. Output goes to IO.Out (data) / IO.ErrOut.
type Env struct {
	// Parts are the engine's parts the commands use.
	Parts
	IO *iostreams.IOStreams
	// Width is the terminal's width in columns, for text that wraps at
	// words; 0 when the output is not a terminal (nothing is wrapped).
	Width int
	// Pick lets the user choose one of sessions interactively; nil when not
	// interactive (then /resume lists instead of asking). An empty id with a
	// nil error means the user chose nothing.
	Pick func(ctx context.Context, sessions []storage.SessionInfo) (id string, err error)
	// PickHit lets the user choose one of a search's hits (for query); it
	// returns the index, or -1 when the user chose nothing. Nil when not
	// interactive (then /search prints the hits).
	PickHit func(ctx context.Context, query string, hits []search.Hit) (int, error)
	// ShowHit shows the current session's conversation up to the record
	// of h, marked; nil outside the REPL.
	ShowHit func(ctx context.Context, query string, h search.Hit)
	// Choose asks the user to pick one of items (numbered from 1 on the
	// screen); it returns the index, or -1 when the user chose nothing.
	// Nil when not interactive.
	Choose func(ctx context.Context, question string, items []string) (int, error)
	// Confirm asks a yes/no question; nil when not interactive.
	Confirm func(ctx context.Context, question string) (bool, error)
	// Ask asks for one line of text ("" when the user gave none); nil when
	// not interactive.
	Ask func(ctx context.Context, question string) (string, error)
	// Edit lets the user edit text in their editor ($VISUAL, $EDITOR) and
	// returns the result; nil when not interactive.
	Edit func(ctx context.Context, text string) (string, error)
	// Expand shows the last tool output in full; nil outside the REPL.
	Expand func()
	// Draft puts text into the entry of the user's next message, to edit
	// or send (/rewind's prompt); nil outside the REPL's line editor.
	Draft func(text string)
}

// Command is one slash command.
type Command struct {
	Name    string // without the slash
	Args    string // usage of the arguments, e.g. "[instructions]"
	Summary string
	Run     func(ctx context.Context, env *Env, args string) error
	// Aliases are other names that run the same command (not listed by /help).
	Aliases []string
	// Prompt is set for a custom command (section 9 of the contract): it
	// is not run but expanded into the prompt sent to the model (Expand).
	Prompt func(args string) string
	// custom marks a command read from a file (a built-in prompt command
	// such as /init is not custom: a file cannot shadow it).
	custom bool
}

// Registry holds the commands.
type Registry struct {
	cmds   []Command
	byName map[string]int
}

// Default returns the registry of the contract's commands.
func Default() *Registry {
	r := &Registry{byName: map[string]int{}}
	r.Register(helpCommand(r))
	r.Register(newCommand())
	r.Register(clearCommand())
	r.Register(switchCommand())
	r.Register(sessionsCommand())
	r.Register(resumeCommand())
	r.Register(contextCommand())
	r.Register(compactCommand())
	r.Register(modelCommand())
	r.Register(costCommand())
	r.Register(renameCommand())
	r.Register(expandCommand())
	r.Register(searchCommand())
	r.Register(mcpCommand())
	r.Register(bashesCommand())
	r.Register(agentsCommand())
	r.Register(skillsCommand())
	r.Register(exitCommand())
	r.Register(pinCommand())
	r.Register(pinsCommand())
	r.Register(unpinCommand())
	r.Register(todosCommand())
	r.Register(handoffCommand())
	r.Register(forkCommand())
	r.Register(rewindCommand())
	r.Register(undoCommand())
	r.Register(memoryCommand())
	r.Register(initCommand())
	r.Register(statusCommand())
	r.Register(doctorCommand())
	r.Register(diffCommand())
	r.Register(configCommand())
	r.Register(permissionsCommand())
	r.Register(addDirCommand())
	return r
}

// Register adds c (or replaces the command of the same name), keeping
// registration order for /help.
func (r *Registry) Register(c Command) {
	if r.byName == nil {
		r.byName = map[string]int{}
	}
	name := strings.ToLower(c.Name)
	if i, ok := r.byName[name]; ok {
		r.cmds[i] = c
	} else {
		r.cmds = append(r.cmds, c)
		r.byName[name] = len(r.cmds) - 1
	}
	for _, a := range c.Aliases {
		r.byName[strings.ToLower(a)] = r.byName[name]
	}
}

// Commands lists the commands in /help order.
func (r *Registry) Commands() []Command { return append([]Command(nil), r.cmds...) }

// Lookup finds a command by name or alias (without the slash, any case).
func (r *Registry) Lookup(name string) (Command, bool) {
	i, ok := r.byName[strings.ToLower(name)]
	if !ok {
		return Command{}, false
	}
	return r.cmds[i], true
}

// IsCommand is the one rule, for the REPL and -p alike, of whether a line
// the user typed is a slash command rather than a message for the model:
// it starts with '/' followed by a command name (letters, digits, '-',
// '_') and then a space or the end. "/etc/hosts is empty, why?" and
// "/tmp/x.go fails" are messages about paths; "/compact" and a misspelt
// "/compcat" are commands (the latter fails naming /help).
func IsCommand(line string) bool {
	_, _, ok := Parse(line)
	return ok
}

// Parse splits "/name args" (ok=false if line is not a slash command).
// Surrounding space is ignored. A name is letters, digits, '-' and '_', so a
// message that merely starts with a path ("/etc/hosts is empty, why?") is
// not taken for a command. args is the rest of the line, trimmed.
func Parse(line string) (name, args string, ok bool) {
	line = strings.TrimSpace(line)
	if !strings.HasPrefix(line, "/") {
		return "", "", false
	}
	rest := line[1:]
	end := strings.IndexFunc(rest, unicode.IsSpace)
	if end < 0 {
		end = len(rest)
	}
	name = rest[:end]
	if name == "" || strings.IndexFunc(name, func(r rune) bool { return !isNameRune(r) }) >= 0 {
		return "", "", false
	}
	return name, strings.TrimSpace(rest[end:]), true
}

func isNameRune(r rune) bool {
	return r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_')
}

// Run parses and runs line; unknown commands are an error naming /help.
func (r *Registry) Run(ctx context.Context, env *Env, line string) error {
	name, args, ok := Parse(line)
	if !ok {
		return fmt.Errorf("%w: %q", ErrNotCommand, line)
	}
	c, ok := r.Lookup(name)
	if !ok {
		return fmt.Errorf("%w /%s; type /help for the list", ErrUnknownCommand, name)
	}
	if c.Prompt != nil {
		return fmt.Errorf("%w: /%s is a prompt command: its prompt is sent to the model (Expand)", ErrNotCommand, c.Name)
	}
	return c.Run(ctx, env, args)
}
