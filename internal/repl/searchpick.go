package repl

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mattn/go-runewidth"

	"github.com/clawdcode/clawdcode/internal/search"
	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/termtext"
)

// hitExchanges is how many exchanges before a search hit are shown with it.
const hitExchanges = 2

// pickHit is /search's picker on a terminal (slash.Env.PickHit): the
// hits, each with its session's title, when, what kind of record and its
// snippet with the query's words in bold, wrapped at words, never cut.
func (s *session) pickHit(ctx context.Context, query string, hits []search.Hit) (int, error) {
	now := time.Now()
	current := s.opts.Parts.Sessions.ID()
	root := s.projectRoot()
	items := make([]pickItem, len(hits))
	for i, h := range hits {
		snippet := h.Snippet
		items[i] = pickItem{
			label:  fmt.Sprintf("%d. %s", i+1, hitTitle(h)),
			detail: hitDetail(h, now, current, root),
			match:  snippet + " " + h.SessionID,
			body:   func(width int) []string { return wrapStyled(markWords(snippet, query, s.cs), width) },
		}
	}
	title := fmt.Sprintf("Search: %s — %s", termtext.Line(query), plural(len(hits), "hit"))
	pk := &picker{con: s.con, w: s.io.ErrOut, cs: s.cs, title: title, items: items, numbered: true}
	return pk.run(ctx)
}

// hitTitle is the title of a hit's session, on one line.
func hitTitle(h search.Hit) string {
	if t := termtext.Flatten(h.Title, 0); t != "" {
		return safe(t)
	}
	return "(untitled)"
}

// hitDetail says when the hit's record was written, what it is, and where.
func hitDetail(h search.Hit, now time.Time, current, root string) string {
	kind := h.Type
	if h.Summary {
		kind = "summary"
	}
	d := relativeTime(h.Timestamp, now) + " · " + kind + " · " + termtext.ShortID(h.SessionID)
	if h.SessionID == current {
		d += " · this session"
	}
	if h.AlsoIn > 0 {
		d += " · also in " + plural(h.AlsoIn, "fork")
	}
	if h.Project != root {
		d += " · " + safe(termtext.Flatten(h.Project, 0))
	}
	return d
}

// markWords is text made safe to show on one line (newlines and tabs as
// spaces), the words of query in bold.
func markWords(text, query string, cs colorScheme) string {
	var b strings.Builder
	for _, p := range search.Pieces(text, query) {
		piece := strings.Map(func(r rune) rune {
			if r == '\n' || r == '\t' || r == '\r' {
				return ' '
			}
			return r
		}, safe(p.Text))
		if p.Match {
			piece = cs.bold(piece)
		}
		b.WriteString(piece)
	}
	return b.String()
}

// wrapStyled breaks s, which may hold SGR styles inside its words (never
// across a space), into lines of at most width columns at spaces, its
// indentation kept on the first; a word longer than a line is broken
// inside, losing its styles.
func wrapStyled(s string, width int) []string {
	width = max(width, 10)
	indent := min(len(s)-len(strings.TrimLeft(s, " ")), width/2)
	var lines []string
	line, col, words := strings.Repeat(" ", indent), indent, 0
	for _, word := range strings.Fields(s) {
		w := visibleWidth(word)
		switch {
		case words > 0 && col > 0 && col+1+w <= width:
			line, col = line+" "+word, col+1+w
		case words > 0 && col > 0:
			lines = append(lines, line)
			line, col = word, w
		default:
			line, col = line+word, col+w
		}
		words++
		for col > width {
			plain := ansiSGR.ReplaceAllString(line, "")
			head := runewidth.Truncate(plain, width, "")
			lines = append(lines, head)
			line = plain[len(head):]
			col = runewidth.StringWidth(line)
		}
	}
	return append(lines, line)
}

