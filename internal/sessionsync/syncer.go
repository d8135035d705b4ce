package sessionsync

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
	"golang.org/x/sync/semaphore"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// Options configure a Syncer.
type Options struct {
	// Store is this machine's session store.
	Store *storage.Store
	// Objects is the object store (an *objstore.S3); Location names it
	// (s3://bucket/prefix) and Endpoint the server it is on, for messages
	// and to tell one store's local state from another's.
	Objects  Objects
	Location string
	Endpoint string
	// Passphrase is CLAWDCODE_SYNC_KEY ("" = the store is in clear).
	Passphrase string
	// ReadOnly: a teammate's store (--from): pulled from, never written,
	// and its sessions are left out of pushes to the user's own store.
	ReadOnly bool
	// Warn receives a line about each session a sync could not read
	// whole (a damaged line); nil drops them.
	Warn func(string)
}

// Objects is what sync needs of an object store; *objstore.S3 is one, and
// the contract of each method is objstore's.
type Objects = objects

// Syncer pushes this machine's sessions to one store and pulls that
// store's into this machine. Its methods are safe for concurrent use:
// each session is pushed or pulled under a lock of its own (another
// process's sync of it included), and the store's key is derived once.
type Syncer struct {
	opts  Options
	store *storage.Store
	state *localState
	warn  func(string)
	now   func() time.Time

	// transfers bounds the bytes of segments in flight, across every
	// session of the run.
	transfers *semaphore.Weighted

	mu      sync.Mutex
	remotes map[bool]*remote // opened for writing or not
}

// transferBytes bounds the segment bytes a run holds at once.
const transferBytes = 64 << 20

// sessionsAtOnce is how many sessions a run pushes or pulls at once.
const sessionsAtOnce = 4

// New returns a Syncer; it sends nothing until asked to.
func New(opts Options) *Syncer {
	warn := opts.Warn
	if warn == nil {
		warn = func(string) {}
	}
	return &Syncer{
		opts:      opts,
		store:     opts.Store,
		state:     newLocalState(opts.Store.Home(), storeID(opts.Endpoint, opts.Location)),
		warn:      warn,
		now:       time.Now,
		transfers: semaphore.NewWeighted(transferBytes),
		remotes:   map[bool]*remote{},
	}
}

// acquire takes n bytes of the transfer budget (a segment larger than the
// whole budget takes all of it) and returns their release.
func (s *Syncer) acquire(ctx context.Context, n int64) (func(), error) {
	n = min(max(n, 1), transferBytes)
	if err := s.transfers.Acquire(ctx, n); err != nil {
		return nil, err
	}
	return func() { s.transfers.Release(n) }, nil
}

// remote opens the store once per run (and once more for writing, which
// creates its manifest when it has none).
func (s *Syncer) remote(ctx context.Context, forWrite bool) (*remote, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r := s.remotes[forWrite]; r != nil {
		return r, nil
	}
	if forWrite && s.opts.ReadOnly {
		return nil, fmt.Errorf("%s: %w", s.opts.Location, ErrReadOnly)
	}
	r, err := openRemote(ctx, s.opts.Objects, s.opts.Location, s.opts.Passphrase, forWrite)
	if err != nil {
		return nil, err
	}
	s.remotes[forWrite] = r
	return r, nil
}

// Report is what a sync did.
type Report struct {
	Pushed, Pulled, New      int // sessions
	PushedBytes, PulledBytes int64
	Forks                    []Fork
	// Notes are one line each about sessions left for later: open in
	// another process, changed on both sides (pushed once pulled), removed
	// here.
	Notes []string
	// Failed are the sessions that failed, one error each; the others
	// were synced all the same.
	Failed []error
}

func (rep *Report) add(mu *sync.Mutex, fn func(*Report)) {
	mu.Lock()
	defer mu.Unlock()
	fn(rep)
}

// Err is the report's failures as one error (nil: none).
func (rep *Report) Err() error {
	switch len(rep.Failed) {
	case 0:
		return nil
	case 1:
		return rep.Failed[0]
	}
	return fmt.Errorf("%w (and %d more sessions failed)", rep.Failed[0], len(rep.Failed)-1)
}

// Push sends every session of this machine's store whose lines the store
// lacks (a teammate's sessions pulled with --from excepted).
func (s *Syncer) Push(ctx context.Context, rep *Report) error {
	r, err := s.remote(ctx, true)
	if err != nil {
		return err
	}
	listed, err := r.heads(ctx)
	if err != nil {
		return err
	}
	local, err := s.localSessions()
	if err != nil {
		return err
	}
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(sessionsAtOnce)
	for _, ls := range local {
		if s.unchanged(r, ls, listed) {
			continue
		}
		g.Go(func() error {
			out, n, err := s.pushSession(gctx, r, ls)
			rep.add(&mu, func(rep *Report) { rep.notePush(ls.Info.ID, out, n, err) })
			return ctx.Err()
		})
	}
	return g.Wait()
}

// unchanged reports whether ls is as the store had it at the last sync:
// the file is the length synced and the listed head is the one it was.
func (s *Syncer) unchanged(r *remote, ls localSession, listed map[string]string) bool {
	sname := sessionName(r.key, ls.Info.ID)
	st, err := s.state.load(sname)
	etag, ok := listed[sname]
	return err == nil && ok && st.HeadETag != "" && st.HeadETag == etag && fileSize(ls.Path) == st.Synced
}

