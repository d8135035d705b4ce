package search

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// DefaultLimit is the number of hits when Query.Limit is not set
// (CONTRACT.md section 6).
const DefaultLimit = 20

// maxChecks bounds how many ranked candidates a query with a phrase
// reads to verify it, so a phrase of common words stays fast.
const maxChecks = 20000

// Query is one search.
type Query struct {
	// Text: every word is required; a "quoted phrase" must match as one.
	Text string
	// Project restricts the search to the project with this root (the
	// records' cwd, as storage.Project.Root); "" searches every project.
	Project string
	// Session restricts it to sessions whose id starts with this; "" is
	// every session.
	Session string
	// Limit is the most hits returned (DefaultLimit when 0 or less).
	Limit int
	// SkipCallsOf names a tool whose calls (tool_use records) are not
	// hits: Recall's own calls hold the words they search for.
	SkipCallsOf string
}

// Hit is one matching record, as `clawdcode search --json` prints it.
type Hit struct {
	SessionID string    `json:"sessionId"`
	Project   string    `json:"project"`
	UUID      string    `json:"uuid"`
	Timestamp time.Time `json:"timestamp"`
	Type      string    `json:"type"`
	Title     string    `json:"title"`
	Snippet   string    `json:"snippet"`
	Score     float64   `json:"score"`
	// AlsoIn counts the other sessions (forks, handoffs) that hold a copy
	// of the same record: a hit is listed once, in the session that
	// holds the original.
	AlsoIn int `json:"alsoIn,omitempty"`
	// Summary is true for a compaction summary (a user record).
	Summary bool `json:"-"`
	// copies are the other sessions holding the record, as hits finds
	// them; addSessions picks the original among them.
	copies []sessionRef
}

// sessionRef names a session by its id and its project.
type sessionRef struct{ id, project string }

// BM25's parameters, the usual ones.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// Search brings the index up to date (so it sees every record appended
// before it started) and returns the best hits, best first; none is not
// an error.
func (ix *Index) Search(ctx context.Context, q Query) ([]Hit, error) {
	clauses, err := parseQuery(q.Text)
	if err != nil {
		return nil, err
	}
	if q.Limit <= 0 {
		q.Limit = DefaultLimit
	}
	var hits []Hit
	err = ix.withLock(ctx, func() error {
		st, err := ix.open(ctx)
		if err != nil {
			return err
		}
		hits, err = ix.query(ctx, st, clauses, q)
		if errors.Is(err, errDamaged) {
			// Damage found in what the query read: rebuild and ask again.
			st.close()
			if st, err = ix.rebuild(ctx, err); err != nil {
				return err
			}
			hits, err = ix.query(ctx, st, clauses, q)
		}
		st.close()
		return err
	})
	if err != nil {
		return nil, err
	}
	ix.addSessions(hits)
	return hits, nil
}

// candidate is a document that has every term, with its BM25 score.
type candidate struct {
	seg   int
	doc   uint32
	score float64
}

