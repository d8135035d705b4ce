package sessionsync

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// pullOutcome says what pulling one session did.
type pullOutcome int

const (
	pulledNothing pullOutcome = iota // this machine had every line
	pulledNew                        // a session new here
	pulledBytes                      // new lines of a session here
	pullBusy                         // open in another clawdcode process, or another sync of it runs
	pullRemoved                      // removed here after it was synced: not brought back
	pullForked                       // both sides changed: this machine's lines went to a fork
)

// pullResult is what pulling one session did, for the report.
type pullResult struct {
	out   pullOutcome
	id    string
	bytes int64
	fork  *Fork
}

// pullSession brings the lines of the store's session sname this machine
// lacks into its session file, through storage (AppendReplica: the file
// stays append-only and byte for byte the store's, and index.json and the
// search index follow what arrives). A session both sides appended to
// since they last synced is forked (see forkDiverged).
func (s *Syncer) pullSession(ctx context.Context, r *remote, sname string) (pullResult, error) {
	h, etag, err := r.getHead(ctx, sname)
	if err != nil || h == nil {
		return pullResult{}, err
	}
	id := h.Session
	res := pullResult{id: id}
	unlock, ok, err := s.state.lock(sname)
	if err != nil || !ok {
		res.out = pullBusy
		return res, err
	}
	defer unlock()
	st, err := s.state.load(sname)
	if err != nil {
		return res, err
	}
	p, err := s.store.ProjectAt(h.Project)
	if err != nil {
		return res, fmt.Errorf("pull session %s: %w", id, err)
	}
	sess, created, err := s.openForPull(ctx, p, id, st)
	switch {
	case errors.Is(err, storage.ErrSessionBusy):
		res.out = pullBusy
		return res, nil
	case errors.Is(err, errRemovedHere):
		st.Removed = true
		res.out = pullRemoved
		return res, s.state.save(sname, st)
	case err != nil:
		return res, fmt.Errorf("pull session %s: %w", id, err)
	}
	defer sess.Close()
	res, err = s.pullInto(ctx, r, sname, p, sess, h, etag, st)
	if created && res.out == pulledBytes {
		res.out = pulledNew
	}
	if err != nil {
		return res, fmt.Errorf("pull session %s: %w", id, err)
	}
	return res, sess.Close()
}

var errRemovedHere = errors.New("removed here")

// openForPull opens the session id of p for appending, or creates it when
// this machine never had it. One that this machine synced and then
// removed is errRemovedHere: a pull does not bring back what the user
// deleted.
func (s *Syncer) openForPull(ctx context.Context, p *storage.Project, id string, st sessionState) (sess *storage.Session, created bool, err error) {
	sess, err = p.Open(ctx, id)
	if !errors.Is(err, storage.ErrNotFound) {
		return sess, false, err
	}
	if st.Synced > 0 || st.Removed {
		return nil, false, errRemovedHere
	}
	sess, err = p.CreateID(ctx, id)
	return sess, err == nil, err
}

// pullInto brings h's lines into the open session sess.
func (s *Syncer) pullInto(ctx context.Context, r *remote, sname string, p *storage.Project, sess *storage.Session, h *head, etag string, st sessionState) (pullResult, error) {
	res := pullResult{id: h.Session}
	f, err := openLocal(sess.Path())
	if err != nil {
		return res, err
	}
	defer f.Close()
	have := sess.Size()
	whole, err := lineEnd(f, have)
	if err != nil {
		return res, err
	}
	c, err := r.common(ctx, f, whole, h, st.Synced)
	if err != nil {
		return res, err
	}
	switch {
	case c == h.Size:
		// Nothing new here; lines only this machine has are a push's.
		return res, s.state.save(sname, sessionState{Synced: c, HeadETag: etag})
	case have == c:
		n, err := s.appendFrom(ctx, r, sname, sess, h, c)
		if err != nil {
			return res, err
		}
		res.out, res.bytes = pulledBytes, n
		return res, s.state.save(sname, sessionState{Synced: h.Size, HeadETag: etag})
	}
	fork, err := s.forkDiverged(ctx, r, p, sess, f, h, c)
	if err != nil {
		return res, err
	}
	res.out, res.fork, res.bytes = pullForked, fork, h.Size-c
	return res, s.state.save(sname, sessionState{Synced: h.Size, HeadETag: etag})
}

// appendFrom appends the store's bytes [from, h.Size) to sess, segment by
// segment as they arrive (a few fetched ahead), each only once its hash
// checks out; the state follows every segment, so that a pull cut short
// resumes where it stopped. It returns the bytes appended.
func (s *Syncer) appendFrom(ctx context.Context, r *remote, sname string, sess *storage.Session, h *head, from int64) (int64, error) {
	var n int64
	err := s.fetchRange(ctx, r, h, from, func(data []byte, end int64) error {
		if _, err := sess.AppendReplica(data); err != nil {
			return err
		}
		n += int64(len(data))
		return s.state.save(sname, sessionState{Synced: end})
	})
	return n, err
}

// fetchRange calls use, in order, with the store's bytes from on (each
// segment's, less what lies before from) and the offset they end at. Up
// to fetchAhead segments are downloaded while earlier ones are used.
func (s *Syncer) fetchRange(ctx context.Context, r *remote, h *head, from int64, use func(data []byte, end int64) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type fetched struct {
		seg     segment
		data    []byte
		err     error
		done    chan struct{}
		release func()
	}
	queue := make(chan *fetched, fetchAhead)
	go func() {
		defer close(queue)
		for _, seg := range h.Segments {
			if seg.End <= from {
				continue
			}
			release, err := s.acquire(ctx, seg.End-seg.Start)
			if err != nil {
				return
			}
			f := &fetched{seg: seg, done: make(chan struct{}), release: release}
			go func() {
				f.data, f.err = r.getSegment(ctx, f.seg)
				close(f.done)
			}()
			select {
			case queue <- f:
			case <-ctx.Done():
				<-f.done
				release()
				return
			}
		}
	}()
	var err error
	for f := range queue {
		<-f.done
		if err == nil {
			err = f.err
		}
		if err == nil {
			data := f.data
			if f.seg.Start < from {
				data = data[from-f.seg.Start:]
			}
			err = use(data, f.seg.End)
		}
		f.release()
		if err != nil {
			cancel()
		}
	}
	if err == nil {
		err = ctx.Err()
	}
	return err
}

// fetchAhead is how many segments a pull downloads ahead of the one it
// appends.
const fetchAhead = 4

// fileSize is the size of the file at path, -1 when there is none.
func fileSize(path string) int64 {
	fi, err := os.Lstat(path)
	if err != nil {
		return -1
	}
	return fi.Size()
}