// showHit prints the conversation of the current session up to the
// record of h (slash.Env.ShowHit): the exchanges before it as a resume
// shows them, then the record itself, marked, its lines from the first
// that holds the query's words, wrapped to fit the screen.
func (s *session) showHit(ctx context.Context, query string, h search.Hit) {
	p := s.opts.Parts.Sessions.Project()
	if p == nil {
		return
	}
	w := s.io.ErrOut
	before, hit, later, err := recordsAround(ctx, p.Path(h.SessionID), h.UUID)
	if err != nil || hit == nil {
		fmt.Fprintln(w, s.cs.warn("The hit's record is no longer in its session."))
		return
	}
	width := s.width()
	s.writeNote(w, "── the conversation up to the search hit ──", width)
	for _, l := range conversationLines(before[exchangesFrom(before, hitExchanges):], s.cs, s.projectRoot(), width) {
		fmt.Fprintln(w, l)
	}
	s.writeHitRecord(w, query, h, hit, width)
	if later > 0 {
		s.writeNote(w, fmt.Sprintf("── %s after it; the session goes on from its end ──", plural(later, "message")), width)
	}
}

// writeNote prints a dim note wrapped at words.
func (s *session) writeNote(w io.Writer, note string, width int) {
	for _, l := range wrapWidth(note, width-1) {
		fmt.Fprintln(w, s.cs.dim(l))
	}
}

// aroundRecords bounds the records kept before a hit.
const aroundRecords = 64

// recordsAround reads a session file for the record uuid: the records
// before it (at most aroundRecords), the record, and how many messages
// follow it.
func recordsAround(ctx context.Context, path, uuid string) (before []storage.LiveRecord, hit *storage.Record, later int, err error) {
	err = storage.ReadAll(ctx, path, func(off int64, r *storage.Record) error {
		switch {
		case hit != nil:
			if r.Type == storage.TypeUser && !r.IsCompactSummary || r.Type == storage.TypeAssistant {
				later++
			}
		case r.UUID == uuid:
			hit = r
		default:
			before = append(before, storage.LiveRecord{Offset: off, Record: r})
			if len(before) > 2*aroundRecords {
				before = append(before[:0], before[len(before)-aroundRecords:]...)
			}
		}
		return nil
	}, nil)
	return before, hit, later, err
}

// writeHitRecord prints the hit's record under a marker, each line behind
// a bar: from the line before the first that holds the query's words, as
// many as leave the screen room for the marker and the prompt.
func (s *session) writeHitRecord(w io.Writer, query string, h search.Hit, r *storage.Record, width int) {
	kind := h.Type
	if h.Summary {
		kind = "summary"
	}
	for _, l := range wrapWidth("▶ search hit · "+h.Timestamp.Local().Format("2006-01-02 15:04")+" · "+kind, width-1) {
		fmt.Fprintln(w, s.cs.warn(l))
	}
	lines := strings.Split(strings.TrimRight(recordText(r), "\n"), "\n")
	first := 0
	for first < len(lines) && !hasMatch(lines[first], query) {
		first++
	}
	first = max(min(first, len(lines)-1)-1, 0)
	if first > 0 {
		fmt.Fprintln(w, s.cs.dim(fmt.Sprintf("  ┃ … %s above", plural(first, "line"))))
	}
	rows, room := 0, s.hitRows()
	bar := s.cs.warn("  ┃ ")
	i := first
	for ; i < len(lines) && rows < room; i++ {
		for _, l := range wrapStyled(markWords(strings.ReplaceAll(lines[i], "\t", "    "), query, s.cs), width-5) {
			fmt.Fprintln(w, bar+l)
			rows++
		}
	}
	if i < len(lines) {
		fmt.Fprintln(w, s.cs.dim(fmt.Sprintf("  ┃ … %s below", plural(len(lines)-i, "line"))))
	}
}

// hitRows is how many rows of the hit's record are shown: what the
// screen holds beside the marker, the note after it and the prompt.
func (s *session) hitRows() int {
	if s.con == nil || s.con.height == nil {
		return 20
	}
	return max(s.con.height()-8, 4)
}

// hasMatch says whether line holds one of the query's words.
func hasMatch(line, query string) bool {
	for _, p := range search.Pieces(line, query) {
		if p.Match {
			return true
		}
	}
	return false
}

// recordText is what a record says, as the search index reads it.
func recordText(r *storage.Record) string {
	switch {
	case r.Message != nil:
		return r.Message.Content
	case r.Tool != nil:
		return r.Tool.Name + " " + string(r.Tool.Input)
	case r.ToolResult != nil:
		return strings.TrimSpace(r.ToolResult.Output + "\n" + r.ToolResult.Error)
	}
	return ""
}