func (ix *Index) query(ctx context.Context, st *state, clauses []clause, q Query) ([]Hit, error) {
	ts := distinctTerms(clauses)
	// Which files the query may return.
	allowed := make([]bool, len(st.m.Files))
	every := true
	for i, f := range st.m.Files {
		allowed[i] = !f.Dead && (q.Project == "" || f.Project == q.Project) && strings.HasPrefix(f.Session, q.Session)
		every = every && allowed[i]
	}
	if every {
		allowed = nil // no document to filter out: skip the look-ups
	}
	// Collection statistics for BM25.
	var nDocs, totalDL float64
	for _, e := range st.m.Segments {
		nDocs += float64(e.Docs)
		totalDL += float64(e.TotalDL)
	}
	if nDocs == 0 {
		return nil, nil
	}
	avgDL := totalDL / nDocs
	entries := make([][]dictEntry, len(st.segs))
	df := make([]float64, len(ts))
	for si, s := range st.segs {
		es := make([]dictEntry, len(ts))
		all := true
		for ti, t := range ts {
			e, found, err := s.lookup([]byte(t))
			if err != nil {
				return nil, fmt.Errorf("%s: %w", s.name, err)
			}
			if found {
				df[ti] += float64(e.df)
				es[ti] = e
			} else {
				all = false
			}
		}
		if all {
			entries[si] = es
		}
	}
	idf := make([]float64, len(ts))
	for i := range ts {
		idf[i] = math.Log(1 + (nDocs-df[i]+0.5)/(df[i]+0.5))
	}
	// Only the best few are read back, so only the best few are kept,
	// in a heap, as the segments are scored: a common word's million
	// candidates are never stored or sorted. A query with a phrase may
	// have to read past candidates that fail it: if the few kept do not
	// give limit hits and others were dropped, it runs again keeping
	// up to maxChecks.
	k := q.Limit + 8
	if anyPhrase(clauses) {
		k = 4*q.Limit + 64
	}
	for {
		top := &topHeap{k: k}
		for si, es := range entries {
			if es == nil {
				continue
			}
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if err := score(st.segs[si], si, es, idf, avgDL, len(st.m.Files), allowed, top); err != nil {
				return nil, fmt.Errorf("%s: %w", st.segs[si].name, err)
			}
		}
		hits, err := ix.hits(st, top.sorted(), clauses, q)
		if err != nil || len(hits) >= q.Limit || !top.dropped || k >= maxChecks {
			return hits, err
		}
		k = maxChecks
	}
}

// better orders candidates: higher score, then newer (a later segment,
// a later document).
func better(a, b candidate) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	if a.seg != b.seg {
		return a.seg > b.seg
	}
	return a.doc > b.doc
}

// topHeap keeps the k best candidates pushed to it: a min-heap with the
// worst of them at the root. dropped says whether any was left out.
type topHeap struct {
	k       int
	h       []candidate
	dropped bool
}

