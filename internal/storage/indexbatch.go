package storage

import "sync"

// IndexBatch gathers the index entries of sessions closed with CloseInto,
// so that many sessions of a project (an import's) cost one update of its
// index.json — one read, one atomic write, one fsync — instead of one
// each, which made writing n sessions quadratic in n. Until Write, the
// index lacks those entries; that loses nothing (the index is a cache,
// and List rebuilds a missing entry from its file). Safe for concurrent
// use.
type IndexBatch struct {
	mu       sync.Mutex
	projects map[string]*batchProject // by project directory
	n        int
}

type batchProject struct {
	p       *Project
	entries []*indexEntry
}

// Len is the number of entries waiting for Write.
func (b *IndexBatch) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.n
}

// Write updates the index of every project with its waiting entries: one
// update each, under that index's lock (held for the update only). A
// write that fails is reported through the store's warning hook, as for
// Close.
func (b *IndexBatch) Write() {
	b.mu.Lock()
	projects := b.projects
	b.projects, b.n = nil, 0
	b.mu.Unlock()
	for dir, bp := range projects {
		bp.p.updateIndex(dir, func(m map[string]*indexEntry) {
			for _, e := range bp.entries {
				m[e.ID] = e
			}
		})
	}
}

func (b *IndexBatch) add(p *Project, dir string, e *indexEntry) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.projects == nil {
		b.projects = map[string]*batchProject{}
	}
	bp := b.projects[dir]
	if bp == nil {
		bp = &batchProject{p: p}
		b.projects[dir] = bp
	}
	bp.entries = append(bp.entries, e)
	b.n++
}

// CloseInto is Close with the index entry left in b for a later
// b.Write, instead of written now.
func (s *Session) CloseInto(b *IndexBatch) error {
	return s.closeWith(func(e *indexEntry) { b.add(s.project, s.dir, e) })
}
