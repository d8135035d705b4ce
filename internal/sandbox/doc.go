// Package sandbox runs the agent's commands inside an operating-system
// sandbox (CONTRACT.md §13): what they may write, read and reach, and that
// they end when clawdcode does.
//
// Modes: WorkspaceWrite (the default) lets a command write under the
// project root, the temporary directory and [sandbox] writable, never
// the project's .git/config, .git/hooks/, .git/modules, .clawdcode/ nor
// CLAWDCODE_HOME (Policy.Protected; the rest of .git stays writable, so
// git add and git commit work), nor a .git where the project has no
// repository (an empty one is made for the run and kept read-only, so
// that no command makes one); ReadOnly lets it write the temporary
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
// mode on request, each in a session of its own (from one thread: Landlock
// lets a process signal only those of its own domain, and gives each
// thread one). When clawdcode's end of their socket pair closes —
// clawdcode exited, was killed or ran out of memory — or only its
// writing side (Close), it kills every process it started, collects them
// and exits: in a PID namespace, whose init it is, as the namespace's
// init; without one as their subreaper. Close returns once the host's
// socket has closed, not when the kernel has taken its namespaces down.
// A host starts on a command's first need, or ahead of it (Prewarm: the
// model's reply has named a Bash call). One whose protected paths were
// replaced from outside (a rename over .git/config takes the read-only
// mount off the old file) ends as soon as it hears of it (it polls its
// own mount table, which says when a mount went), and is ended at the
// latest before the next command, which runs in a new one; when clawdcode itself replaces
// one (Replace: its Write or Edit tool), before the new file is in place.
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
