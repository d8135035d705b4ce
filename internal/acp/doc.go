// Package acp is clawdcode's third front end: an agent for editors that
// speak the Agent Client Protocol (Zed, JetBrains IDEs, Neovim's
// CodeCompanion, Emacs's agent-shell), on stdin and stdout, protocol
// version 1 (CONTRACT.md section 14). It drives the same engine as the
// REPL and -p, one engine per session the client opens, and takes of
// each engine only the parts it uses (engine.go): so a session started
// in an editor is an ordinary session of its project.
//
// What it guarantees:
//   - Nothing but protocol messages is written to Out, one per line, never
//     interleaved; warnings go to the log, to stderr or to the client as
//     updates.
//   - Bad input never ends the agent: a line that is not JSON, not a
//     message, too large, a request for an unknown method or session, a
//     second prompt while one runs — each is answered with a JSON-RPC error
//     (frames.go judges every line before the protocol library sees it).
//   - A turn is one engine Submit: records are appended as they happen;
//     session/cancel ends it as Esc does in the REPL (what streamed is
//     kept, every tool call answered) and the next prompt works. The
//     connection's end cancels every turn and closes every engine.
//   - Where the REPL would ask, the client is asked
//     (session/request_permission): allow once, always (the policy's own
//     narrowest rules, for the session) or reject.
//   - The client's buffers, when it offers fs/*, are the files Read, Edit
//     and Write see; its terminal, when it offers terminal/* and the
//     command line allows it (not while the sandbox is on), runs Bash.
//
// Concurrency: the protocol library handles each request on a goroutine
// of its own. A session's engine is driven by the goroutine of the prompt
// running in it (one at a time, ErrBusy otherwise); cancel, mode changes
// and the permission questions' answers come from others and meet under
// the session's lock. At most maxOpening engines are built at once and
// MaxSessions are open: past it the idle session used least recently is
// closed, and opened again when a request names it.
package acp
