package agent

import "errors"

var (
	// ErrMaxTurns ends a Submit that used its --max-turns model calls; every
	// tool call of the last reply has been answered when it is returned.
	ErrMaxTurns = errors.New("reached --max-turns")

	// ErrContextOverflow ends a Submit whose request the server still
	// rejects as too long after every recovery step of the context manager.
	ErrContextOverflow = errors.New("context window exceeded even after truncating tool results and compacting")

	// ErrInterrupted wraps the context's error when a turn is cancelled
	// (Ctrl-C); errors.Is(err, context.Canceled) still holds.
	ErrInterrupted = errors.New("turn interrupted")

	// ErrEmptyMessage refuses a message with no text: the API rejects it,
	// and a session should not start with it.
	ErrEmptyMessage = errors.New("empty message")

	// ErrClosed is returned when a record is written after the engine
	// closed its session (Close, or a manager kept past /new or /switch).
	ErrClosed = errors.New("session closed")

	// ErrNoSession is returned when a record must be written before any
	// session exists (a program fault: Submit creates one first).
	ErrNoSession = errors.New("no session open")
)

var (
	// ErrNothingToUndo: no turn of this session changed a file with Write
	// or Edit that is not restored already.
	ErrNothingToUndo = errors.New("nothing to undo: no file changed by Write or Edit in this session is left to restore")

	// ErrNothingToFork: the session has no stored message yet.
	ErrNothingToFork = errors.New("nothing to fork yet: the session has no messages")
)

// ErrPromptBlocked is wrapped by Submit's error when a UserPromptSubmit
// hook refused the prompt: nothing of it was recorded or sent. The
// error's text carries the hook's reason, for the user.
var ErrPromptBlocked = errors.New("prompt blocked by a UserPromptSubmit hook")
