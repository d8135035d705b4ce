// Package agent is the session engine that both front ends (the REPL and
// -p) drive: one current session, its context manager, the tools, the
// permission policy and the loop model → tools → model.
//
// Guarantees:
//   - Every record is appended to the session file as it happens (the user
//     message, each reply, each tool call, each tool result), through the
//     context manager, so a crash loses at most the record in flight.
//   - Nothing from a reply that did not complete (a cut stream, Ctrl-C while
//     streaming) is stored.
//   - Every tool call the model made is answered in the session before Submit
//     returns, even when it is interrupted or the turn limit is reached, so
//     the session always replays into a valid request.
//   - A new session is created on disk only when its first message is
//     submitted: starting clawdcode and quitting leaves nothing behind.
//   - A session's system prompt carries the memories (internal/memory)
//     checked when it starts — rebuilt if they change before its first
//     message — and never a suggestion; suggestions are derived when a
//     session this engine wrote to ends, and after each compaction.
//   - The tools offered change only when a turn starts (Submit): the MCP
//     servers, which connect in the background, add their tools at the
//     first turn after they are ready; with Config.MCPWait the first turn
//     waits for them, bounded. The system prompt names the built-in tools
//     only, so it stays the same whenever a server answers.
//
// Concurrency: an Engine is driven by one goroutine at a time (the front
// end's); Submit, the slash commands and Close must not run concurrently.
// Sink methods are called from the goroutine that called Submit.
package agent
