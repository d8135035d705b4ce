package sessionsync

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
)

// RemoteSession is one session of the store, as its head describes it.
type RemoteSession struct {
	ID, Title, Project, Parent string
	Created, Updated           time.Time
	Messages                   int
	Size                       int64 // bytes in the store
	// Local is how many bytes of it this machine's file holds (-1: this
	// machine has no such session).
	Local int64
}

// headsAtOnce is how many heads a listing reads at once.
const headsAtOnce = 8

// Remote lists the store's sessions, most recently updated first: each
// head is read (and decrypted), nothing else.
func (s *Syncer) Remote(ctx context.Context) ([]RemoteSession, error) {
	r, err := s.remote(ctx, false)
	if err != nil {
		return nil, err
	}
	listed, err := r.heads(ctx)
	if err != nil {
		return nil, err
	}
	var (
		mu  sync.Mutex
		out []RemoteSession
	)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(headsAtOnce)
	for sname := range listed {
		g.Go(func() error {
			h, _, err := r.getHead(gctx, sname)
			if err != nil || h == nil {
				return err
			}
			rs := RemoteSession{ID: h.Session, Title: h.Title, Project: h.Project, Parent: h.Parent,
				Created: h.Created, Updated: h.Updated, Messages: h.Messages, Size: h.Size, Local: -1}
			if p, err := s.store.ProjectAt(h.Project); err == nil {
				rs.Local = fileSize(p.Path(h.Session))
			}
			mu.Lock()
			out = append(out, rs)
			mu.Unlock()
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b RemoteSession) int {
		return cmp.Or(b.Updated.Compare(a.Updated), cmp.Compare(a.ID, b.ID))
	})
	return out, nil
}
