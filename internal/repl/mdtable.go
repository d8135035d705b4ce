package repl

import (
	"strings"

	"github.com/clawdcode/clawdcode/internal/termtext"
)

// endTable draws the held table, if any: columns aligned to their widest
// cell (as the alignment row asks), in a box, shrunk to the terminal's
// width by wrapping the widest cells onto more rows; a table too wide even
// so is drawn as a list, one "header: value" line per cell. Nothing of a
// cell is cut.
func (m *markdownWriter) endTable() {
	if len(m.table) == 0 {
		return
	}
	t := parseTable(m.table)
	m.table = nil
	widths, ok := t.fit(m.cols() - 1)
	if !ok {
		m.tableList(t)
		return
	}
	line := func(left, mid, right string) {
		m.out = append(m.out, styleDim+left...)
		for i, w := range widths {
			if i > 0 {
				m.out = append(m.out, mid...)
			}
			m.out = append(m.out, strings.Repeat("─", w+2)...)
		}
		m.out = append(m.out, right+styleNormal+"\n"...)
	}
	line("┌", "┬", "┐")
	for ri, r := range t.cells {
		m.tableRow(t, ri, r, widths)
		if ri == 0 && t.header && len(t.cells) > 1 {
			line("├", "┼", "┤")
		}
	}
	line("└", "┴", "┘")
}

// mdTable is a Markdown table's cells (inline Markdown rendered), each
// column's alignment ('l', 'r', 'c') and whether the first row heads it.
type mdTable struct {
	cells  [][]string
	aligns []byte
	header bool
	ncol   int
}

func parseTable(rows []string) mdTable {
	var t mdTable
	for _, r := range rows {
		c := splitRow(r)
		if !t.header && len(t.cells) == 1 && isAlignRow(c) {
			t.header = true
			for _, a := range c {
				t.aligns = append(t.aligns, alignOf(strings.TrimSpace(a)))
			}
			continue
		}
		rendered := make([]string, len(c))
		for i, cell := range c {
			rendered[i] = string(renderInline(nil, strings.TrimSpace(cell)))
		}
		t.cells = append(t.cells, rendered)
		t.ncol = max(t.ncol, len(c))
	}
	return t
}

func alignOf(a string) byte {
	switch {
	case strings.HasPrefix(a, ":") && strings.HasSuffix(a, ":"):
		return 'c'
	case strings.HasSuffix(a, ":"):
		return 'r'
	}
	return 'l'
}

// minCellWidth is the narrowest a column is wrapped to; a table that does
// not fit with its columns that wide is drawn as a list.
const minCellWidth = 10

// fit gives each column its width within cols: the widest cell, the widest
// columns narrowed until the table fits; not ok when a column would have
// to be narrower than minCellWidth (or its widest cell, if narrower).
func (t mdTable) fit(cols int) ([]int, bool) {
	widths := make([]int, t.ncol)
	for _, r := range t.cells {
		for i, c := range r {
			widths[i] = max(widths[i], visibleWidth(c))
		}
	}
	natural := append([]int(nil), widths...)
	avail := cols - 3*t.ncol // borders: 3 columns per cell plus 1
	for sum(widths) > avail && avail > t.ncol {
		widest := 0
		for i, w := range widths {
			if w > widths[widest] {
				widest = i
			}
		}
		widths[widest]--
	}
	for i, w := range widths {
		if w < min(natural[i], minCellWidth) || sum(widths) > avail {
			return nil, false
		}
	}
	return widths, true
}

// tableRow draws one row of cells, a cell wider than its column wrapped at
// words onto as many terminal rows as it needs.
func (m *markdownWriter) tableRow(t mdTable, ri int, r []string, widths []int) {
	parts := make([][]string, len(widths))
	height := 1
	for i, w := range widths {
		c := ""
		if i < len(r) {
			c = r[i]
		}
		parts[i] = []string{c}
		if visibleWidth(c) > w {
			// A wrapped cell loses its styles rather than leave one open.
			parts[i] = termtext.Wrap(ansiSGR.ReplaceAllString(c, ""), w)
		}
		height = max(height, len(parts[i]))
	}
	for line := range height {
		m.out = append(m.out, styleDim+"│"+styleNormal...)
		for i, w := range widths {
			c := ""
			if line < len(parts[i]) {
				c = parts[i][line]
			}
			m.tableCell(t, ri, i, c, w)
		}
		m.out = append(m.out, '\n')
	}
}

// tableCell writes one cell's text padded to w as its column is aligned.
func (m *markdownWriter) tableCell(t mdTable, ri, i int, c string, w int) {
	pad := max(w-visibleWidth(c), 0)
	align := byte('l')
	if i < len(t.aligns) {
		align = t.aligns[i]
	}
	left := 0
	switch align {
	case 'r':
		left = pad
	case 'c':
		left = pad / 2
	}
	m.out = append(m.out, ' ')
	m.out = append(m.out, strings.Repeat(" ", left)...)
	if ri == 0 && t.header {
		m.out = append(m.out, styleBold+c+styleNormal...)
	} else {
		m.out = append(m.out, c...)
	}
	m.out = append(m.out, strings.Repeat(" ", pad-left)...)
	m.out = append(m.out, " "+styleDim+"│"+styleNormal...)
}

// tableList draws a table too wide for the terminal as a list: for each
// row, one "header: value" line per cell (wrapped), rows apart.
func (m *markdownWriter) tableList(t mdTable) {
	rows, head := t.cells, []string(nil)
	if t.header {
		head, rows = t.cells[0], t.cells[1:]
	}
	for ri, r := range rows {
		if ri > 0 {
			m.out = append(m.out, styleDim+"  ─"+styleNormal+"\n"...)
		}
		for i, c := range r {
			label := ""
			if i < len(head) && head[i] != "" {
				label = styleBold + ansiSGR.ReplaceAllString(head[i], "") + ":" + styleNormal + " "
			}
			plainLabel := ansiSGR.ReplaceAllString(label, "")
			for j, l := range termtext.Wrap(plainLabel+ansiSGR.ReplaceAllString(c, ""), m.cols()-3) {
				if rest, ok := strings.CutPrefix(l, plainLabel); j == 0 && label != "" && ok {
					l = label + rest
				}
				m.out = append(m.out, "  "+l+"\n"...)
			}
		}
	}
}

// splitRow splits "| a | b |" into its cells ("\|" stays in a cell).
func splitRow(r string) []string {
	r = strings.TrimSpace(r)
	r = strings.TrimPrefix(r, "|")
	if strings.HasSuffix(r, "|") && !strings.HasSuffix(r, `\|`) {
		r = r[:len(r)-1]
	}
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(r); i++ {
		if r[i] == '\\' && i+1 < len(r) && r[i+1] == '|' {
			cur.WriteByte('|')
			i++
			continue
		}
		if r[i] == '|' {
			cells = append(cells, cur.String())
			cur.Reset()
			continue
		}
		cur.WriteByte(r[i])
	}
	return append(cells, cur.String())
}

func isAlignRow(cells []string) bool {
	for _, c := range cells {
		c = strings.TrimSpace(c)
		if c == "" || strings.Trim(c, ":-") != "" || !strings.Contains(c, "-") {
			return false
		}
	}
	return len(cells) > 0
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}