func (rep *Report) notePush(id string, out pushOutcome, n int64, err error) {
	switch {
	case err != nil:
		rep.Failed = append(rep.Failed, err)
	case out == pushedBytes:
		rep.Pushed++
		rep.PushedBytes += n
	case out == pushDiverged:
		rep.Notes = append(rep.Notes, fmt.Sprintf("session %s changed here and on another machine: not pushed; a pull keeps both (its lines here go to a fork)", id))
	case out == pushConflicted:
		rep.Notes = append(rep.Notes, fmt.Sprintf("session %s: another machine kept pushing it; pushed next time", id))
	}
}

// Pull brings every session of the store into this machine's store, and
// the lines this machine lacks of those it has.
func (s *Syncer) Pull(ctx context.Context, rep *Report) error {
	r, err := s.remote(ctx, false)
	if err != nil {
		return err
	}
	listed, err := r.heads(ctx)
	if err != nil {
		return err
	}
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(sessionsAtOnce)
	for sname, etag := range listed {
		if st, err := s.state.load(sname); err == nil && st.HeadETag != "" && st.HeadETag == etag {
			continue
		}
		g.Go(func() error {
			res, err := s.pullSession(gctx, r, sname)
			if err == nil && s.opts.ReadOnly && res.id != "" && res.out != pulledNothing {
				err = markForeign(s.opts.Store.Home(), res.id, s.opts.Location)
			}
			rep.add(&mu, func(rep *Report) { rep.notePull(res, err) })
			return ctx.Err()
		})
	}
	return g.Wait()
}

func (rep *Report) notePull(res pullResult, err error) {
	switch {
	case err != nil:
		rep.Failed = append(rep.Failed, err)
	case res.out == pulledNew:
		rep.New++
		rep.PulledBytes += res.bytes
	case res.out == pulledBytes:
		rep.Pulled++
		rep.PulledBytes += res.bytes
	case res.out == pullForked:
		rep.Pulled++
		rep.PulledBytes += res.bytes
		if res.fork != nil {
			rep.Forks = append(rep.Forks, *res.fork)
		}
	case res.out == pullBusy:
		rep.Notes = append(rep.Notes, fmt.Sprintf("session %s is open in another clawdcode process: pulled by the next sync", res.id))
	case res.out == pullRemoved:
		rep.Notes = append(rep.Notes, fmt.Sprintf("session %s was removed here: not pulled again", res.id))
	}
}

// localSessions lists the sessions of every project of this machine's
// store, less those pulled from a teammate's store.
func (s *Syncer) localSessions() ([]localSession, error) {
	projects, err := s.opts.Store.Projects()
	if err != nil {
		return nil, err
	}
	var out []localSession
	for _, p := range projects {
		infos, err := p.List()
		if err != nil {
			return nil, err
		}
		for _, info := range infos {
			if foreignOrigin(s.opts.Store.Home(), info.ID) != "" {
				continue
			}
			info.Project = p.Root
			out = append(out, localSession{Info: info, Path: p.Path(info.ID)})
		}
	}
	return out, nil
}

// PushSession pushes one session of the project at root (a turn's end:
// see Auto). A session whose file is the length its last sync left costs
// no request; one that changed on both sides is left for a pull, with
// errDiverged.
func (s *Syncer) PushSession(ctx context.Context, root, id string) error {
	r, err := s.remote(ctx, true)
	if err != nil {
		return err
	}
	p, err := s.opts.Store.ProjectAt(root)
	if err != nil {
		return err
	}
	if foreignOrigin(s.opts.Store.Home(), id) != "" {
		return nil // a teammate's, pulled with --from: never pushed to this store
	}
	if st, err := s.state.load(sessionName(r.key, id)); err == nil && st.HeadETag != "" && fileSize(p.Path(id)) == st.Synced {
		return nil
	}
	infos, err := p.List()
	if err != nil {
		return err
	}
	for _, info := range infos {
		if info.ID != id {
			continue
		}
		info.Project = p.Root
		out, _, err := s.pushSession(ctx, r, localSession{Info: info, Path: p.Path(id)})
		switch {
		case err != nil:
			return err
		case out == pushDiverged:
			return fmt.Errorf("session %s: %w", id, errDiverged)
		case out == pushBusy || out == pushConflicted:
			return errPushLater
		}
		return nil
	}
	return nil // removed since, or never written
}

// errPushLater: another push of the session was running, or other
// machines kept replacing its head; it stays pending.
var errPushLater = errors.New("pushed later")

var errDiverged = errors.New("it changed here and on another machine since the last sync: `clawdcode sync` keeps both (this machine's lines go to a fork)")

// writtenSince lists the sessions of the project at root whose files
// changed since t.
func (s *Syncer) writtenSince(root string, t time.Time) []string {
	p, err := s.opts.Store.ProjectAt(root)
	if err != nil {
		return nil
	}
	files, err := p.SessionFiles()
	if err != nil {
		return nil
	}
	var out []string
	for _, f := range files {
		if !f.Info.ModTime().Before(t) {
			out = append(out, f.ID)
		}
	}
	return out
}
