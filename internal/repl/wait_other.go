//go:build !unix

package repl

import (
	"context"
	"time"
)

// waitReadable cannot poll a console here; the read that follows blocks.
func waitReadable(ctx context.Context, fd int) error { return ctx.Err() }

// readableWithin cannot tell here; the key decoder then treats a lone
// Escape as the Escape key at once.
func readableWithin(fd int, d time.Duration) bool { return false }
