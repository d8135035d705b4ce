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
// reads to verify it when it asks for few hits, so a phrase of common
// words stays fast; one that asks for more reads four times as many as
// it asks for.
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
	r, err := ix.Find(ctx, q)
	return r.Hits, err
}

// MaxLimit is the most hits a search returns, whatever Query.Limit says.
const MaxLimit = 100000

// Result is a search's answer: the hits, best first, and whether more
// records match than were returned.
type Result struct {
	Hits []Hit
	// More is true when records beyond the hits match, or may (Query.Limit
	// cut the answer short).
	More bool
	// Matched is how many records of the projects and sessions asked hold
	// every word of the query: the hits there would be without a limit,
	// but that copies of one record in forks make one hit (AlsoIn), that
	// Recall's own calls are left out (SkipCallsOf), and that of a query
	// with a phrase only some may hold it (Phrase).
	Matched int
	// Phrase is true when the query has a phrase: Matched is then only
	// an upper bound.
	Phrase bool
}

// Find is Search with whether more records match than it returns.
func (ix *Index) Find(ctx context.Context, q Query) (Result, error) {
	clauses, err := parseQuery(q.Text)
	if err != nil {
		return Result{}, err
	}
	if q.Limit <= 0 {
		q.Limit = DefaultLimit
	}
	q.Limit = min(q.Limit, MaxLimit)
	var res Result
	err = ix.withLock(ctx, func() error {
		st, err := ix.open(ctx)
		if err != nil {
			return err
		}
		defer func() { st.close() }()
		for stale := 0; ; stale++ {
			res, err = ix.query(ctx, st, clauses, q)
			var sf *staleFileError
			if errors.As(err, &sf) && stale < 3 {
				// A session file changed behind the index: index it anew
				// and ask again.
				st.m.Files[sf.file].Dead = true
				st.m.Projects[st.m.Files[sf.file].Proj].Checked = 0
				if err = ix.catchUp(ctx, st); err != nil {
					return err
				}
				continue
			}
			if sf != nil {
				err = fmt.Errorf("%w: %v", errDamaged, err) // stale again and again
			}
			if errors.Is(err, errDamaged) {
				// Damage found in what the query read: rebuild and ask
				// again.
				st.close()
				if st, err = ix.rebuild(ctx, err); err != nil {
					st = &state{}
					return err
				}
				res, err = ix.query(ctx, st, clauses, q)
			}
			return err
		}
	})
	if err != nil {
		return Result{}, err
	}
	ix.addSessions(res.Hits)
	return res, nil
}

// candidate is a document that has every term, with its BM25 score.
type candidate struct {
	seg   int
	doc   uint32
	score float64
}

func (ix *Index) query(ctx context.Context, st *state, clauses []clause, q Query) (Result, error) {
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
	res := Result{Phrase: anyPhrase(clauses)}
	if nDocs == 0 {
		return res, nil
	}
	avgDL := totalDL / nDocs
	entries, df, err := lookupTerms(st.segs, ts)
	if err != nil {
		return res, err
	}
	idf := make([]float64, len(ts))
	for i := range ts {
		idf[i] = math.Log(1 + (nDocs-df[i]+0.5)/(df[i]+0.5))
	}
	// Only the best few are read back, so only the best few are kept,
	// in a heap, as the segments are scored: a common word's million
	// candidates are never stored or sorted. One hit more than the limit
	// is looked for, to know whether there are more. A query with a
	// phrase may have to read past candidates that fail it: if the few
	// kept do not give that many hits and others were dropped, it runs
	// again keeping more.
	want := q.Limit + 1
	k := want + 8
	if res.Phrase {
		k = 4*want + 64
	}
	most := max(maxChecks, k)
	for {
		top := &topHeap{k: k}
		res.Matched = 0
		for si, es := range entries {
			if es == nil {
				continue
			}
			if err := ctx.Err(); err != nil {
				return res, err
			}
			n, err := score(st.segs[si], si, es, idf, avgDL, len(st.m.Files), allowed, top)
			if err != nil {
				return res, fmt.Errorf("%s: %w", st.segs[si].name, err)
			}
			release(st.segs[si].data)
			res.Matched += n
		}
		hits, err := ix.hits(st, top.sorted(), clauses, q, want)
		if err != nil {
			return res, err
		}
		if len(hits) >= want || !top.dropped || k >= most {
			res.More = len(hits) >= want || top.dropped
			res.Hits = hits[:min(len(hits), q.Limit)]
			return res, nil
		}
		k = most
	}
}

// lookupTerms looks the terms up in every segment: entries[si] holds
// segment si's entry of each term when it has them all (nil otherwise),
// df each term's documents in all segments.
func lookupTerms(segs []*segment, ts []string) (entries [][]dictEntry, df []float64, err error) {
	entries = make([][]dictEntry, len(segs))
	df = make([]float64, len(ts))
	for si, s := range segs {
		es := make([]dictEntry, len(ts))
		all := true
		for ti, t := range ts {
			e, found, err := s.lookup([]byte(t))
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %w", s.name, err)
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
	return entries, df, nil
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
// It returns how many documents it scored (those that have every term).
func score(s *segment, si int, es []dictEntry, idf []float64, avgDL float64, nFiles int, allowed []bool, top *topHeap) (scored int, err error) {
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
			return 0, err
		}
	}
	lead := &curs[order[0]]
	norm := bm25K1 * bm25B / avgDL
	base := bm25K1 * (1 - bm25B)
outer:
	for {
		ok, err := lead.next()
		if err != nil {
			return scored, err
		}
		if !ok {
			return scored, nil
		}
		d := lead.doc
		for _, ti := range order[1:] {
			c := &curs[ti]
			for c.doc < d {
				ok, err := c.next()
				if err != nil {
					return scored, err
				}
				if !ok {
					return scored, nil // a term ran out: no later document has them all
				}
			}
			if c.doc != d {
				continue outer
			}
		}
		dd, err := s.doc(int(d))
		if err != nil {
			return scored, err
		}
		if int(dd.file) >= nFiles {
			return scored, errDamaged
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
		scored++
	}
}

// addSessions fills in each hit's session title from its project's
// listing, and moves a hit whose record several sessions hold (forks and
// handoffs copy records under their uuids) to the session created first,
// the one that holds the original, counting the others in AlsoIn. It
// asks each project for the sessions of the hits alone (storage's
// Project.Infos), never for its whole listing.
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
	ids := map[string][]string{}
	for _, h := range hits {
		ids[h.Project] = append(ids[h.Project], h.SessionID)
		for _, c := range h.copies {
			ids[c.project] = append(ids[c.project], c.id)
		}
	}
	infos := map[string]map[string]storage.SessionInfo{}
	for root, list := range ids {
		if p := byRoot[root]; p != nil {
			infos[root], _ = p.Infos(list)
		}
	}
	info := func(r sessionRef) (storage.SessionInfo, bool) {
		s, ok := infos[r.project][r.id]
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
