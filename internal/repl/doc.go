// Package repl is clawdcode's interactive front end: the entry editor and
// its history, the streamed rendering of a turn (Markdown on a terminal,
// untouched text otherwise), the spinner and the status line, tool
// results with their diffs, slash commands, the permission dialog and the
// pickers. Policy lives below it: the session engine runs turns (and
// records an interrupted one), the slash registry runs commands, the
// permission rules and mode decide (Shift-Tab only sets the mode, and the
// plan dialog only answers the engine's question when the model hands a
// plan over: the engine leaves plan mode), the context
// manager decides about compaction; the REPL only shows what they do and
// asks what they ask.
//
// Output: assistant text goes to IO.Out; everything else (welcome line,
// tool activity, notices, spinner, dialogs, errors) goes to IO.ErrOut.
// Text from outside (model replies, tool output, file content, titles) is
// made safe by termtext before any styling of clawdcode's is added. On a
// terminal, what slash commands print and the REPL's own lines are broken
// at words to its width (fit.go); pickers, dialogs and a turn's output fit
// themselves.
//
// Input: on a terminal (stdin and stdout both TTYs) the terminal is put in
// raw input mode for the whole of Run (output post-processing stays on),
// with bracketed paste and the kitty keyboard protocol's disambiguation
// requested, and one goroutine (the keyboard) is the only reader of stdin.
// It decodes keys and routes them: to the editor at the prompt; while an
// entry (a turn or a command) runs, Esc and Ctrl-C cancel that entry,
// Ctrl-O shows the last tool output (while subagents run: unfolds their
// recent calls on their live lines), and every other key waits for the
// next prompt (shown meanwhile on a "queued: …" line under the spinner,
// then applied to the entry, still editable); while a dialog or picker
// asks, keys go to it and what was typed ahead waits. Everything is restored when Run returns.
// Otherwise lines are read plainly from IO.In, a byte at a time, so the
// REPL, the permission prompt and the pickers share one input without
// stealing each other's bytes.
//
// Ctrl-C: at the prompt it clears a half-typed entry; at an empty prompt
// the first one prints a hint and a second in a row ends Run. During an
// entry it cancels the context of that entry only. Run also catches
// SIGINT (signal.Notify) for as long as it runs, for a signal sent from
// outside (or from a terminal not in raw mode), and routes it the same
// way; the caller must therefore not turn SIGINT into cancelling the ctx
// it passes to Run.
//
// Concurrency: Run is meant to be the only reader of its IOStreams' input
// while it runs. The Asker from NewAsker is called on the goroutine that
// runs a turn (the engine asks from Submit); the caller passes the same
// Asker to Run (Options.Asker), which links it to its turns and keyboard
// so that the dialog can stop the spinner (until it is answered) and read
// keys. A turn's output is guarded by its own mutex, since Ctrl-O writes
// from the keyboard's goroutine and subagents report from theirs (their
// live lines are a board of their own, which the spinner redraws).
package repl
