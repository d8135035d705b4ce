package usage

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/clawdcode/clawdcode/internal/termtext"
)

// jsonRow is a row as --json prints it: its key under the grouping's
// name (date, month, session_id or model), then its figures.
type jsonRow struct {
	Date      string `json:"date,omitempty"`
	Month     string `json:"month,omitempty"`
	SessionID string `json:"session_id,omitempty"`
	Model     string `json:"model,omitempty"`
	Project   string `json:"project,omitempty"`
	Title     string `json:"title,omitempty"`
	Tokens
	Subagents        Tokens    `json:"subagents"`
	Compaction       Tokens    `json:"compaction"`
	Models           []string  `json:"models,omitempty"`
	SubagentSessions []jsonRow `json:"subagent_sessions,omitempty"`
}

type jsonTotals struct {
	Tokens
	Subagents  Tokens   `json:"subagents"`
	Compaction Tokens   `json:"compaction"`
	Unpriced   []string `json:"unpriced_models"`
}

func (r Row) json(by Grouping) jsonRow {
	j := jsonRow{Tokens: r.Tokens, Subagents: r.Subagents, Compaction: r.Compaction, Models: r.Models,
		Project: r.Project, Title: r.Title}
	switch by {
	case ByMonth:
		j.Month = r.Key
	case BySession:
		j.SessionID = r.Key
		for _, c := range r.Children {
			j.SubagentSessions = append(j.SubagentSessions, c.json(by))
		}
	case ByModel:
		j.Model, j.Models = r.Key, nil
	default:
		j.Date = r.Key
	}
	return j
}

// WriteJSON prints the report as one JSON object: {"rows": [...],
// "totals": {...}} (CONTRACT.md section 17).
func (rep *Report) WriteJSON(w io.Writer) error {
	out := struct {
		Rows   []jsonRow  `json:"rows"`
		Totals jsonTotals `json:"totals"`
	}{Rows: []jsonRow{}, Totals: jsonTotals{Tokens: rep.Totals.Tokens, Subagents: rep.Totals.Subagents,
		Compaction: rep.Totals.Compaction, Unpriced: rep.Unpriced}}
	if out.Totals.Unpriced == nil {
		out.Totals.Unpriced = []string{}
	}
	for _, r := range rep.Rows {
		out.Rows = append(out.Rows, r.json(rep.By))
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// WriteText prints the report as a table: a row a line (a session's
// subagents on lines of their own under it), the totals, and what of
// them subagents and compactions' summary calls used.
func (rep *Report) WriteText(w io.Writer) error {
	head := map[Grouping]string{ByDay: "DATE", ByMonth: "MONTH", BySession: "SESSION", ByModel: "MODEL"}[rep.By]
	if head == "" {
		head = "DATE"
	}
	t := table{{head, "INPUT", "CACHED", "OUTPUT", "COST", extraHead(rep.By)}}
	for _, r := range rep.Rows {
		t = append(t, []string{termtext.Line(r.Key), Thousands(r.Input), Thousands(r.Cached), Thousands(r.Output), Dollars(r.Cost), extra(rep.By, r, false)})
		for _, c := range r.Children {
			t = append(t, []string{"  ↳ " + termtext.ShortID(c.Key), Thousands(c.Input), Thousands(c.Cached), Thousands(c.Output), Dollars(c.Cost), extra(rep.By, c, true)})
		}
	}
	tot := rep.Totals
	t = append(t, []string{"TOTAL", Thousands(tot.Input), Thousands(tot.Cached), Thousands(tot.Output), Dollars(tot.Cost), ""})
	var b strings.Builder
	t.write(&b)
	if !tot.Subagents.Zero() {
		fmt.Fprintf(&b, "of which subagents: %s\n", figure(tot.Subagents))
	}
	if !tot.Compaction.Zero() {
		fmt.Fprintf(&b, "of which compactions' summary calls: %s\n", figure(tot.Compaction))
	}
	if len(rep.Unpriced) > 0 {
		fmt.Fprintf(&b, "No price known for %s: counted at $0 (state one in config.toml, [prices.\"MODEL\"]).\n",
			termtext.Line(strings.Join(rep.Unpriced, ", ")))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// table is rows of cells: the first column and the last left-aligned,
// the figures between them right-aligned.
type table [][]string

func (t table) write(b *strings.Builder) {
	widths := make([]int, len(t[0]))
	for _, row := range t {
		for i, c := range row {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	for _, row := range t {
		var line strings.Builder
		for i, c := range row {
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c))
			switch {
			case i == 0:
				line.WriteString(c + pad)
			case i == len(row)-1:
				line.WriteString("  " + c)
			default:
				line.WriteString("  " + pad + c)
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
}

func extraHead(by Grouping) string {
	switch by {
	case BySession:
		return "TITLE"
	case ByModel:
		return ""
	}
	return "MODELS"
}

func extra(by Grouping, r Row, child bool) string {
	if by == BySession {
		title := termtext.Line(termtext.Flatten(r.Title, 50))
		if child {
			title = "subagent " + title
		}
		return title
	}
	if by == ByModel {
		return ""
	}
	return termtext.Line(strings.Join(r.Models, ", "))
}

func figure(t Tokens) string {
	return fmt.Sprintf("input %s (cached %s), output %s, %s", Thousands(t.Input), Thousands(t.Cached), Thousands(t.Output), Dollars(t.Cost))
}

// Dollars renders an amount with the precision it deserves.
func Dollars(v float64) string {
	switch {
	case v == 0:
		return "$0.00"
	case v < 0.01:
		return fmt.Sprintf("$%.4f", v)
	}
	return fmt.Sprintf("$%.2f", v)
}

// Thousands renders n with comma separators (12,345).
func Thousands(n int) string {
	s := fmt.Sprint(n)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}
