package repl

import (
	"strings"
)

// endTable draws the held table, if any: columns aligned to their widest
// cell (as the alignment row asks), in a box, shrunk to the terminal's
// width by cutting the widest cells.
func (m *markdownWriter) endTable() {
	if len(m.table) == 0 {
		return
	}
	rows := m.table
	m.table = nil
	var cells [][]string
	var aligns []byte
	header := -1
	for _, r := range rows {
		c := splitRow(r)
		if header < 0 && len(cells) == 1 && isAlignRow(c) {
			header = 1
			for _, a := range c {
				a = strings.TrimSpace(a)
				switch {
				case strings.HasPrefix(a, ":") && strings.HasSuffix(a, ":"):
					aligns = append(aligns, 'c')
				case strings.HasSuffix(a, ":"):
					aligns = append(aligns, 'r')
				default:
					aligns = append(aligns, 'l')
				}
			}
			continue
		}
		rendered := make([]string, len(c))
		for i, cell := range c {
			rendered[i] = string(renderInline(nil, strings.TrimSpace(cell)))
		}
		cells = append(cells, rendered)
	}
	ncol := 0
	for _, r := range cells {
		ncol = max(ncol, len(r))
	}
	widths := make([]int, ncol)
	for _, r := range cells {
		for i, c := range r {
			widths[i] = max(widths[i], visibleWidth(c))
		}
	}
	// Fit: borders take 3 columns per cell plus 1.
	avail := m.cols() - 1 - 3*ncol
	for sum(widths) > avail && avail > ncol {
		widest := 0
		for i, w := range widths {
			if w > widths[widest] {
				widest = i
			}
		}
		widths[widest]--
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
	for ri, r := range cells {
		m.out = append(m.out, styleDim+"│"+styleNormal...)
		for i, w := range widths {
			c := ""
			if i < len(r) {
				c = clipStyled(r[i], w)
			}
			pad := w - visibleWidth(c)
			align := byte('l')
			if i < len(aligns) {
				align = aligns[i]
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
			if ri == 0 && header > 0 {
				m.out = append(m.out, styleBold+c+styleNormal...)
			} else {
				m.out = append(m.out, c...)
			}
			m.out = append(m.out, strings.Repeat(" ", pad-left)...)
			m.out = append(m.out, " "+styleDim+"│"+styleNormal...)
		}
		m.out = append(m.out, '\n')
		if ri == 0 && header > 0 && len(cells) > 1 {
			line("├", "┼", "┤")
		}
	}
	line("└", "┴", "┘")
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
