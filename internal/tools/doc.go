// Package tools holds the tools clawdcode offers the model — Read, Write,
// Edit, Bash, Glob, Grep, BashOutput, KillShell and WebFetch (CONTRACT.md
// §3), and Recall over the stored
// history through a History the caller supplies (package recall) — and
// Permissions, the single place that decides whether a call may run, from
// the call, the rules and the permission Mode (default, acceptEdits, plan,
// bypass), which the front ends only set. A tool
// may need permission for some calls only (Recall with scope "all"): see
// NeedsPermission.
//
// Contract:
//
//   - Run never returns a Go error and never panics: every failure the model
//     can act on (bad arguments, a missing file, old_string not found, a
//     non-zero exit) is a Result with Error set, and a panic inside a tool is
//     turned into such a Result too.
//
//   - Arguments are decoded leniently where a model's intent is clear: unknown
//     fields are ignored, integers may arrive as numbers ("10", 10, 10.0) and
//     booleans as true/false or "true"/"false". Anything else of the wrong
//     type, and missing required fields, are reported by name.
//
//   - Paths may be absolute or relative to Env.Root, and are resolved
//     through symlinks (resolveTarget) the same way for the permission rules
//     and for the write. Tools are not confined to the root; Permissions is
//     what guards writes and commands (a write outside the root needs a rule
//     of its own). Write and Edit never write under a directory given to
//     Env.Protect (CLAWDCODE_HOME), whatever is allowed.
//
//   - Precheck tells, before anyone is asked to allow a call, that it would
//     fail (bad arguments, an Edit of a file not read, a protected place):
//     the user is never asked to allow a call that then fails.
//
//   - Output is capped at about OutputCap bytes. Bash keeps a head and a tail
//     around a "[... N bytes (M lines) omitted ...]" marker
//     (chat.OmissionMarker, which the context manager's cuts use too) and never holds more than the cap in memory,
//     whatever the command prints. Glob and Grep, whose results are lists,
//     stop at the cap and say how to narrow the search; Read stops at a page
//     budget and names the offset that continues.
//
//   - Edit, and Write of an existing file, only change a file that was Read
//     (or written) through the same Env
//     — or, in a resumed session, by a call its records show (RestoreSeen) —
//     and has not changed on disk since; Write and Edit replace files
//     atomically (temp file + rename) and keep an existing file's mode.
//
//   - An editor may hold the files and run the commands (UseTextFiles,
//     UseTerminal: the Agent Client Protocol's fs/* and terminal/*): Read,
//     Edit and Write then take a text file's content from its buffer and
//     give it back there, judging "changed since read" by that content;
//     Bash's foreground commands run in its terminal. The disk still says
//     whether a file exists, is binary or may be written; WatchOutput
//     shows a local command's output while it runs.
//
//   - Bash runs `bash -c` (or `sh -c`) in Env.Root in a new session, so it has
//     its own process group and no controlling terminal; stdin is /dev/null.
//     On timeout or context cancellation the whole group is sent SIGTERM and,
//     after a short grace, SIGKILL. When the shell exits on its own, jobs it
//     put in the background keep running (a model may start a server that
//     way); the call returns at most a short grace later even if they hold
//     the output pipe open.
//
//   - Bash with run_in_background starts the same kind of process (one
//     machinery, startShell and killGroup) and returns at once with an id
//     (bash_1, bash_2, … per Env). Its output goes to a ring of the last
//     BackgroundOutputCap bytes; BashOutput answers what came since its
//     previous read, with the omission marker for what the ring dropped
//     unread. KillShell ends the group; Env.StopBackground ends every
//     group and is the owner's to call when the session ends (the engine's
//     Close). BashOutput and KillShell need no permission: they only touch
//     commands a Bash call that was allowed started.
//
//   - WebFetch uses an HTTP client of its own (no cookies, no credentials),
//     follows redirects on the same host only, and answers a redirect to
//     another host with its target; a rule WebFetch(domain:h) allows the
//     exact host h.
//
//   - Bash commands do not see OPENAI_API_KEY: its output is stored in the
//     session file, which must never hold the key.
//
// Concurrency: an Env, the tools built on it and a Permissions are safe for
// concurrent use; Write and Edit calls on one Env run one at a time.
package tools
