// Package secrets keeps credentials where they belong: in clawdcode's own
// memory and in the requests that need them, never in what a tool's child
// process can see, and never in what clawdcode writes to disk.
//
// Three guards, each a policy in one place:
//
//   - Harden makes the process non-dumpable (Linux: PR_SET_DUMPABLE 0), so
//     processes of the same user — the shell commands the model runs
//     included — cannot read /proc/<pid>/environ (which shows the
//     environment the process started with, whatever it later unsets),
//     /proc/<pid>/mem, /proc/<pid>/fd, nor attach with ptrace. It also
//     disables core dumps, which would otherwise hold the key. Children are
//     not affected: execve makes them dumpable again.
//   - ChildEnv is the environment of every child clawdcode starts for a
//     tool (Bash, and MCP servers and hooks when they come): without the
//     variables whose names look like credentials (IsSecretName), unless
//     the user lets one through by name.
//   - A Redactor replaces the values of those variables, and the API key in
//     use, in bytes about to be written (session records, the index), so a
//     server error or a file that quotes a key is stored without it.
//
// Everything here is safe for concurrent use; a Redactor is immutable.
package secrets
