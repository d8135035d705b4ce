package tools

import (
	"context"
	"strings"
)

// callIDKey carries the id of the tool call a context is for.
type callIDKey struct{}

// WithCallID returns ctx for the tool call id: the engine gives it to the
// permission check (so that an Asker can name the call it asks about, as
// an editor's permission request must) and to the run (so that a Task's
// subagent, or a front end's file and terminal access, knows the call it
// serves).
func WithCallID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, callIDKey{}, id)
}

// CallID is the id WithCallID gave ctx ("" = none).
func CallID(ctx context.Context) string {
	id, _ := ctx.Value(callIDKey{}).(string)
	return strings.TrimSpace(id)
}
