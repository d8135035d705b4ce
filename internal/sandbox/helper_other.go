//go:build !linux

package sandbox

// HelperArg is the first argument of a sandbox host, which only Linux
// has.
const HelperArg = "__clawdcode_sandbox_host"

// Helper: no sandbox host outside Linux.
func Helper() (int, bool) { return 0, false }