func (t *topHeap) push(c candidate) {
	h := t.h
	if len(h) < t.k {
		h = append(h, c)
		for i := len(h) - 1; i > 0; {
			p := (i - 1) / 2
			if !better(h[p], h[i]) {
				break
			}
			h[i], h[p] = h[p], h[i]
			i = p
		}
		t.h = h
		return
	}
	t.dropped = true
	if !better(c, h[0]) {
		return
	}
	h[0] = c
	for i := 0; ; {
		l, m := 2*i+1, i
		if l < len(h) && better(h[m], h[l]) {
			m = l
		}
		if r := l + 1; r < len(h) && better(h[m], h[r]) {
			m = r
		}
		if m == i {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// sorted returns the candidates kept, best first.
func (t *topHeap) sorted() []candidate {
	out := slices.Clone(t.h)
	slices.SortFunc(out, func(a, b candidate) int {
		if better(a, b) {
			return -1
		}
		return 1
	})
	return out
}

// cursor walks one term's postings in document order, decoding as it
// goes (nothing is materialised: a common word's million postings cost
// one pass and no allocation).
type cursor struct {
	p     []byte
	doc   uint32
	tf    uint32
	n     int // documents in the segment, to bound-check
	first bool
}

// next moves to the next posting; false at the end (or on damage, which
// err reports).
func (c *cursor) next() (bool, error) {
	if len(c.p) == 0 {
		return false, nil
	}
	d, k := binary.Uvarint(c.p)
	if k <= 0 {
		return false, errDamaged
	}
	tf, k2 := binary.Uvarint(c.p[k:])
	if k2 <= 0 {
		return false, errDamaged
	}
	c.p = c.p[k+k2:]
	if d >= uint64(c.n) || tf == 0 || (!c.first && d == 0) {
		return false, errDamaged
	}
	if c.first {
		c.doc, c.first = uint32(d), false
	} else {
		c.doc += uint32(d)
	}
	if int(c.doc) >= c.n {
		return false, errDamaged
	}
	c.tf = uint32(tf)
	return true, nil
}

// score intersects the terms' postings in one segment and scores the
// documents of allowed files (nil: all) that have them all: the rarest
// term leads, the others follow it in one pass.
func score(s *segment, si int, es []dictEntry, idf []float64, avgDL float64, nFiles int, allowed []bool, top *topHeap) error {
	order := make([]int, len(es))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return es[order[a]].df < es[order[b]].df })
	curs := make([]cursor, len(es))
	for i, e := range es {
		curs[i] = cursor{p: e.postings, n: s.nDocs, first: true}
	}
	// The others start on their first posting; an empty one matches nothing.
	for _, ti := range order[1:] {
		if ok, err := curs[ti].next(); !ok {
			return err
		}
	}
	lead := &curs[order[0]]
	norm := bm25K1 * bm25B / avgDL
	base := bm25K1 * (1 - bm25B)
outer:
	for {
		ok, err := lead.next()
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		d := lead.doc
		for _, ti := range order[1:] {
			c := &curs[ti]
			for c.doc < d {
				ok, err := c.next()
				if err != nil {
					return err
				}
				if !ok {
					return nil // a term ran out: no later document has them all
				}
			}
			if c.doc != d {
				continue outer
			}
		}
		dd, err := s.doc(int(d))
		if err != nil {
			return err
		}
		if int(dd.file) >= nFiles {
			return errDamaged
		}
		if allowed != nil && !allowed[dd.file] {
			continue
		}
		k := base + norm*float64(dd.terms)
		var sc float64
		for ti := range curs {
			tf := float64(curs[ti].tf)
			sc += idf[ti] * tf * (bm25K1 + 1) / (tf + k)
		}
		top.push(candidate{seg: si, doc: d, score: sc})
	}
}

// addSessions fills in each hit's session title from its project's
// listing, and moves a hit whose record several sessions hold (forks and
// handoffs copy records under their uuids) to the session created first,
// the one that holds the original, counting the others in AlsoIn.
func (ix *Index) addSessions(hits []Hit) {
	if len(hits) == 0 {
		return
	}
	projects, err := ix.store.Projects()
	if err != nil {
		return
	}
	byRoot := map[string]*storage.Project{}
	for _, p := range projects {
		byRoot[p.Root] = p
	}
	infos := map[string]map[string]storage.SessionInfo{}
	info := func(r sessionRef) (storage.SessionInfo, bool) {
		t, ok := infos[r.project]
		if !ok {
			t = map[string]storage.SessionInfo{}
			if p := byRoot[r.project]; p != nil {
				if list, err := p.List(); err == nil {
					for _, s := range list {
						t[s.ID] = s
					}
				}
			}
			infos[r.project] = t
		}
		s, ok := t[r.id]
		return s, ok
	}
	for i := range hits {
		h := &hits[i]
		first := sessionRef{h.SessionID, h.Project}
		best, known := info(first)
		for _, c := range h.copies {
			if s, ok := info(c); ok && (!known || s.Created.Before(best.Created)) {
				first, best, known = c, s, true
			}
		}
		h.SessionID, h.Project, h.Title = first.id, first.project, best.Title
		h.AlsoIn, h.copies = len(h.copies), nil
	}
}

// sessionsLimit bounds the hits Sessions ranks sessions by.
const sessionsLimit = 2000

// Sessions returns the ids of the sessions that match q, the session of
// the best hit first, each once (q.Limit bounds the sessions; 0 is no
// bound beyond the hits read). It is what a picker filters by content
// with, e.g. /resume.
func (ix *Index) Sessions(ctx context.Context, q Query) ([]string, error) {
	limit := q.Limit
	q.Limit = sessionsLimit
	hits, err := ix.Search(ctx, q)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var ids []string
	for _, h := range hits {
		if !seen[h.SessionID] {
			seen[h.SessionID] = true
			ids = append(ids, h.SessionID)
			if limit > 0 && len(ids) == limit {
				break
			}
		}
	}
	return ids, nil
}
