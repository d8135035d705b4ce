package agent

import (
	"context"
	"fmt"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// Fork and Handoff continue the conversation in a new session of the
// project: a fork copies the live context of a session, a handoff opens
// with a summary of the current one. Either leaves the original as it was
// (a handoff adds only the record naming the new session).

// Fork continues in a new session that starts with a copy of the live
// context of session id ("" = the current one): its history before the
// context is not read, so a fork costs the size of the context. The
// original is never written (it need not even be free: another process
// may hold it). title names the new session ("" = derived from its
// messages, as for any session). It returns the new session's id.
func (s *Sessions) Fork(ctx context.Context, id, title string) (string, error) {
	e := s.e
	p := e.cfg.Project
	if id == "" {
		id = s.ID()
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
	// A fork is another session: no "always" carries over; the files its
	// copied records show were read (timestamps kept) stay editable.
	closeErr := e.enter(log, mgr, own)
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
func (s *Sessions) Handoff(ctx context.Context, instructions string) (*HandoffResult, error) {
	e := s.e
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
	// Another session: no "always" carries over, and the model has only
	// the summary, not the files it had read.
	closeErr := e.enter(log, mgr, own)
	return &HandoffResult{From: from, To: sess.ID(), Receipt: recs.Receipt, Err: recs.Err}, closeErr
}
