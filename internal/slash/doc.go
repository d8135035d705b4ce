// Package slash holds clawdcode's slash commands (CONTRACT.md §2), one file
// per command, and the registry every front end uses: the REPL for a line
// that starts with "/", -p when the whole prompt is a slash command.
//
// A command reaches the engine only through Env.Parts: one small
// interface per part of the engine (parts.go), each checked against the
// engine's part; a front end hands its engine's parts over with PartsOf.
//
// Every command works without a terminal: it writes its data to Env.IO.Out
// and asks nothing unless Env.Pick (or another interactive hook: PickHit,
// Choose, Confirm, Edit) is set. A command's failure is returned
// as an error for the front end to show; /exit returns ErrExit.
//
// A Registry is read-only once built and safe for concurrent reads; the
// commands themselves drive the engine and run one at a time.
package slash
