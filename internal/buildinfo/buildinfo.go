// Package buildinfo holds clawdcode's version, set at link time with
// -ldflags "-X github.com/clawdcode/clawdcode/internal/buildinfo.Version=…".
package buildinfo

// Version is clawdcode's version string, written into every session record.
var Version = "0.1.0-dev"
