package contextmgr

import (
	"fmt"
	"sort"
	"strings"

	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/termtext"
)

// ledgerHeading opens the ledger's text.
const ledgerHeading = "Evidence ledger (read from the tool records, not from the summary; it holds where they disagree):"

// ledgerItem is one line of the ledger's text and how much it matters:
// what does not fit the budget is folded, least weight and oldest first.
type ledgerItem struct {
	section, order, weight int
	line, ref              string
}

var ledgerSections = []string{"Files:", "Commands:", "Test results:", "Numbers:", "Errors:"}

// ledgerItems lists l's lines with their weights: what changed the work
// (edits, writes, failures, errors) weighs most, a read or a command that
// succeeded least. The numbers a file's read showed go on the file's line
// (one path and one ref instead of two), which then weighs more than a
// number a search printed.
func ledgerItems(l *storage.Ledger) []ledgerItem {
	var items []ledgerItem
	byRef := map[string]int{}
	for _, f := range l.Files {
		// A read's line count is left out: what a read showed is in its
		// numbers, and the count rarely matters.
		weight, what := 5, f.Op
		switch f.Op {
		case "read":
			weight = 1
		case "write":
			what = "written, " + f.Lines + " lines"
		case "edit":
			what = "edited, lines " + f.Lines
		}
		byRef[f.Ref] = len(items)
		items = append(items, ledgerItem{section: 0, weight: weight, ref: f.Ref, line: "- " + f.Path + " (" + what + ")"})
	}
	for _, c := range l.Commands {
		it := ledgerItem{section: 1, weight: 5, ref: c.Ref}
		switch {
		case c.Exit == 0:
			it.weight, it.line = 2, fmt.Sprintf("- `%s` — exit status 0", termtext.Flatten(c.Command, 200))
		case c.Exit < 0:
			it.line = fmt.Sprintf("- `%s` — did not exit: %s", termtext.Flatten(c.Command, 200), c.Error)
		default:
			it.line = fmt.Sprintf("- `%s` — exit status %d: %s", termtext.Flatten(c.Command, 200), c.Exit, c.Error)
		}
		items = append(items, it)
	}
	sep := map[bool]string{true: ": ", false: "; "}
	for i, lines := range [][]storage.LedgerLine{l.Tests, l.Numbers, l.Errors} {
		// A number on a file's line weighs 3: that file was read for it. A
		// number a search or a command printed (a Grep finds many) weighs
		// as a command that succeeded.
		weight := []int{4, 2, 4}[i]
		for _, x := range lines {
			if j, ok := byRef[x.Ref]; ok && i == 1 {
				items[j].line += sep[strings.HasSuffix(items[j].line, ")")] + x.Text
				items[j].weight = max(items[j].weight, 3)
				continue
			}
			items = append(items, ledgerItem{section: 2 + i, weight: weight, ref: x.Ref, line: "- " + x.Text + " (" + x.Source + ")"})
		}
	}
	for i := range items {
		items[i].order = i
	}
	return items
}

// ledgerText is the ledger as the model reads it, within budget tokens
// as size measures them ("" = an empty ledger). Lines that do not fit are
// folded to their refs, and past that counted.
func ledgerText(l *storage.Ledger, budget int, size func(string) int) string {
	if ledgerEmpty(l) {
		return ""
	}
	items := ledgerItems(l)
	byWeight := append([]ledgerItem(nil), items...)
	sort.SliceStable(byWeight, func(i, j int) bool {
		if byWeight[i].weight != byWeight[j].weight {
			return byWeight[i].weight > byWeight[j].weight
		}
		return byWeight[i].order > byWeight[j].order
	})
	// Sizes are summed piece by piece, each rounded up by one (a newline,
	// a token split across the seam); the headings are reckoned whole, and
	// a tenth of the budget, at most, is kept for the folded refs.
	room := budget - size(ledgerHeading) - 1
	for _, h := range ledgerSections {
		room -= size(h) + 1
	}
	all := 0
	for _, it := range items {
		all += size(it.line) + 1
	}
	reserve := 0
	if all > room {
		reserve = min(budget/10, 100)
		room -= reserve
	}
	// Strictly by weight: once one does not fit, the rest fold too, so a
	// small line never stays where a weightier one was folded.
	kept := map[int]bool{}
	var folded []ledgerItem
	for _, it := range byWeight {
		if n := size(it.line) + 1; len(folded) == 0 && n <= room {
			room -= n
			kept[it.order] = true
		} else {
			folded = append(folded, it)
		}
	}
	var b strings.Builder
	b.WriteString(ledgerHeading)
	section := -1
	for _, it := range items {
		if !kept[it.order] {
			continue
		}
		if it.section != section {
			section = it.section
			b.WriteString("\n" + ledgerSections[section])
		}
		b.WriteString("\n" + it.line)
	}
	writeFolded(&b, folded, room+reserve, size)
	return b.String()
}

// writeFolded names the folded entries by ref, oldest last, as far as
// room allows, and counts the rest.
func writeFolded(b *strings.Builder, folded []ledgerItem, room int, size func(string) int) {
	if len(folded) == 0 {
		return
	}
	sort.SliceStable(folded, func(i, j int) bool { return folded[i].order > folded[j].order })
	head := fmt.Sprintf("\nFolded for room (%d entries; Recall ref=<ref> shows one):", len(folded))
	room -= size(head) + size(" (and 1000 more: Recall by path or command finds them)") + 2
	var refs []string
	for _, it := range folded {
		if n := size(" "+shortRef(it.ref)) + 1; n <= room {
			room -= n
			refs = append(refs, shortRef(it.ref))
		}
	}
	b.WriteString(head)
	if len(refs) > 0 {
		b.WriteString(" " + strings.Join(refs, " "))
	}
	if rest := len(folded) - len(refs); rest > 0 {
		fmt.Fprintf(b, " (and %d more: Recall by path or command finds them)", rest)
	}
}

// shortRef is the prefix of a uuid the model is shown.
func shortRef(ref string) string {
	if len(ref) > refLen {
		return ref[:refLen]
	}
	return ref
}
