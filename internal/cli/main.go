// Package cli builds clawdcode's cobra commands (constructors, no package
// state), resolves flags and environment into the engine's configuration,
// and maps errors to exit codes in one place.
package cli

// Main runs clawdcode with the process's arguments and streams and returns
// the exit code. THE CLI HELPER REPLACES THIS BODY.
func Main() int { return 0 }
