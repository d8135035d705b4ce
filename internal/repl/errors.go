package repl

import "errors"

// errInterrupt is returned by a line source when the user pressed Ctrl-C at
// the prompt; the half-typed line comes with it.
var errInterrupt = errors.New("interrupted at the prompt")
