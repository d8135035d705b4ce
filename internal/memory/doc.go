// Package memory keeps what the user wants remembered across sessions
// (CONTRACT.md §11): short texts for every session of a project (the
// project's memories) or of every project (the user's), and the
// suggestions clawdcode derives from a session's records, which are not
// memories until the user accepts them.
//
// Storage. Each scope has one append-only log of events (add, edit,
// remove, suggest, accept, reject, retire, use), one JSON object a line:
// the project's in <CLAWDCODE_HOME>/projects/<project>/memory/events.jsonl
// (the project's directory as storage.Project names it, for the root of
// its repository: a subdirectory's sessions share the root's memories,
// see Open), the user's in
// <CLAWDCODE_HOME>/memory/events.jsonl. Nothing is written in the
// repository unless the user exports (Export, into AGENTS.md). The current
// list is the log folded from its start; an event is written with one
// write(2) on an O_APPEND descriptor under an exclusive flock and synced,
// so two processes never interleave lines and a crash loses at most the
// event in flight. A line that does not parse (a torn last line) is
// skipped.
//
// Guarantees:
//   - A suggestion is never part of Prompt: only accepted memories are.
//   - Prompt leaves out every memory Check finds stale (it names a path, a
//     Makefile target or a package.json script the project no longer has)
//     and every retired one (replaced by a newer memory of the same kind,
//     typed or accepted: the test command, the build command), and stays
//     within the token budget it is given, saying what it left out.
//   - Export changes only clawdcode's own marked section of AGENTS.md and
//     replaces the file atomically.
//
// Concurrency: a Book holds no state of its own between calls (each call
// reads the logs), so several processes may use one project's memories at
// once; a Book's methods are safe for concurrent use.
package memory
