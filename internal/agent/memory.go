package agent

import (
	"context"
	"fmt"

	"github.com/clawdcode/clawdcode/internal/checkpoint"
	contextmgr "github.com/clawdcode/clawdcode/internal/context"
	"github.com/clawdcode/clawdcode/internal/storage"
)

// checkpoint saves a file's content before Write or Edit changes it, for
// /undo and /rewind. A checkpoint that cannot be written does not stop the
// change; the user is told.
func (e *Engine) checkpoint(path string) {
	cp := e.log.checkpoints(e.cfg.Project)
	if cp == nil {
		return
	}
	if err := cp.Save(e.log.turn, path); err != nil {
		e.notify(contextmgr.Notice{Kind: contextmgr.NoticeWarning, Text: fmt.Sprintf("%v; /undo will not restore it", err)})
	}
}

// checkpointWritten records what Write or Edit left in a file, so that a
// restore can tell when someone changed it since.
func (e *Engine) checkpointWritten(path string, data []byte) {
	cp := e.log.checkpoints(e.cfg.Project)
	if cp == nil {
		return
	}
	if err := cp.Wrote(path, data); err != nil {
		e.notify(contextmgr.Notice{Kind: contextmgr.NoticeWarning, Text: fmt.Sprintf("%v; /undo will not notice later changes to it", err)})
	}
}

// UndoDrift lists the files the next Undo would restore that changed since
// clawdcode last wrote them: what an Undo would lose.
func (e *Engine) UndoDrift(ctx context.Context) ([]checkpoint.Drift, error) {
	cp := e.log.checkpoints(e.cfg.Project)
	if cp == nil {
		return nil, nil
	}
	turn, err := cp.LastTurn()
	if err != nil || turn == "" {
		return nil, err
	}
	return cp.Drifted([]string{turn})
}

// RewindDrift is UndoDrift for a rewind to pt with its files restored.
func (e *Engine) RewindDrift(ctx context.Context, pt RewindPoint) ([]checkpoint.Drift, error) {
	cp := e.log.checkpoints(e.cfg.Project)
	if cp == nil {
		return nil, nil
	}
	return cp.Drifted(pt.turns)
}

