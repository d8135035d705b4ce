package sessionsync

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/clawdcode/clawdcode/internal/objstore"
	"github.com/clawdcode/clawdcode/internal/storage"
)

// localSession is a session file of this machine's store.
type localSession struct {
	Info storage.SessionInfo // ID, Project (its root) and what the head shows
	Path string
}

// pushOutcome says what pushing one session did.
type pushOutcome int

const (
	pushedNothing  pushOutcome = iota // the store had every line
	pushedBytes                       // new lines went up
	pushBusy                          // another push of it was running
	pushBehind                        // the store has lines this machine lacks: a pull brings them
	pushDiverged                      // both sides have lines the other lacks: a pull forks
	pushConflicted                    // the head kept changing under this push
)

// headRetries bounds how often a push re-reads a head that another
// machine replaced between its read and its write.
const headRetries = 3

// pushSession sends the lines of ls the store lacks: the new bytes cut
// into segments at line ends, each written only if no object has its
// name, then the head replaced only if it is still the one read (else the
// head is read again and the push re-judged). bytes is what went up.
func (s *Syncer) pushSession(ctx context.Context, r *remote, ls localSession) (out pushOutcome, bytes int64, err error) {
	id := ls.Info.ID
	sname := sessionName(r.key, id)
	unlock, ok, err := s.state.lock(sname)
	if err != nil || !ok {
		return pushBusy, 0, err
	}
	defer unlock()
	st, err := s.state.load(sname)
	if err != nil {
		return 0, 0, err
	}
	f, err := openLocal(ls.Path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, 0, fmt.Errorf("push session %s: %w", id, err)
	}
	size, err := lineEnd(f, fi.Size())
	if err != nil {
		return 0, 0, fmt.Errorf("push session %s: %w", id, err)
	}
	for range headRetries {
		out, n, err := s.pushOnce(ctx, r, ls, f, size, &st)
		if !errors.Is(err, objstore.ErrChanged) && !errors.Is(err, objstore.ErrExists) {
			if err != nil {
				err = fmt.Errorf("push session %s: %w", id, err)
			}
			return out, n, err
		}
	}
	return pushConflicted, 0, nil
}

// pushOnce is one attempt of pushSession against the head as it is now.
func (s *Syncer) pushOnce(ctx context.Context, r *remote, ls localSession, f *os.File, size int64, st *sessionState) (pushOutcome, int64, error) {
	id := ls.Info.ID
	sname := sessionName(r.key, id)
	h, etag, err := r.getHead(ctx, sname)
	if err != nil {
		return 0, 0, err
	}
	c, err := r.common(ctx, f, size, h, st.Synced)
	if err != nil {
		return 0, 0, err
	}
	if h != nil && h.Size > c {
		if size > c {
			return pushDiverged, 0, nil
		}
		return pushBehind, 0, nil
	}
	if size == c && h != nil {
		*st = sessionState{Synced: c, HeadETag: etag}
		return pushedNothing, 0, s.state.save(sname, *st)
	}
	if size == 0 {
		return pushedNothing, 0, nil
	}
	next := &head{Format: format, Session: id, Project: ls.Info.Project}
	if h != nil {
		next.Segments = h.Segments
	}
	next.Title, next.Created, next.Updated, next.Messages, next.Parent = ls.Info.Title, ls.Info.Created, ls.Info.Updated, ls.Info.Messages, ls.Info.Parent
	added, boundary, err := s.uploadRange(ctx, r, sname, f, c, size)
	if err != nil {
		return 0, 0, err
	}
	next.Segments = append(next.Segments, added...)
	next.Size = size
	retired, err := s.merge(ctx, r, sname, f, next, boundary)
	if err != nil {
		return 0, 0, err
	}
	newETag, err := r.putHead(ctx, next, etag)
	if err != nil {
		return 0, 0, err
	}
	*st = sessionState{Synced: size, HeadETag: newETag}
	if err := s.state.save(sname, *st); err != nil {
		return 0, 0, err
	}
	if len(retired) > 0 {
		s.collect(ctx, r, sname, next)
	}
	return pushedBytes, size - c, nil
}

