package agent

import (
	"context"

	contextmgr "github.com/clawdcode/clawdcode/internal/context"
	"github.com/clawdcode/clawdcode/internal/storage"
)

// Context is the engine's part that shows and steers the current
// session's context window (/context, /compact, /cost, /pin, /todos, the
// status line): each call goes to the context manager of the session
// current at that moment, so a front end that keeps this part across /new
// or /switch never reaches a closed session's manager. The manager's own
// documentation (contextmgr) states what each call guarantees; the
// records the loop appends are not reachable from here.
type Context struct{ e *Engine }

// Usage is the size of the next request, broken down by part; it never
// loads the tokenizer.
func (c *Context) Usage() contextmgr.Usage { return c.e.mgr.Usage() }

// Spend is the session's usage, its summary calls' and the model's price
// (/cost).
func (c *Context) Spend() contextmgr.Spend { return c.e.mgr.Spend() }

// Compactions is how many compactions the current session's manager made
// in this run.
func (c *Context) Compactions() int { return c.e.mgr.Compactions() }

// Compact compacts the context now (/compact); instructions steer the
// summary. contextmgr.ErrNothingToCompact when there is nothing to
// summarise.
func (c *Context) Compact(ctx context.Context, instructions string) (*contextmgr.CompactResult, error) {
	return c.e.mgr.Compact(ctx, storage.TriggerManual, instructions)
}

// Preview writes the summary a compaction would store, and its receipt,
// without applying anything (/compact --preview): the draft's Apply does.
func (c *Context) Preview(ctx context.Context, instructions string) (*contextmgr.Draft, error) {
	return c.e.mgr.Preview(ctx, instructions)
}

// ResetWindow forgets the window a server's rejection taught the session
// (/context --reset-window).
func (c *Context) ResetWindow() error { return c.e.mgr.ResetWindow() }

// WindowSource says where the configured window came from (a flag, the
// environment, a config file, the server, or the models table).
func (c *Context) WindowSource() string { return c.e.cfg.WindowSource }

// Pins lists the pins in force, oldest first.
func (c *Context) Pins() []storage.Pin { return c.e.mgr.Pins() }

// Pin pins text (empty = the last user message), sent in every request
// until unpinned.
func (c *Context) Pin(text string) (storage.Pin, error) { return c.e.mgr.Pin(text) }

// Unpin removes pin n (1-based, as Pins lists them).
func (c *Context) Unpin(n int) (storage.Pin, error) { return c.e.mgr.Unpin(n) }

// Todos is the model's task list in force (its TodoWrite calls); nil =
// none.
func (c *Context) Todos() []storage.Todo { return c.e.mgr.Todos() }
