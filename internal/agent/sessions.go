package agent

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// Sessions is the engine's part that opens, names and branches sessions:
// the current one (created on disk by the first message submitted), a new
// one, an earlier one of the project, a fork or a handoff of the current
// one (branch.go). Opening another session closes the current one only
// once the other is open, so a failure leaves the engine as it was.
type Sessions struct{ e *Engine }

// ID is the current session's id ("" before the first message of a new
// session is stored). It stays readable after the engine's Close.
func (s *Sessions) ID() string {
	if s.e.log.sess == nil {
		return ""
	}
	return s.e.log.sess.ID()
}

// NextID is the current session's id, or, for a new session its first
// message has not created yet, the id that message will create it with
// (chosen on the first call, kept until then): an editor names a session
// to its client before anything is written.
func (s *Sessions) NextID() string {
	if id := s.ID(); id != "" {
		return id
	}
	if s.e.nextID == "" {
		s.e.nextID = uuid.NewString()
	}
	return s.e.nextID
}

// Title is the current session's title ("" when it has none yet).
func (s *Sessions) Title() string {
	e := s.e
	if e.log.sess == nil {
		return e.pendingTitle
	}
	return e.log.sess.Info().Title
}

// Rename sets the current session's title; it is kept in the session file
// (so a rebuilt index keeps it). Before the first message of a new session
// it becomes the title the session is created with.
func (s *Sessions) Rename(title string) error {
	e := s.e
	title = storage.Title(title)
	if title == "" {
		return fmt.Errorf("rename: %w", ErrEmptyMessage)
	}
	if e.log.sess == nil {
		e.pendingTitle = title
		return nil
	}
	if err := e.log.sess.SaveTitle(title); err != nil {
		return fmt.Errorf("rename session %s: %w", e.log.sess.ID(), err)
	}
	return nil
}

// Project is the project the sessions belong to (for /sessions, /switch).
func (s *Sessions) Project() *storage.Project { return s.e.cfg.Project }

// Live is the current session's live context as its file holds it — the
// summary in force and the records after it, what a front end replays
// after a resume — or nil before the session exists.
func (s *Sessions) Live(ctx context.Context) (*storage.Live, error) {
	if s.e.log.sess == nil {
		return nil, nil
	}
	return s.e.log.sess.LoadLive(ctx)
}

// StartNew makes the next submitted message start a new session titled
// title (empty = from that message); the current one is closed and stays
// resumable.
func (s *Sessions) StartNew(ctx context.Context, title string) error {
	e := s.e
	log := &sessionLog{}
	e.system = e.systemPrompt()
	mgr, err := e.newManager(ctx, log, nil)
	if err != nil {
		return err
	}
	if err := e.enter(log, mgr, nil); err != nil {
		return err
	}
	e.pendingTitle = title
	return nil
}

// Resume opens an existing session (full id) and restores its live context.
// The previous session is closed only once the new one is open, so a failed
// resume (ErrSessionBusy, ErrNotFound...) leaves the engine as it was. Lines
// of the live context that cannot be parsed are skipped and each reported
// to Config.Warn once the session is loaded.
func (s *Sessions) Resume(ctx context.Context, id string) error {
	e := s.e
	if e.log.sess != nil && !e.log.closed && e.log.sess.ID() == id {
		return nil
	}
	sess, err := e.cfg.Project.Open(ctx, id)
	if err != nil {
		// The store's errors already name the session.
		return fmt.Errorf("resume: %w", err)
	}
	live, err := sess.LoadLive(ctx)
	if err != nil {
		sess.Close()
		return fmt.Errorf("resume: %w", err) // "load session <id>: …"
	}
	if e.cfg.Warn != nil {
		for _, w := range live.Warnings {
			e.cfg.Warn(w)
		}
	}
	// The manager may append repair records (answers to calls a crash left
	// unanswered) while it is built: its log is the new session already.
	log := &sessionLog{sess: sess}
	e.system = e.systemPrompt()
	mgr, err := e.newManager(ctx, log, live)
	if err != nil {
		sess.Close()
		return fmt.Errorf("restore session %s: %w", id, err)
	}
	closeErr := e.enter(log, mgr, live)
	e.memory.recordUse(ctx)
	s.started(ctx, "resume")
	return closeErr
}

// ensure creates the session on disk for the first message of a new
// session; the message titles it when no /new title was given.
func (s *Sessions) ensure(ctx context.Context, firstMessage string) error {
	e := s.e
	if e.log.sess != nil {
		return nil
	}
	var sess *storage.Session
	var err error
	if e.nextID != "" {
		sess, err = e.cfg.Project.CreateID(ctx, e.nextID)
	} else {
		sess, err = e.cfg.Project.Create(ctx)
	}
	if err != nil {
		return err // the store's errors begin "create session"
	}
	if e.pendingTitle != "" {
		// A title the user chose goes into the file, so that it survives
		// a rebuild of the index; one derived from the message does not
		// need to (a rebuild derives it again).
		if err := sess.SaveTitle(e.pendingTitle); err != nil {
			_ = sess.Close()
			return fmt.Errorf("save the title of new session %s: %w", sess.ID(), err)
		}
	} else if storage.Title(firstMessage) != "" {
		// Whole, so that the store redacts a secret before cutting it.
		sess.SetTitle(firstMessage)
	}
	e.log.sess, e.pendingTitle, e.nextID = sess, "", ""
	e.memory.recordUse(ctx)
	s.started(ctx, "startup")
	return nil
}
