package storage

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// A session's usage summary is what `clawdcode usage` reads instead of the
// session: the tokens its model calls used, by hour, model and kind (the
// replies, or the summary calls of its compactions), up to a byte offset
// of its file. It lives in the session's index entry. Append keeps it in
// step while it is current (it covers every whole line of the file), so a
// session this process wrote costs `usage` nothing but index.json; a
// summary behind its file (another program appended, the index was lost,
// a file older than summaries) is caught up by Project.Usage from its
// offset on, reading only the bytes it has not counted, since a session
// file only grows, and written back.
//
// Hours are UTC: a report turns them into the days of its own time zone
// (exact for every zone whose offset is whole hours).

// UsageRow is the usage of one hour, model and kind of a session.
type UsageRow struct {
	// Hour is the hour's start in hours since the Unix epoch (UTC).
	Hour  int64  `json:"h"`
	Model string `json:"m,omitempty"`
	// Summary marks the summary calls of compactions (a boundary's
	// receipt), kept apart from the replies.
	Summary bool `json:"s,omitempty"`
	Input   int  `json:"i,omitempty"`
	Cached  int  `json:"c,omitempty"`
	Output  int  `json:"o,omitempty"`
}

// Usage is the row's counts as a Usage.
func (r UsageRow) Usage() Usage {
	return Usage{InputTokens: r.Input, CacheReadInputTokens: r.Cached, OutputTokens: r.Output}
}

// UsageSummary is a session's usage over the whole lines of its file's
// first Scanned bytes.
type UsageSummary struct {
	Scanned int64      `json:"scanned"`
	Rows    []UsageRow `json:"rows,omitempty"`
	// Parent is the session a subagent's session runs for.
	Parent string `json:"parent,omitempty"`
	// LastModel is the model of the last reply counted: a summary call
	// is priced as the session's model, which the receipt does not name.
	LastModel string `json:"lastModel,omitempty"`
}

// SessionUsage is one session's usage summary, caught up with its file.
type SessionUsage struct {
	ID      string
	Project string
	// Parent is the session whose Task call this subagent session ran
	// for ("" = a session of its own).
	Parent string
	Rows   []UsageRow
	// Title and Updated are the session's, as sessions list shows them.
	Title   string
	Updated time.Time
}

// add folds one model call's usage at ts into the summary.
func (u *UsageSummary) add(ts time.Time, model string, summary bool, v Usage) {
	if v == (Usage{}) {
		return
	}
	h := ts.Unix() / 3600
	if ts.Unix() < 0 && ts.Unix()%3600 != 0 {
		h-- // floor, for a time before 1970 (never written, but well defined)
	}
	for i := range u.Rows {
		r := &u.Rows[i]
		if r.Hour == h && r.Model == model && r.Summary == summary {
			r.Input += v.InputTokens
			r.Cached += v.CacheReadInputTokens
			r.Output += v.OutputTokens
			return
		}
	}
	u.Rows = append(u.Rows, UsageRow{Hour: h, Model: model, Summary: summary,
		Input: v.InputTokens, Cached: v.CacheReadInputTokens, Output: v.OutputTokens})
}

// observe folds one record into the summary: a reply's usage, a
// boundary's summary calls, a subagent session's parent. A Task result's
// usage is its subagent's, counted in that session.
func (u *UsageSummary) observe(r *Record) {
	switch {
	case r.Type == TypeAssistant && r.Message != nil:
		if r.Message.Model != "" {
			u.LastModel = r.Message.Model
		}
		if r.Message.Usage != nil {
			u.add(r.Timestamp, r.Message.Model, false, *r.Message.Usage)
		}
	case r.IsBoundary() && r.CompactMetadata != nil && r.CompactMetadata.Receipt != nil:
		if s := r.CompactMetadata.Receipt.SummaryUsage; s != nil {
			u.add(r.Timestamp, u.LastModel, true, *s)
		}
	case r.Subtype == SubtypeSubagentStart && r.Subagent != nil:
		u.Parent = r.Subagent.SessionID
	case r.Subtype == SubtypeModelUsage && r.ModelUsage != nil:
		if r.ModelUsage.Model != "" {
			u.LastModel = r.ModelUsage.Model
		}
		u.add(r.Timestamp, r.ModelUsage.Model, false, r.ModelUsage.Usage)
	}
}

// appended is the summary after recs were appended at from, ending at
// to: kept in step only when it was current at from; else left behind
// for Project.Usage to catch up. The summary is copied, never changed in
// place: index entries share it.
func (u *UsageSummary) appended(recs []*Record, from, to int64) *UsageSummary {
	if u == nil || u.Scanned != from {
		return u
	}
	next := &UsageSummary{Scanned: to, Rows: append([]UsageRow(nil), u.Rows...), Parent: u.Parent, LastModel: u.LastModel}
	for _, r := range recs {
		next.observe(r)
	}
	return next
}

