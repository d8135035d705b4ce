//go:build !unix

package repl

import "context"

// waitReadable cannot poll a console here; the read that follows blocks.
func waitReadable(ctx context.Context, fd int) error { return ctx.Err() }
