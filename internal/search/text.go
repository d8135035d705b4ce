package search

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/clawdcode/clawdcode/internal/termtext"
)

// TextOptions say how WriteText shows hits.
type TextOptions struct {
	// WithProject adds each hit's project (a search of every project).
	WithProject bool
	// When formats a hit's time.
	When func(time.Time) string
	// Query is what was searched for: its words are highlighted.
	Query string
	// Bold highlights the query's words in bold (on a terminal only).
	Bold bool
}

// titleMax bounds the runes of a title shown in a hit's heading.
const titleMax = 60

// boldOn and boldOff are the styling WriteText adds to a matched word,
// after termtext has made the text around it inert.
const (
	boldOn  = "\x1b[1m"
	boldOff = "\x1b[22m"
)

// WriteText writes hits as text, the format of `clawdcode search`: per
// hit a heading (session id, time, record type — "summary" for a
// compaction summary — with WithProject the project, the session's title
// and how many forks hold the same record) and its snippet indented below,
// the query's words highlighted; then how to open a hit. Everything that
// came from the records is made inert (termtext.Line) before any styling
// is added, so out must not be a termtext.Writer.
func WriteText(out io.Writer, hits []Hit, o TextOptions) error {
	w := bufio.NewWriter(out)
	words := queryTerms(o.Query)
	for _, h := range hits {
		typ := h.Type
		if h.Summary {
			typ = "summary"
		}
		fmt.Fprintf(w, "%s  %s  %s", termtext.Line(h.SessionID), o.When(h.Timestamp), typ)
		if o.WithProject {
			fmt.Fprintf(w, "  %s", termtext.Line(h.Project))
		}
		if h.Title != "" {
			fmt.Fprintf(w, "  \"%s\"", termtext.Line(termtext.Flatten(h.Title, titleMax)))
		}
		if h.AlsoIn > 0 {
			fmt.Fprintf(w, "  (also in %d %s)", h.AlsoIn, plural(h.AlsoIn, "fork", "forks"))
		}
		fmt.Fprintf(w, "\n    %s\n", highlight(h.Snippet, words, o.Bold))
	}
	if len(hits) > 0 {
		fmt.Fprintf(w, "\nOpen a hit's session with: clawdcode -r <session id> (e.g. clawdcode -r %s)\n", termtext.Line(hits[0].SessionID))
	}
	return w.Flush()
}

// MoreLine says that a search found more than it returned, and how to
// see more ("" when it did not): the last line of `clawdcode search`, on
// stderr with --json, whose array it must not change.
func MoreLine(r Result) string {
	if !r.More {
		return ""
	}
	n := len(r.Hits)
	if r.Phrase {
		return fmt.Sprintf("%d %s shown; more may match: --limit %d shows up to %d (records with every word)",
			n, plural(n, "hit", "hits"), min(r.Matched, MaxLimit), min(r.Matched, MaxLimit))
	}
	if r.Matched > MaxLimit {
		return fmt.Sprintf("%d of %d matching records shown; --limit %d shows the first %d", n, r.Matched, MaxLimit, MaxLimit)
	}
	return fmt.Sprintf("%d of %d matching records shown; --limit %d shows them all", n, r.Matched, r.Matched)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// queryTerms returns the set of the terms of a query's words and phrases.
func queryTerms(q string) map[string]bool {
	cs, err := parseQuery(q)
	if err != nil {
		return nil
	}
	set := map[string]bool{}
	for _, t := range distinctTerms(cs) {
		set[t] = true
	}
	return set
}

// highlight returns the snippet made inert on one line (termtext.Line),
// each of its terms that is one of words marked: in bold when bold, else
// left as it is.
func highlight(snip string, words map[string]bool, bold bool) string {
	if !bold || len(words) == 0 {
		return termtext.Line(snip)
	}
	var b strings.Builder
	for _, p := range pieces(snip, words) {
		if p.Match {
			b.WriteString(boldOn + termtext.Line(p.Text) + boldOff)
		} else {
			b.WriteString(termtext.Line(p.Text))
		}
	}
	return b.String()
}

// Piece is a run of a text: one of a query's words (Match) or what lies
// between them.
type Piece struct {
	Text  string
	Match bool
}

// Pieces cuts text where the words of query are, as the index tokenizes
// them (so "Parser's" matches "parser"): concatenated, the pieces are
// text. A front end styles the matches after making each piece safe to
// show, so that the cuts fall where the raw text has them.
func Pieces(text, query string) []Piece {
	return pieces(text, queryTerms(query))
}

func pieces(text string, words map[string]bool) []Piece {
	var out []Piece
	var tz tokenizer
	tz.reset([]byte(text))
	last := 0
	for {
		tok, ok := tz.next()
		if !ok {
			break
		}
		if !words[string(tok.term)] {
			continue
		}
		if tok.start > last {
			out = append(out, Piece{Text: text[last:tok.start]})
		}
		out = append(out, Piece{Text: text[tok.start:tok.end], Match: true})
		last = tok.end
	}
	if last < len(text) || len(out) == 0 {
		out = append(out, Piece{Text: text[last:]})
	}
	return out
}

// NoMatch is the line that says a search found nothing.
func NoMatch(query string, all bool) string {
	where := "this project's sessions"
	if all {
		where = "any session"
	}
	return fmt.Sprintf("No match for %s in %s.", query, where)
}
