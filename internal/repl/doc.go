// Package repl is clawdcode's interactive front end: line editing and
// history, the streamed rendering of a turn (Markdown on a terminal,
// untouched text otherwise), the spinner, tool activity lines, slash
// commands and the permission prompt. Policy lives below it: the session
// engine runs turns, the slash registry runs commands, the context manager
// decides about compaction; the REPL only shows what they do.
//
// Output: assistant text goes to IO.Out; everything else (welcome line,
// tool activity, notices, spinner, prompts, errors) goes to IO.ErrOut.
//
// Input: on a terminal (stdin and stdout both TTYs) lines are edited with
// github.com/chzyer/readline; otherwise lines are read plainly from IO.In,
// a byte at a time, so the REPL, the permission prompt and the session
// picker can share one input without stealing each other's bytes.
//
// Ctrl-C: at the prompt the line editor sees it as a key — it clears a
// half-typed line; at an empty prompt the first one prints a hint and a
// second in a row ends Run. While a turn or a slash command runs, the
// terminal is in cooked mode and Ctrl-C is a SIGINT: Run catches SIGINT
// (signal.Notify) for as long as it runs and cancels the context of the
// running entry only; between entries the signal is ignored. The caller
// must therefore not turn SIGINT into cancelling the ctx it passes to Run.
//
// Concurrency: Run is meant to be the only reader of its IOStreams' input
// while it runs. The Asker from NewAsker is called on the goroutine that
// runs a turn (the engine asks from Submit); the caller passes the same
// Asker to Run (Options.Asker), which links it to its turns so that the
// prompt can stop the spinner. The package keeps no state of its own.
package repl
