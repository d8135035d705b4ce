// Package recall is the search behind the Recall tool (CONTRACT.md §3): it
// finds records in the stored session files — history that compaction
// removed from the context included — and reads a record with its
// neighbours by its uuid. A record without text is shown by what it is;
// a compaction's boundary, by the evidence ledger it stored, whole, each
// entry with its ref (ledger.Listing): the request after the
// compaction names the boundary's ref for the entries it folded.
//
// It reads the files directly, offline: each file is mapped read-only and
// searched backwards, newest records first, with a vectorised byte search
// for the query's longest term (in its usual spellings); only the lines
// that hold it are decoded, so a search stops as soon as it has its limit
// and a 1 GB session costs a pass of bytes.Index, not a JSON decode
// (see BENCHMARKS.md). Matching ignores case for the spellings searched:
// as typed, lower, UPPER and Title. A line past 1 MB (a huge tool result)
// is never decoded into a storage.Record: its header fields are decoded
// alone, its text once through search.WithRecordText, its terms found a
// chunk at a time and its snippet cut around the match, and a window of
// the backward search that falls inside it is not searched again; by its
// ref it is read a page at a time (Page, and the first page in Around),
// each page decoded from the line without the rest (search.RecordTextPage),
// so paging a 100 MB record never holds its text.
//
// Scope "session" is this session and, for a session that began as a fork
// or a handoff, the session it came from up to that point. Scope "project"
// is every session of the project; "all" every project (the tool asks the
// user first; see tools.NewRecall). Those two go through the full-text
// index of `clawdcode search` when the Searcher has one (Searcher.Index),
// so Recall and search find the same records; the scan is their fallback.
//
// A Searcher is safe for concurrent use. It takes no lock: a file being
// appended to is searched as far as it was when the search began.
package recall

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/clawdcode/clawdcode/internal/search"
	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/tools"
)

// Searcher searches the store for the Recall tool.
type Searcher struct {
	Store   *storage.Store
	Project *storage.Project
	// Session returns the current session's id ("" before its first
	// message is stored).
	Session func() string
	// Index, when set, answers scopes project and all: the full-text index
	// that `clawdcode search` uses (*search.Index), so both find the same
	// records, best first. Without it, or when it fails, those scopes are
	// scanned like the session's file. Scope session is always scanned: it
	// needs no index brought up to date first, follows forks, and its cost
	// is one pass over the file whatever was indexed before.
	Index Index
}

// Index is the full-text search of CONTRACT.md section 6.
type Index interface {
	Search(ctx context.Context, q search.Query) ([]search.Hit, error)
}

var _ tools.History = (*Searcher)(nil)

// maxAncestry bounds how many forks/handoffs back a session scope follows.
const maxAncestry = 8

// source is one file to search, up to a byte limit (-1 = all of it).
type source struct {
	path    string
	project string
	until   string // the last record of it that belongs (a fork's point), "" = all
}

// Find returns up to limit records matching query: newest first from a
// scan, best first from the index.
func (s *Searcher) Find(ctx context.Context, query, scope string, limit int) ([]tools.RecallHit, error) {
	q, ok := parseQuery(query)
	if !ok {
		return nil, ErrEmptyQuery
	}
	if scope != tools.ScopeSession && s.Index != nil {
		if hits, err := s.indexFind(ctx, query, scope, limit); err == nil {
			return hits, nil
		} else if ctx.Err() != nil {
			return nil, err
		}
	}
	srcs, err := s.sources(scope)
	if err != nil {
		return nil, err
	}
	var hits []tools.RecallHit
	seen := map[string]bool{}
	for _, src := range srcs {
		got, err := s.findIn(ctx, src, q, limit)
		if err != nil {
			if errors.Is(err, storage.ErrNotFound) {
				continue // removed meanwhile
			}
			return nil, err
		}
		for _, h := range got {
			// A fork carries its parent's records under the same uuids.
			if !seen[h.UUID] {
				seen[h.UUID] = true
				hits = append(hits, h)
			}
		}
	}
	slices.SortStableFunc(hits, func(a, b tools.RecallHit) int { return b.Time.Compare(a.Time) })
	if len(hits) > limit {
		hits = hits[:limit]
	}
	return hits, nil
}

// recallCall reports whether r is a call of Recall: never a hit, since
// each call holds the words it searches for and would list itself first.
func recallCall(r *storage.Record) bool {
	return r.Type == storage.TypeToolUse && r.Tool != nil && r.Tool.Name == tools.NameRecall
}

// indexFind asks the index (scopes project and all).
func (s *Searcher) indexFind(ctx context.Context, query, scope string, limit int) ([]tools.RecallHit, error) {
	q := search.Query{Text: query, Limit: limit, SkipCallsOf: tools.NameRecall}
	if scope == tools.ScopeProject {
		q.Project = s.Project.Root
	}
	found, err := s.Index.Search(ctx, q)
	if err != nil {
		return nil, err
	}
	hits := make([]tools.RecallHit, 0, len(found))
	for _, h := range found {
		typ := h.Type
		if h.Summary {
			typ = "summary"
		}
		hits = append(hits, tools.RecallHit{SessionID: h.SessionID, Project: h.Project, UUID: h.UUID,
			Type: typ, Time: h.Timestamp, Text: h.Snippet})
	}
	return hits, nil
}

func (s *Searcher) findIn(ctx context.Context, src source, q *query, limit int) ([]tools.RecallHit, error) {
	m, err := mapFile(src.path)
	if err != nil {
		return nil, err
	}
	defer m.close()
	end := len(m.data)
	if src.until != "" {
		_, e, _, err := m.find(src.until)
		if err != nil {
			return nil, nil // the fork point is gone: nothing belongs
		}
		end = e
	}
	var hits []tools.RecallHit
	err = m.scan(ctx, q, end, func(r *storage.Record, typ, snip string) bool {
		if recallCall(r) {
			return true
		}
		hits = append(hits, hitOf(r, typ, snip, src.project))
		return len(hits) < limit
	})
	return hits, err
}

