package usage

import (
	"sort"
	"strings"
	"time"

	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/tokens"
)

// Grouping is how a report's rows are keyed.
type Grouping string

const (
	ByDay     Grouping = "daily"
	ByMonth   Grouping = "monthly"
	BySession Grouping = "session"
	ByModel   Grouping = "model"
)

// ParseGrouping reads the report's first argument (daily, monthly,
// session or model; day and month are accepted too).
func ParseGrouping(s string) (Grouping, bool) {
	switch strings.ToLower(s) {
	case "", "daily", "day":
		return ByDay, true
	case "monthly", "month":
		return ByMonth, true
	case "session", "sessions":
		return BySession, true
	case "model", "models":
		return ByModel, true
	}
	return "", false
}

// Options shape a report.
type Options struct {
	By Grouping
	// Since and Until bound the days counted, inclusive, as YYYY-MM-DD in
	// Loc ("" = unbounded).
	Since, Until string
	// Loc is the time zone whose days and months the rows are (nil = UTC).
	Loc    *time.Location
	Prices tokens.Prices
}

// Tokens is what some model calls used and cost. Cost counts only the
// models with a known price; the others are named in Report.Unpriced.
type Tokens struct {
	Input  int     `json:"input_tokens"`
	Cached int     `json:"cached_input_tokens"`
	Output int     `json:"output_tokens"`
	Cost   float64 `json:"cost_usd"`
}

func (t *Tokens) add(u Tokens) {
	t.Input += u.Input
	t.Cached += u.Cached
	t.Output += u.Output
	t.Cost += u.Cost
}

// Zero reports whether nothing was used.
func (t Tokens) Zero() bool { return t.Input == 0 && t.Cached == 0 && t.Output == 0 }

// Figures is a row's or the totals' usage: all of it, and, apart, the
// part its subagents used and the part the summary calls of compactions
// used (a subagent's summary calls are in both).
type Figures struct {
	Tokens
	Subagents  Tokens `json:"subagents"`
	Compaction Tokens `json:"compaction"`
}

func (f *Figures) add(t Tokens, subagent, summary bool) {
	f.Tokens.add(t)
	if subagent {
		f.Subagents.add(t)
	}
	if summary {
		f.Compaction.add(t)
	}
}

// Row is one line of a report: its key (a day, a month, a session or a
// model) and its figures. A session's row counts its subagents' sessions,
// which are also listed apart under it (Children).
type Row struct {
	Key string
	Figures
	// Models are the models the row's calls named, sorted.
	Models []string
	// Session rows only.
	Project  string
	Title    string
	Children []Row
}

// Report is the rows, in order (days and months ascending, sessions by
// their last activity, models by cost), and their totals.
type Report struct {
	By     Grouping
	Rows   []Row
	Totals Figures
	// Unpriced are the models without a known price, counted at $0.
	Unpriced []string
}

// Build makes the report of sessions.
func Build(sessions []storage.SessionUsage, opt Options) *Report {
	loc := opt.Loc
	if loc == nil {
		loc = time.UTC
	}
	b := &builder{opt: opt, loc: loc, rows: map[string]*Row{}, models: map[string]map[string]bool{},
		unpriced: map[string]bool{}, ids: map[string]bool{}}
	for _, s := range sessions {
		b.ids[s.ID] = true
	}
	for _, s := range sessions {
		b.session(s)
	}
	return b.report(sessions)
}

type builder struct {
	opt      Options
	loc      *time.Location
	rows     map[string]*Row
	models   map[string]map[string]bool
	children map[string]map[string]*Row
	unpriced map[string]bool
	ids      map[string]bool // the sessions reported on
	totals   Figures
}