// Undo restores the files that Write and Edit changed in the latest turn
// not undone yet. ErrNothingToUndo when there is none.
func (e *Engine) Undo(ctx context.Context) ([]checkpoint.Restored, error) {
	cp := e.log.checkpoints(e.cfg.Project)
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
func (e *Engine) RewindPoints(ctx context.Context) ([]RewindPoint, error) {
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
	cp := e.log.checkpoints(e.cfg.Project)
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
// changed since are restored from their checkpoints.
func (e *Engine) Rewind(ctx context.Context, pt RewindPoint, restoreFiles bool) ([]checkpoint.Restored, error) {
	if e.log.sess == nil || e.log.closed {
		return nil, ErrNoSession
	}
	if _, err := e.log.Append(&storage.Record{Type: storage.TypeSystem, Subtype: storage.SubtypeRewind,
		Rewind: &storage.RewindInfo{UUID: pt.UUID, Offset: pt.Offset}}); err != nil {
		return nil, fmt.Errorf("record the rewind: %w", err)
	}
	if err := e.reload(ctx); err != nil {
		return nil, err
	}
	if !restoreFiles {
		return nil, nil
	}
	return e.log.checkpoints(e.cfg.Project).Restore(pt.turns)
}

// reload rebuilds the context manager from the current session's file.
func (e *Engine) reload(ctx context.Context) error {
	live, err := e.log.sess.LoadLive(ctx)
	if err != nil {
		return fmt.Errorf("reload: %w", err)
	}
	mgr, err := e.newManager(ctx, e.log, live)
	if err != nil {
		return fmt.Errorf("reload session %s: %w", e.log.sess.ID(), err)
	}
	e.mgr, e.mgrErr = mgr, nil
	return nil
}

// Fork continues in a new session that starts with a copy of the live
// context of session id ("" = the current one): its history before the
// context is not read, so a fork costs the size of the context. The
// original is never written (it need not even be free: another process
// may hold it). title names the new session ("" = derived from its
// messages, as for any session). It returns the new session's id.
func (e *Engine) Fork(ctx context.Context, id, title string) (string, error) {
	p := e.cfg.Project
	if id == "" {
		id = e.SessionID()
	}
	if id == "" {
		return "", ErrNothingToFork
	}
	live, err := storage.LoadLive(ctx, p.Path(id))
	if err != nil {
		return "", fmt.Errorf("fork: %w", err)
	}
	if e.cfg.Warn != nil {
		for _, w := range live.Warnings {
			e.cfg.Warn(w)
		}
	}
	sess, err := p.Create(ctx)
	if err != nil {
		return "", fmt.Errorf("fork: %w", err)
	}
	fail := func(err error) (string, error) {
		_ = sess.Close()
		_ = p.Remove(sess.ID())
		return "", err
	}
	if err := sess.AppendFork(id, live); err != nil {
		return fail(err)
	}
	// Without a title the index derives one from the copied records, as
	// for any session; the parent's listing is not consulted (refreshing
	// it could mean reading the parent's whole history).
	if title != "" {
		if err := sess.SaveTitle(title); err != nil {
			return fail(fmt.Errorf("fork: %w", err))
		}
	}
	own, err := sess.LoadLive(ctx)
	if err != nil {
		return fail(fmt.Errorf("fork: %w", err))
	}
	log := &sessionLog{sess: sess}
	mgr, err := e.newManager(ctx, log, own)
	if err != nil {
		return fail(fmt.Errorf("fork: %w", err))
	}
	closeErr := e.closeSession()
	e.log, e.mgr, e.mgrErr = log, mgr, nil
	e.pendingTitle = ""
	// A fork is another session: no "always" carries over; the files its
	// copied records show were read (timestamps kept) stay editable.
	e.enterSession(own)
	return sess.ID(), closeErr
}

// HandoffResult reports a handoff.
type HandoffResult struct {
	From, To string
	Receipt  *storage.Receipt
	// Err is why the summary failed when the handoff is digest-only.
	Err error
}

// Handoff summarises the current session into a new one and continues
// there: the new session opens with a boundary (naming this one) and the
// summary; this one gets only a handoff record naming the new one. The
// new session is titled as any new one, by its first message (or
// /rename): the old title would name the wrong session. When
// the summariser fails, the handoff still happens with a digest (the
// user's messages word for word and the receipt).
func (e *Engine) Handoff(ctx context.Context, instructions string) (*HandoffResult, error) {
	if e.mgr == nil {
		return nil, e.mgrErr
	}
	if e.log.sess == nil || e.log.closed {
		return nil, ErrNothingToFork
	}
	from := e.log.sess.ID()
	recs, err := e.mgr.Handoff(ctx, from, instructions)
	if err != nil {
		return nil, fmt.Errorf("handoff: %w", err)
	}
	p := e.cfg.Project
	sess, err := p.Create(ctx)
	if err != nil {
		return nil, fmt.Errorf("handoff: %w", err)
	}
	fail := func(err error) (*HandoffResult, error) {
		_ = sess.Close()
		_ = p.Remove(sess.ID())
		return nil, fmt.Errorf("handoff: %w", err)
	}
	// The old session's record first, so that the new session is the most
	// recently updated one (-c continues it).
	if _, err := e.log.Append(&storage.Record{Type: storage.TypeSystem, Subtype: storage.SubtypeHandoff,
		Handoff: &storage.HandoffInfo{SessionID: sess.ID()}}); err != nil {
		return fail(fmt.Errorf("record the handoff in session %s: %w", from, err))
	}
	if _, err := sess.AppendBatch(recs.Boundary, recs.Summary); err != nil {
		return fail(err)
	}
	own, err := sess.LoadLive(ctx)
	if err != nil {
		return fail(err)
	}
	log := &sessionLog{sess: sess}
	mgr, err := e.newManager(ctx, log, own)
	if err != nil {
		return fail(err)
	}
	closeErr := e.closeSession()
	e.log, e.mgr, e.mgrErr = log, mgr, nil
	e.pendingTitle = ""
	// Another session: no "always" carries over, and the model has only
	// the summary, not the files it had read.
	e.enterSession(own)
	return &HandoffResult{From: from, To: sess.ID(), Receipt: recs.Receipt, Err: recs.Err}, closeErr
}

// SessionDiff lists the files this session's Write and Edit changed, each
// with its content before the session's first change and now (/diff).
func (e *Engine) SessionDiff(ctx context.Context) ([]checkpoint.FileDiff, error) {
	cp := e.log.checkpoints(e.cfg.Project)
	if cp == nil {
		return nil, nil
	}
	return cp.SessionDiff()
}