// usageProbe is the part of a line a usage summary needs; decoding into
// it skips the rest.
type usageProbe struct {
	Type      string    `json:"type"`
	Subtype   string    `json:"subtype"`
	Timestamp time.Time `json:"timestamp"`
	Message   *struct {
		Model string `json:"model"`
		Usage *Usage `json:"usage"`
	} `json:"message"`
	CompactMetadata *struct {
		Receipt *struct {
			SummaryUsage *Usage `json:"summaryUsage"`
		} `json:"receipt"`
	} `json:"compactMetadata"`
	Subagent   *SubagentInfo `json:"subagent"`
	ModelUsage *ModelUsage   `json:"modelUsage"`
}

// catchUp counts the whole lines of f from u.Scanned to size and returns
// the summary that covers them (u itself when there is nothing new). A
// line in the store's own encoding that is neither a reply nor a system
// record is passed over by its head, undecoded.
func (u *UsageSummary) catchUp(ctx context.Context, f *os.File, size int64) (*UsageSummary, error) {
	if u == nil {
		u = &UsageSummary{}
	}
	if u.Scanned >= size {
		return u, nil
	}
	next := &UsageSummary{Scanned: u.Scanned, Rows: append([]UsageRow(nil), u.Rows...), Parent: u.Parent, LastModel: u.LastModel}
	if _, err := f.Seek(u.Scanned, io.SeekStart); err != nil {
		return nil, err
	}
	lr := newLineReader(io.LimitReader(f, size-u.Scanned), u.Scanned, u.Scanned == 0, loadBuffer)
	for n := 0; ; n++ {
		if n%4096 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		line, off, complete, err := lr.next()
		if errors.Is(err, io.EOF) || (err == nil && !complete) {
			return next, nil // a torn or unfinished last line counts once whole
		}
		if err != nil {
			return nil, err
		}
		next.Scanned = off + int64(len(line)) + 1
		if h, ok := ParseHead(line); ok && h.Type != TypeAssistant && h.Type != TypeSystem {
			continue
		}
		var p usageProbe
		if json.Unmarshal(line, &p) != nil {
			continue // a damaged line: every reader skips it
		}
		r := Record{Type: p.Type, Subtype: p.Subtype, Timestamp: p.Timestamp, Subagent: p.Subagent, ModelUsage: p.ModelUsage}
		if p.Message != nil {
			r.Message = &Message{Model: p.Message.Model, Usage: p.Message.Usage}
		}
		if p.CompactMetadata != nil && p.CompactMetadata.Receipt != nil {
			r.CompactMetadata = &CompactMetadata{Receipt: &Receipt{SummaryUsage: p.CompactMetadata.Receipt.SummaryUsage}}
		}
		next.observe(&r)
	}
}

// Usage returns the usage summary of every session of the project, each
// caught up with its file: from index.json when its summary is current,
// else by reading only the bytes it has not counted. Summaries it caught
// up are written back into the index (a failure to is only warned about:
// the next call reads those bytes again). Sessions come in no order.
func (p *Project) Usage(ctx context.Context) ([]SessionUsage, error) {
	// List brings every entry up to date with its file (from the file's
	// head and tail), carrying each entry's summary forward.
	if _, err := p.List(); err != nil {
		return nil, err
	}
	dir := p.dir()
	idx := p.readIndex(dir)
	files, err := p.SessionFiles()
	if err != nil {
		return nil, err
	}
	out := make([]SessionUsage, 0, len(files))
	caught := map[string]*UsageSummary{}
	for _, sf := range files {
		var cur *UsageSummary
		su := SessionUsage{ID: sf.ID, Project: p.Root}
		if e := idx[sf.ID]; e != nil {
			cur, su.Title, su.Updated = e.Usage, e.Title, e.Updated
		}
		if cur == nil || cur.Scanned < sf.Info.Size() {
			next, err := catchUpFile(ctx, sf.Path, cur, sf.Info.Size())
			if err != nil {
				return nil, fmt.Errorf("usage of session %s: %w", sf.ID, err)
			}
			if next != cur {
				caught[sf.ID] = next
			}
			cur = next
		}
		su.Parent, su.Rows = cur.Parent, cur.Rows
		out = append(out, su)
	}
	if len(caught) > 0 {
		p.updateIndex(dir, func(m map[string]*indexEntry) {
			for id, u := range caught {
				// Another process may have written a summary further
				// along meanwhile: the furthest wins.
				if e := m[id]; e != nil && (e.Usage == nil || e.Usage.Scanned < u.Scanned) {
					e.Usage = u
				}
			}
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

func catchUpFile(ctx context.Context, path string, u *UsageSummary, size int64) (*UsageSummary, error) {
	f, err := OpenRegular(filepath.Clean(path), os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return u.catchUp(ctx, f, size)
}