// session adds one session's rows within the dates.
func (b *builder) session(s storage.SessionUsage) {
	// A subagent whose parent is not in the report stands on its own.
	parent := s.Parent
	if parent != "" && !b.ids[parent] {
		parent = ""
	}
	for _, r := range s.Rows {
		day := time.Unix(r.Hour*3600, 0).In(b.loc).Format(time.DateOnly)
		if (b.opt.Since != "" && day < b.opt.Since) || (b.opt.Until != "" && day > b.opt.Until) {
			continue
		}
		t := b.price(r)
		sub := s.Parent != ""
		var key string
		switch b.opt.By {
		case ByMonth:
			key = day[:7]
		case BySession:
			key = s.ID
			if parent != "" {
				key = parent
				b.child(parent, s, t, r.Summary)
			}
		case ByModel:
			key = modelName(r.Model)
		default:
			key = day
		}
		row := b.rows[key]
		if row == nil {
			row = &Row{Key: key}
			b.rows[key] = row
			b.models[key] = map[string]bool{}
		}
		row.add(t, sub, r.Summary)
		b.models[key][modelName(r.Model)] = true
		b.totals.add(t, sub, r.Summary)
	}
}

// child counts a subagent's usage apart under its parent's row.
func (b *builder) child(parent string, s storage.SessionUsage, t Tokens, summary bool) {
	if b.children == nil {
		b.children = map[string]map[string]*Row{}
	}
	m := b.children[parent]
	if m == nil {
		m = map[string]*Row{}
		b.children[parent] = m
	}
	c := m[s.ID]
	if c == nil {
		c = &Row{Key: s.ID, Project: s.Project, Title: s.Title}
		m[s.ID] = c
	}
	c.add(t, true, summary)
}

// price is a row's tokens and their cost at the model's price; a model
// without one is noted and costs nothing.
func (b *builder) price(r storage.UsageRow) Tokens {
	t := Tokens{Input: r.Input, Cached: r.Cached, Output: r.Output}
	c, ok := Cost(b.opt.Prices, r.Model, r.Usage())
	if !ok {
		b.unpriced[modelName(r.Model)] = true
	}
	t.Cost = c
	return t
}

// Cost is what u cost at model's price in prices, and whether that price
// is known (else 0). The one pricing rule of `clawdcode usage`, /cost and
// the status line: input not served from the cache at the input price,
// cached input at the cached price, output at the output price.
func Cost(prices tokens.Prices, model string, u storage.Usage) (float64, bool) {
	p, ok := prices.Of(model)
	if !ok {
		return 0, false
	}
	return p.Cost(u.InputTokens, u.CacheReadInputTokens, u.OutputTokens), true
}

func modelName(m string) string {
	if m == "" {
		return "(unknown)"
	}
	return m
}

func (b *builder) report(sessions []storage.SessionUsage) *Report {
	rep := &Report{By: b.opt.By, Totals: b.totals}
	info := map[string]storage.SessionUsage{}
	for _, s := range sessions {
		info[s.ID] = s
	}
	for key, row := range b.rows {
		for m := range b.models[key] {
			row.Models = append(row.Models, m)
		}
		sort.Strings(row.Models)
		if b.opt.By == BySession {
			s := info[key]
			row.Project, row.Title = s.Project, s.Title
			for _, c := range b.children[key] {
				row.Children = append(row.Children, *c)
			}
			sort.Slice(row.Children, func(i, j int) bool { return row.Children[i].Key < row.Children[j].Key })
		}
		rep.Rows = append(rep.Rows, *row)
	}
	sort.Slice(rep.Rows, func(i, j int) bool {
		a, c := rep.Rows[i], rep.Rows[j]
		switch b.opt.By {
		case BySession:
			ua, uc := info[a.Key].Updated, info[c.Key].Updated
			if !ua.Equal(uc) {
				return ua.Before(uc)
			}
		case ByModel:
			if a.Cost != c.Cost {
				return a.Cost > c.Cost
			}
		}
		return a.Key < c.Key
	})
	for m := range b.unpriced {
		rep.Unpriced = append(rep.Unpriced, m)
	}
	sort.Strings(rep.Unpriced)
	return rep
}
