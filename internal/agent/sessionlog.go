package agent

import (
	"fmt"

	"github.com/clawdcode/clawdcode/internal/checkpoint"
	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/telemetry"
)

// sessionLog is a manager's Log. Each manager has its own, bound to one
// session for good: a manager someone kept after /new or /switch can only
// ever write to its own (closed) session, never into the current one. The
// session is nil until the first message of a new session creates it.
type sessionLog struct {
	sess   *storage.Session
	closed bool
	// written says a record was appended through this log: only then can
	// the session suggest memories it did not suggest before; from is the
	// offset of the first, where the suggestions start reading (a resumed
	// session's earlier records were read when it ended before).
	written bool
	from    int64

	// turn is the uuid of the last user record written: the turn that
	// Write and Edit checkpoints belong to.
	turn string
	// reply is the uuid of the last assistant record written: a
	// subagent's answer, which the parent can open with Recall.
	reply string
	// cp is the session's checkpoint store, built on first use.
	cp *checkpoint.Store
	// tel is told of the records appended (compactions); nil = nobody.
	tel telemetry.Hooks
}

func (l *sessionLog) Append(r *storage.Record) (int64, error) {
	switch {
	case l.sess == nil:
		return 0, ErrNoSession
	case l.closed:
		return 0, fmt.Errorf("session %s: %w", l.sess.ID(), ErrClosed)
	}
	off, err := l.sess.Append(r)
	if err == nil {
		l.wrote(off)
		l.observe(r)
	}
	return off, err
}

// wrote notes a record appended at off.
func (l *sessionLog) wrote(off int64) {
	if !l.written {
		l.written, l.from = true, off
	}
}

func (l *sessionLog) observe(recs ...*storage.Record) {
	if l.tel != nil {
		l.tel.Records(l.sess.ID(), recs)
	}
	for _, r := range recs {
		switch {
		case r.Type == storage.TypeUser && !r.IsCompactSummary:
			l.turn = r.UUID
		case r.Type == storage.TypeAssistant:
			l.reply = r.UUID
		}
	}
}

// checkpoints is the session's checkpoint store (nil before the session
// exists).
func (l *sessionLog) checkpoints(p *storage.Project) *checkpoint.Store {
	if l.sess == nil {
		return nil
	}
	if l.cp == nil {
		l.cp = checkpoint.New(checkpoint.Dir(p.Store().Home(), p.Dir, l.sess.ID()), p.Root)
	}
	return l.cp
}

// AppendBatch writes records that belong together (a compaction's boundary
// and summary) with one write, as storage.Session.AppendBatch does, so that
// the context manager can ask for it through this log as well.
func (l *sessionLog) AppendBatch(recs ...*storage.Record) ([]int64, error) {
	switch {
	case l.sess == nil:
		return nil, ErrNoSession
	case l.closed:
		return nil, fmt.Errorf("session %s: %w", l.sess.ID(), ErrClosed)
	}
	offs, err := l.sess.AppendBatch(recs...)
	if err == nil && len(offs) > 0 {
		l.wrote(offs[0])
		l.observe(recs...)
	}
	return offs, err
}

// SetTokens passes the context manager's latest request size on to the
// session's index entry.
func (l *sessionLog) SetTokens(n int) {
	if l.sess != nil && !l.closed {
		l.sess.SetTokens(n)
	}
}
