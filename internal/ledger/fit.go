package ledger

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// heading opens the ledger's text.
const heading = "Evidence ledger (read from the tool records, not from the summary; it holds where they disagree):"

// item is one line of the ledger's text and how much it matters:
// what does not fit the budget is folded, least weight and oldest first.
type item struct {
	entry
	order, weight int
}

// weighed lists l's lines (entries) with their
// weights: what changed the work (edits, writes, failures, errors) weighs
// most, a read or a command that succeeded least; a read that showed
// numbers weighs more than a number a search printed.
func weighed(l *storage.Ledger) []item {
	es := entries(l)
	out := make([]item, len(es))
	for i, e := range es {
		out[i] = item{entry: e, order: i, weight: weightOf(e)}
	}
	return out
}

// weightOf is how much an entry of the ledger matters.
func weightOf(e entry) int {
	switch e.Section {
	case sectionFiles:
		switch {
		case e.Op != "read":
			return 5
		case e.HasNumbers:
			return 3
		}
		return 1
	case sectionCommands:
		if e.Exit == 0 {
			return 2
		}
		return 5
	case sectionNumbers:
		return 2
	case sectionTests:
		return 5 // whether the tests pass decides between done and another round
	}
	return 4
}

// bound is a budget for the ledger's text in the tokens size
// measures.
type bound struct {
	budget int
	size   func(string) int
}

// rooms are what each bound leaves as lines are added.
type rooms []int

// take takes a line, with the newline before it, from every room if it
// fits them all.
func (r rooms) take(bounds []bound, line string) bool {
	for i, b := range bounds {
		if b.size("\n"+line) > r[i] {
			return false
		}
	}
	for i, b := range bounds {
		r[i] -= b.size("\n" + line)
	}
	return true
}

// Fit is the ledger's text within budget tokens as count counts
// them and within room as size measures them, boundary its boundary's
// uuid. Lines are measured by the counter's tokens per byte over all the
// ledger's lines (paths, commands and numbers split into tokens alike, so
// the rate holds line by line far better than a general estimate), and
// the text is counted whole: when it is over, or leaves more than a
// hundredth of its share while it folds entries, the rate is moved by as
// much and the text made again, four times at most, and the fullest that
// fits is kept. So a compaction counts a few texts, however long the
// ledger, and the ledger takes its share and never more.
func Fit(l *storage.Ledger, budget, room int, size, count func(string) int, boundary string) string {
	if empty(l) {
		return ""
	}
	var b strings.Builder
	b.WriteString(heading)
	for _, e := range entries(l) {
		b.WriteString("\n" + e.Line)
	}
	rate := float64(count(b.String())) / float64(b.Len())
	best, bestN := "", 0
	for range 4 {
		r := rate
		counted := func(s string) int { return int(math.Round(float64(len(s)) * r)) }
		text := render(l, []bound{{budget, counted}, {room, size}}, boundary)
		n := count(text)
		if n <= budget && n > bestN {
			best, bestN = text, n
		}
		if n <= budget && (budget-n <= budget/100 || !strings.Contains(text, foldedStart)) {
			break // as full as a line more could make it, or nothing folded
		}
		rate *= float64(n+1) / float64(budget)
	}
	if best == "" {
		best = render(l, []bound{{budget, count}, {room, size}}, boundary)
	}
	return best
}

// render is the ledger as the model reads it, within every bound
// ("" = an empty ledger). Lines that do not fit are folded, least weight
// and oldest first, and counted; boundary is the uuid of the compaction's
// boundary record, which Recall opens as the whole ledger, each entry
// with its ref (Listing): one ref keeps every folded entry
// one call away.
func render(l *storage.Ledger, bounds []bound, boundary string) string {
	if empty(l) {
		return ""
	}
	items := weighed(l)
	byWeight := append([]item(nil), items...)
	sort.SliceStable(byWeight, func(i, j int) bool {
		if byWeight[i].weight != byWeight[j].weight {
			return byWeight[i].weight > byWeight[j].weight
		}
		return byWeight[i].order > byWeight[j].order
	})
	// Sizes are summed line by line, each with its newline; the headings
	// and the folded note are reckoned whole.
	rooms := make(rooms, len(bounds))
	for i, b := range bounds {
		rooms[i] = b.budget - b.size(heading) - b.size("\n"+foldedNote(len(items), boundary))
		for _, h := range sections {
			rooms[i] -= b.size("\n" + h)
		}
	}
	// Strictly by weight: once one does not fit, the rest fold too, so a
	// small line never stays where a weightier one was folded.
	kept := map[int]bool{}
	folded := 0
	for _, it := range byWeight {
		if folded == 0 && rooms.take(bounds, it.Line) {
			kept[it.order] = true
		} else {
			folded++
		}
	}
	var b strings.Builder
	b.WriteString(heading)
	section := -1
	for _, it := range items {
		if !kept[it.order] {
			continue
		}
		if it.Section != section {
			section = it.Section
			b.WriteString("\n" + sections[section])
		}
		b.WriteString("\n" + it.Line)
	}
	if folded > 0 {
		b.WriteString("\n" + foldedNote(folded, boundary))
	}
	return b.String()
}

// foldedStart opens the folded note.
const foldedStart = "Folded for room:"

// foldedNote says how many entries were folded and the ref that lists
// them.
func foldedNote(n int, boundary string) string {
	return fmt.Sprintf("%s %d entries; Recall ref=%s lists the whole ledger, each entry with the ref of its call.",
		foldedStart, n, shortRef(boundary))
}