// uploadRange cuts the bytes [from, to) of f into segments at line ends
// and uploads them, a few at once (s.transfers bounds the bytes in flight
// across every push of the run). boundary is the offset of the last
// compaction boundary among them (-1: none).
func (s *Syncer) uploadRange(ctx context.Context, r *remote, sname string, f *os.File, from, to int64) (segs []segment, boundary int64, err error) {
	boundary = -1
	g, gctx := errgroup.WithContext(ctx)
	for at := from; at < to; {
		end, err := nextCut(f, at, to)
		if err != nil {
			return nil, 0, err
		}
		release, err := s.acquire(gctx, end-at)
		if err != nil {
			break // the group's error, or ctx's, says why
		}
		data, err := readAt(f, at, end)
		if err != nil {
			release()
			return nil, 0, err
		}
		if b := lastBoundary(data); b >= 0 {
			boundary = at + int64(b)
		}
		seg := newSegment(r.key, sname, at, data)
		segs = append(segs, seg)
		g.Go(func() error {
			defer release()
			return r.putSegment(gctx, seg, data)
		})
		at = end
	}
	if err := g.Wait(); err != nil {
		return nil, 0, err
	}
	return segs, boundary, ctx.Err()
}

// maxMerged bounds a segment made by merging: it is read whole into
// memory to upload, and downloaded whole by a machine that lacks any of
// it.
const maxMerged = 64 << 20

// merge replaces, in h, the segments written since the last merge that
// lie wholly before the compaction boundary at boundary (-1: none, and
// nothing is merged) by as few segments as maxMerged allows, each marked
// Merged: the history a boundary closed is a few objects, not one per
// turn. It returns the segments it replaced.
func (s *Syncer) merge(ctx context.Context, r *remote, sname string, f *os.File, h *head, boundary int64) ([]segment, error) {
	if boundary < 0 {
		return nil, nil
	}
	first := 0
	for i, seg := range h.Segments {
		if seg.Merged {
			first = i + 1
		}
	}
	last := first
	for last < len(h.Segments) && h.Segments[last].End <= boundary {
		last++
	}
	if last-first < 2 {
		return nil, nil
	}
	var out, retired []segment
	for i := first; i < last; {
		j := i + 1
		for j < last && h.Segments[j].End-h.Segments[i].Start <= maxMerged {
			j++
		}
		if j-i == 1 {
			seg := h.Segments[i]
			seg.Merged = true
			out = append(out, seg)
			i = j
			continue
		}
		data, err := readAt(f, h.Segments[i].Start, h.Segments[j-1].End)
		if err != nil {
			return nil, err
		}
		seg := newSegment(r.key, sname, h.Segments[i].Start, data)
		seg.Merged = true
		if err := r.putSegment(ctx, seg, data); err != nil {
			return nil, err
		}
		out = append(out, seg)
		retired = append(retired, h.Segments[i:j]...)
		i = j
	}
	h.Segments = append(append(append([]segment(nil), h.Segments[:first]...), out...), h.Segments[last:]...)
	return retired, nil
}

// collectAge is how old a segment no head names must be before it is
// removed: a push may have written it and not yet its head, and a pull
// may be reading it from the head before a merge.
const collectAge = time.Hour

// collect removes the session's segments that its head h no longer names
// and that are older than collectAge: those a merge replaced, or a push
// cut short by a kill wrote. It runs after a merge; a failure only leaves
// them for the next one.
func (s *Syncer) collect(ctx context.Context, r *remote, sname string, h *head) {
	named := make(map[string]bool, len(h.Segments))
	for _, seg := range h.Segments {
		named[seg.Key] = true
	}
	list, err := r.obj.List(ctx, segmentsDir+sname+"/")
	if err != nil {
		return
	}
	for _, e := range list {
		if !named[e.Key] && !e.Modified.IsZero() && s.now().Sub(e.Modified) > collectAge {
			_ = r.obj.Delete(ctx, e.Key)
		}
	}
}
