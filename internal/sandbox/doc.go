// Package sandbox runs the agent's commands inside an operating-system
// sandbox (CONTRACT.md §13): what they may write, read and reach, and that
// they end when clawdcode does.
//
// Modes: WorkspaceWrite (the default) lets a command write under the
// project root, the temporary directory and [sandbox] writable, never
// the project's .git/config, .git/hooks/, .git/modules, .clawdcode/ nor
// CLAWDCODE_HOME (Policy.Protected; the rest of .git stays writable, so
// git add and git commit work); ReadOnly lets it write the temporary
// directory only (plan mode); Off runs it as the user does. It may read
// anywhere but [sandbox] deny_read. Without [sandbox] network = true it
// reaches no host but those allowed ([sandbox] allow_domains and
// WebFetch(domain:…) rules), through an HTTP proxy clawdcode serves from
// outside.
//
// On Linux, clawdcode runs a copy of itself (Helper, entered through
// HelperArg before anything else in cli.Main) as a sandbox host per mode
// in use: cloned into new user, mount, PID and network namespaces where
// the system allows them, it mounts a /proc of its own, binds the
// protected paths read-only over themselves and hides the denied ones,
// brings up a loopback whose proxy listener it hands to clawdcode, then
// restricts itself with Landlock (files; signals and abstract sockets
// stay inside) and seccomp (no Unix sockets, no new namespaces, no
// mounting, tracing or kernel loading), and starts every command of its
// mode on request, each in a session of its own. It is the PID
// namespace's init: when clawdcode's end of their socket pair closes —
// clawdcode exited, was killed or ran out of memory — it exits, and the
// kernel ends every process in the namespace. Without a PID namespace it
// is its commands' subreaper and kills them itself.
//
// Contained says whether a command would be contained now (the
// permission policy lets such commands run without asking in acceptEdits
// mode); where the system offers no sandbox it says so once, through
// Config.Warn. Process.Notes names what the sandbox refused a command,
// read from its output and the proxy's refusals.
//
// On macOS a command runs under sandbox-exec with a generated profile
// (darwin.go), which this repository builds but cannot run in CI.
//
// A Sandbox is safe for concurrent use.
package sandbox