// Around returns the record ref, the first tools.RecallRecordCap bytes of
// its text, and up to n records with text on each side. It looks in this
// session (and where it came from) first, then in the project's sessions,
// and with scope "all" in every project.
func (s *Searcher) Around(ctx context.Context, ref, scope string, n int) ([]tools.RecallHit, error) {
	var out []tools.RecallHit
	err := s.locate(ctx, ref, scope, func(m *mapped, start, end int, project string) error {
		page, err := m.page(start, end, 0, tools.RecallRecordCap)
		if err != nil {
			return err
		}
		before, after := m.around(start, end, n)
		for _, a := range before {
			out = append(out, hitOf(a.rec, a.typ, a.text, project))
		}
		page.Project = project
		out = append(out, page)
		for _, a := range after {
			out = append(out, hitOf(a.rec, a.typ, a.text, project))
		}
		return nil
	})
	return out, err
}

// Page returns up to size bytes of the record ref's text from offset,
// found as Around finds it; a huge record's page is decoded from its line
// without decoding the rest (search.RecordTextPage).
func (s *Searcher) Page(ctx context.Context, ref, scope string, offset, size int) (tools.RecallHit, error) {
	var out tools.RecallHit
	err := s.locate(ctx, ref, scope, func(m *mapped, start, end int, project string) error {
		h, err := m.page(start, end, offset, size)
		h.Project = project
		out = h
		return err
	})
	return out, err
}

// locate finds the record ref as Around describes and calls fn with the
// file mapped and the record's line.
func (s *Searcher) locate(ctx context.Context, ref, scope string, fn func(m *mapped, start, end int, project string) error) error {
	if len(ref) < 4 {
		return fmt.Errorf("%w: %q is too short", ErrRefNotFound, ref)
	}
	tries := []string{tools.ScopeSession, tools.ScopeProject}
	if scope == tools.ScopeAll {
		tries = append(tries, tools.ScopeAll)
	}
	for _, sc := range tries {
		srcs, err := s.sources(sc)
		if err != nil {
			return err
		}
		for _, src := range srcs {
			if err := ctx.Err(); err != nil {
				return err
			}
			err := locateIn(src, ref, fn)
			if err == nil || (!errors.Is(err, ErrRefNotFound) && !errors.Is(err, storage.ErrNotFound)) {
				return err
			}
		}
	}
	return ErrRefNotFound
}

func locateIn(src source, ref string, fn func(m *mapped, start, end int, project string) error) error {
	m, err := mapFile(src.path)
	if err != nil {
		return err
	}
	defer m.close()
	start, end, _, err := m.find(ref)
	if err != nil {
		return err
	}
	return fn(m, start, end, src.project)
}

// sources lists the files of a scope, the current session first.
func (s *Searcher) sources(scope string) ([]source, error) {
	switch scope {
	case tools.ScopeProject:
		return s.projectSources(s.Project)
	case tools.ScopeAll:
		projects, err := s.Store.Projects()
		if err != nil {
			return nil, err
		}
		var out []source
		for _, p := range projects {
			srcs, err := s.projectSources(p)
			if err != nil {
				return nil, err
			}
			out = append(out, srcs...)
		}
		return out, nil
	default:
		return s.sessionSources(), nil
	}
}

// sessionSources is the current session and, through fork and handoff
// records, the sessions it continues (each up to the point it was left).
func (s *Searcher) sessionSources() []source {
	id := ""
	if s.Session != nil {
		id = s.Session()
	}
	var out []source
	until := ""
	for i := 0; id != "" && i < maxAncestry; i++ {
		path := s.Project.Path(id)
		if path == "" {
			break
		}
		out = append(out, source{path: path, until: until})
		parent, point := origin(path)
		id, until = parent, point
	}
	return out
}

func (s *Searcher) projectSources(p *storage.Project) ([]source, error) {
	infos, err := p.List()
	if err != nil {
		return nil, err
	}
	cur := ""
	if s.Session != nil && p == s.Project {
		cur = s.Session()
	}
	var out []source
	for _, in := range infos {
		src := source{path: p.Path(in.ID), project: p.Root}
		if in.ID == cur {
			out = append([]source{src}, out...)
		} else {
			out = append(out, src)
		}
	}
	if cur != "" && !slices.ContainsFunc(out, func(x source) bool { return x.path == p.Path(cur) }) {
		out = append([]source{{path: p.Path(cur), project: p.Root}}, out...)
	}
	return out, nil
}

// origin reads where a session came from: the fork record it opens with,
// or the handoff its first boundary names. It reads only the first lines.
func origin(path string) (parent, point string) {
	m, err := mapFile(path)
	if err != nil {
		return "", ""
	}
	defer m.close()
	for s, i := 0, 0; s < len(m.data) && i < 3; i++ {
		e := bytes.IndexByte(m.data[s:], '\n')
		if e < 0 {
			return "", ""
		}
		e += s
		line := m.data[s:e]
		s = e + 1
		if len(line) > hugeLine {
			continue // a fork or handoff record is small; a huge line is neither
		}
		r, ok := decodeLine(line)
		if !ok || r.Type != storage.TypeSystem {
			continue
		}
		switch {
		case r.Subtype == storage.SubtypeFork && r.Fork != nil:
			return r.Fork.SessionID, r.Fork.UUID
		case r.IsBoundary() && r.Handoff != nil:
			return r.Handoff.SessionID, ""
		}
	}
	return "", ""
}
