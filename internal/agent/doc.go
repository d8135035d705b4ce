// Package agent is the session engine the front ends (the REPL, -p, an
// editor over the Agent Client Protocol) drive: one current session, its
// context manager, the tools, the permission policy and the loop model →
// tools → model.
//
// The engine hands out parts, each a small type with the methods of one
// concern, and a front end takes only those it drives, declaring where it
// uses one the interface of what it calls (slash.Parts, repl.Turns):
//
//   - Sessions (sessions.go, branch.go): the current session, a new one,
//     an earlier one, a fork, a handoff;
//   - Turns (loop.go): Submit, with a Sink of the turn's events, and the
//     model requests go to; cancelling Submit's ctx interrupts the turn;
//   - Context (context.go): the current session's context window, as the
//     context manager shows and steers it (usage, compaction, pins, the
//     task list);
//   - Permissions (permissions.go, plan.go): the permission mode and
//     rules, the directories added to the project's (/add-dir), and the
//     front end's answer to a plan handed over in plan mode
//     (SetPlanApprover);
//   - Tasks (subagent.go): the subagent types and their runs;
//   - Shells (shells.go): the commands running in the background;
//   - Memory (memories.go): the memories and the suggestions made;
//   - Checkpoints (undo.go, rewind.go): /undo, /rewind and /diff;
//   - MCP (mcp.go): the MCP servers and their tools;
//   - Skills (definitions.go): the Agent Skills offered through the Skill
//     tool (internal/skills).
//
// New returns an error when no session can be built (a window too small
// for the system prompt and the tools); Close ends the run.
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
//   - A session's system prompt carries the project's instruction files
//     (from the repository's root down to the working directory) and the
//     memories (internal/memory) checked when it starts — rebuilt if they
//     change before its first message; a change after that reaches the
//     model as a note after the conversation — and never a suggestion;
//     suggestions are derived when a session this engine wrote to ends,
//     and after each compaction.
//   - The tools offered change only when a turn starts (Submit): the MCP
//     servers, which connect in the background, add their tools at the
//     first turn after they are ready; with Config.MCPWait (-p) no turn
//     waits: the servers' tools are offered through MCPSearch and MCPCall,
//     which name the servers only and wait for them, bounded, when first
//     used. Either way a request's tools do not depend on how fast a
//     server answered. ExitPlanMode is offered in a turn that starts in
//     plan mode only. The system prompt names the built-in tools only, so
//     it stays the same whenever a server answers. Skills and subagent
//     types are read again at the start of a turn when their files
//     changed.
//
// A subagent (the Task tool, subagent.go) never has more than its parent:
// the parent's tools or fewer (never Task, nor ExitPlanMode), every call
// checked by the parent's permissions and hooks. Its transcript is a session of the
// project linked to the parent both ways, and every Task call is answered,
// interrupted or not.
//
// Concurrency: an Engine and its parts are driven by one goroutine at a
// time (the front end's); Submit, the slash commands and Close must not
// run concurrently. A front end that answers a permission question on
// another goroutine (an editor's) answers it through the tools.Asker it
// gave the policy, and a plan through its PlanApprover; the turn waits
// for it.
// Sink methods are called from the goroutine that called Submit; a
// Sink's TaskEvent from the subagents' goroutines, several at once.
// The Task calls of one answer run concurrently and only read the engine's
// configuration; their permission questions and their records in the
// parent session take turns.
package agent
