package slash

import "errors"

var (
	// ErrExit is returned by /exit: the front end leaves.
	ErrExit = errors.New("exit")

	// ErrUnknownCommand is wrapped by Run for a name no command has.
	ErrUnknownCommand = errors.New("unknown command")

	// ErrNotCommand is returned by Run for a line that is not a slash command.
	ErrNotCommand = errors.New("not a slash command")

	// ErrUsage is wrapped when a command's arguments are wrong.
	ErrUsage = errors.New("usage")
)
