package repl

import "errors"

// errInterrupt is returned by a line source when the user pressed Ctrl-C at
// the prompt; the half-typed line comes with it.
var errInterrupt = errors.New("interrupted at the prompt")

// errRewind is returned by the line editor for Esc Esc at an empty entry:
// the REPL opens /rewind (Claude Code's key for it).
var errRewind = errors.New("rewind asked for at the prompt")
