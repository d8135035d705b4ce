package agent

import (
	"context"
	"fmt"

	"github.com/clawdcode/clawdcode/internal/checkpoint"
	contextmgr "github.com/clawdcode/clawdcode/internal/context"
)

// Checkpoints is the engine's part that takes back what Write and Edit
// did: /undo (the last turn's changes), /rewind (rewind.go: the
// conversation and the files from a user message on) and /diff (the
// session's changes). Each file's content before the first change of a
// turn is saved as the tool changes it (a checkpoint.Store per session,
// under CLAWDCODE_HOME); the Drift methods say which files someone changed
// since the agent's edit, which a restore would lose.
type Checkpoints struct{ e *Engine }

// store is the current session's checkpoint store (nil before the
// session exists).
func (c *Checkpoints) store() *checkpoint.Store {
	return c.e.log.checkpoints(c.e.cfg.Project)
}

// save keeps a file's content before Write or Edit changes it (the tools'
// OnBeforeChange). A checkpoint that cannot be written does not stop the
// change; the user is told.
func (c *Checkpoints) save(path string) {
	cp := c.store()
	if cp == nil {
		return
	}
	if err := cp.Save(c.e.log.turn, path); err != nil {
		c.e.notify(contextmgr.Notice{Kind: contextmgr.NoticeWarning, Text: fmt.Sprintf("%v; /undo will not restore it", err)})
	}
}

// wrote records what Write or Edit left in a file (the tools'
// OnAfterChange), so that a restore can tell when someone changed it
// since.
func (c *Checkpoints) wrote(path string, data []byte) {
	cp := c.store()
	if cp == nil {
		return
	}
	if err := cp.Wrote(path, data); err != nil {
		c.e.notify(contextmgr.Notice{Kind: contextmgr.NoticeWarning, Text: fmt.Sprintf("%v; /undo will not notice later changes to it", err)})
	}
}

// UndoDrift lists the files the next Undo would restore that changed since
// clawdcode last wrote them: what an Undo would lose.
func (c *Checkpoints) UndoDrift(ctx context.Context) ([]checkpoint.Drift, error) {
	cp := c.store()
	if cp == nil {
		return nil, nil
	}
	turn, err := cp.LastTurn()
	if err != nil || turn == "" {
		return nil, err
	}
	return cp.Drifted([]string{turn})
}

// Undo restores the files that Write and Edit changed in the latest turn
// not undone yet. ErrNothingToUndo when there is none.
func (c *Checkpoints) Undo(ctx context.Context) ([]checkpoint.Restored, error) {
	cp := c.store()
	if cp == nil {
		return nil, ErrNothingToUndo
	}
	turn, err := cp.LastTurn()
	if err != nil {
		return nil, err
	}
	if turn == "" {
		return nil, ErrNothingToUndo
	}
	return cp.Restore([]string{turn})
}

// Diff lists the files this session's Write and Edit changed, each with
// its content before the session's first change and now (/diff).
func (c *Checkpoints) Diff(ctx context.Context) ([]checkpoint.FileDiff, error) {
	cp := c.store()
	if cp == nil {
		return nil, nil
	}
	return cp.SessionDiff()
}
