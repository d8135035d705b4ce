//go:build !linux

package secrets

// Protect does nothing outside Linux: the other systems clawdcode builds
// for do not show one process's environment to another through /proc.
func Protect() error { return nil }

// Hide does nothing outside Linux (see Protect).
func Hide(names ...string) error { return nil }
