package agent

import (
	"context"
	"fmt"

	"github.com/clawdcode/clawdcode/internal/checkpoint"
	"github.com/clawdcode/clawdcode/internal/storage"
)

// RewindPoint is a user message the conversation can go back to.
type RewindPoint struct {
	UUID string
	Text string
	// Offset is where the message's record starts in the session file.
	Offset int64
	// Changes are the files Write and Edit changed from this message on,
	// as a rewind would restore them.
	Changes []checkpoint.Change
	turns   []string
}

// RewindPoints lists the user messages of the conversation, oldest first,
// each with the files a rewind to it would restore: those of the live
// context and, before them, those each compaction replaced (the file
// keeps them; a rewind to one brings back the context as it was then).
func (c *Checkpoints) RewindPoints(ctx context.Context) ([]RewindPoint, error) {
	e := c.e
	if e.log.sess == nil || e.log.closed {
		return nil, nil
	}
	live, err := e.log.sess.LoadLive(ctx)
	if err != nil {
		return nil, err
	}
	pts := userPoints(live, -1)
	for {
		b, ok := live.BoundaryOffset()
		if !ok {
			break
		}
		if live, err = e.log.sess.LoadLiveBefore(ctx, b); err != nil {
			return nil, err
		}
		first := b
		if len(pts) > 0 {
			first = min(first, pts[0].Offset)
		}
		pts = append(userPoints(live, first), pts...)
	}
	cp := c.store()
	for i := range pts {
		for _, p := range pts[i:] {
			pts[i].turns = append(pts[i].turns, p.UUID)
		}
		if pts[i].Changes, err = cp.Changes(pts[i].turns); err != nil {
			return nil, err
		}
	}
	return pts, nil
}

// userPoints lists the user messages of live that start before the byte
// offset before (-1: all of them).
func userPoints(live *storage.Live, before int64) []RewindPoint {
	var pts []RewindPoint
	for _, lr := range live.Records {
		r := lr.Record
		if before >= 0 && lr.Offset >= before {
			break
		}
		if r.Type == storage.TypeUser && !r.IsCompactSummary && r.Message != nil {
			pts = append(pts, RewindPoint{UUID: r.UUID, Text: r.Message.Content, Offset: lr.Offset})
		}
	}
	return pts
}

// Rewind continues the conversation from just before the user message of
// pt: a rewind record is appended (the file keeps everything; a resume
// honours the record) and the live context is reloaded without that
// message and what followed. With restoreFiles, the files Write and Edit
// changed since are restored from their checkpoints, their content before
// the restore kept for a return (ReturnPoint).
func (c *Checkpoints) Rewind(ctx context.Context, pt RewindPoint, restoreFiles bool) ([]checkpoint.Restored, error) {
	rec, err := c.goBack(ctx, storage.RewindInfo{UUID: pt.UUID, Offset: pt.Offset})
	if err != nil || !restoreFiles {
		return nil, err
	}
	return c.store().RestoreForRewind(rec, pt.turns)
}

// goBack appends a rewind record to target and reloads the context; it
// returns the record's uuid.
func (c *Checkpoints) goBack(ctx context.Context, target storage.RewindInfo) (string, error) {
	e := c.e
	if e.log.sess == nil || e.log.closed {
		return "", ErrNoSession
	}
	rec := &storage.Record{Type: storage.TypeSystem, Subtype: storage.SubtypeRewind, Rewind: &target}
	if _, err := e.log.Append(rec); err != nil {
		return "", fmt.Errorf("record the rewind: %w", err)
	}
	return rec.UUID, c.reload(ctx)
}

// ReturnPoint is where /rewind can return to: the conversation as it was
// just before the last rewind, which the file keeps whole.
type ReturnPoint struct {
	// UUID and Offset are the last rewind record's: a return is a rewind
	// to just before it.
	UUID   string
	Offset int64
	// Last is the last user message of the conversation then; Messages
	// counts its user messages.
	Last     string
	Messages int
	// Changes are the files the rewind restored, which a return puts
	// back as they were before it.
	Changes []checkpoint.Change
}

// ReturnPoint is the conversation as it was before the last rewind of the
// live context (a return from a return included), nil when there is none
// (no rewind, or a compaction since).
func (c *Checkpoints) ReturnPoint(ctx context.Context) (*ReturnPoint, error) {
	e := c.e
	if e.log.sess == nil || e.log.closed {
		return nil, nil
	}
	live, err := e.log.sess.LoadLive(ctx)
	if err != nil || live.Rewound == nil {
		return nil, err
	}
	r := live.Rewound
	then, err := e.log.sess.LoadLiveBefore(ctx, r.Offset)
	if err != nil {
		return nil, err
	}
	pts := userPoints(then, -1)
	if len(pts) == 0 {
		return nil, nil
	}
	rp := &ReturnPoint{UUID: r.Record.UUID, Offset: r.Offset, Last: pts[len(pts)-1].Text, Messages: len(pts)}
	if cp := c.store(); cp != nil {
		if rp.Changes, err = cp.ReturnChanges(rp.UUID); err != nil {
			return nil, err
		}
	}
	return rp, nil
}

// ReturnDrift is RewindDrift for a return to rp with its files put back.
func (c *Checkpoints) ReturnDrift(ctx context.Context, rp ReturnPoint) ([]checkpoint.Drift, error) {
	cp := c.store()
	if cp == nil {
		return nil, nil
	}
	return cp.Drifted([]string{rp.UUID})
}

// Return goes back to the conversation as it was just before the rewind
// of rp: a rewind record whose target is that rewind record (the file
// keeps everything; a resume honours it). With restoreFiles, the files
// the rewind restored are put back as they were before it (kept, in
// turn, for a return from this return).
func (c *Checkpoints) Return(ctx context.Context, rp ReturnPoint, restoreFiles bool) ([]checkpoint.Restored, error) {
	rec, err := c.goBack(ctx, storage.RewindInfo{UUID: rp.UUID, Offset: rp.Offset})
	if err != nil || !restoreFiles {
		return nil, err
	}
	return c.store().Return(rp.UUID, rec)
}

// reload rebuilds the context manager from the current session's file.
func (c *Checkpoints) reload(ctx context.Context) error {
	e := c.e
	live, err := e.log.sess.LoadLive(ctx)
	if err != nil {
		return fmt.Errorf("reload: %w", err)
	}
	mgr, err := e.newManager(ctx, e.log, live)
	if err != nil {
		return fmt.Errorf("reload session %s: %w", e.log.sess.ID(), err)
	}
	e.mgr = mgr
	return nil
}

// RewindDrift is UndoDrift for a rewind to pt with its files restored.
func (c *Checkpoints) RewindDrift(ctx context.Context, pt RewindPoint) ([]checkpoint.Drift, error) {
	cp := c.store()
	if cp == nil {
		return nil, nil
	}
	return cp.Drifted(pt.turns)
}
