package memory

import "errors"

var (
	// ErrEmpty is returned for a memory with no text.
	ErrEmpty = errors.New("a memory needs a text")
	// ErrTooLong is returned for a memory longer than MaxText bytes.
	ErrTooLong = errors.New("a memory is a short text")
	// ErrNoSuch is returned for a number no memory or suggestion has.
	ErrNoSuch = errors.New("no such memory")
	// ErrUnmarked is returned by Export when AGENTS.md has clawdcode's
	// opening marker without its closing one (or the reverse): which part
	// is clawdcode's is then unclear, and the file is left alone.
	ErrUnmarked = errors.New("AGENTS.md has half of clawdcode's memory section")
)
