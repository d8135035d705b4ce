package chat

import "fmt"

// OmissionMarker is the one marker the model sees wherever clawdcode cut a
// text short — a tool's output over its cap, a text cut down in memory to
// fit the context window — saying how much is missing there. One wording,
// so the model meets one sign for one thing.
func OmissionMarker(bytes, lines int) string {
	return fmt.Sprintf("[... %d bytes (%d lines) omitted ...]", bytes, lines)
}
