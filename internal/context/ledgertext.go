package contextmgr

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// ledgerHeading opens the ledger's text.
const ledgerHeading = "Evidence ledger (read from the tool records, not from the summary; it holds where they disagree):"

// ledgerItem is one line of the ledger's text and how much it matters:
// what does not fit the budget is folded, least weight and oldest first.
type ledgerItem struct {
	storage.LedgerEntry
	order, weight int
}

// ledgerItems lists l's lines (storage.Ledger.Entries) with their
// weights: what changed the work (edits, writes, failures, errors) weighs
// most, a read or a command that succeeded least; a read that showed
// numbers weighs more than a number a search printed.
func ledgerItems(l *storage.Ledger) []ledgerItem {
	entries := l.Entries()
	items := make([]ledgerItem, len(entries))
	for i, e := range entries {
		items[i] = ledgerItem{LedgerEntry: e, order: i, weight: entryWeight(e)}
	}
	return items
}

// entryWeight is how much an entry of the ledger matters.
func entryWeight(e storage.LedgerEntry) int {
	switch e.Section {
	case storage.LedgerSectionFiles:
		switch {
		case e.Op != "read":
			return 5
		case e.HasNumbers:
			return 3
		}
		return 1
	case storage.LedgerSectionCommands:
		if e.Exit == 0 {
			return 2
		}
		return 5
	case storage.LedgerSectionNumbers:
		return 2
	}
	return 4
}

// ledgerBound is a budget for the ledger's text in the tokens size
// measures.
type ledgerBound struct {
	budget int
	size   func(string) int
}

// ledgerRooms are what each bound leaves as lines are added.
type ledgerRooms []int

// take takes a line, with the newline before it, from every room if it
// fits them all.
func (r ledgerRooms) take(bounds []ledgerBound, line string) bool {
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

// fitLedger is the ledger's text within budget tokens as count counts
// them and within room as size measures them, boundary its boundary's
// uuid. Lines are measured by the counter's tokens per byte over all the
// ledger's lines (paths, commands and numbers split into tokens alike, so
// the rate holds line by line far better than a general estimate), and
// the text is counted whole: when it is over, or leaves more than a
// hundredth of its share while it folds entries, the rate is moved by as
// much and the text made again, four times at most, and the fullest that
// fits is kept. So a compaction counts a few texts, however long the
// ledger, and the ledger takes its share and never more.
func fitLedger(l *storage.Ledger, budget, room int, size, count func(string) int, boundary string) string {
	if ledgerEmpty(l) {
		return ""
	}
	var b strings.Builder
	b.WriteString(ledgerHeading)
	for _, e := range l.Entries() {
		b.WriteString("\n" + e.Line)
	}
	rate := float64(count(b.String())) / float64(b.Len())
	best, bestN := "", 0
	for range 4 {
		r := rate
		counted := func(s string) int { return int(math.Round(float64(len(s)) * r)) }
		text := ledgerText(l, []ledgerBound{{budget, counted}, {room, size}}, boundary)
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
		best = ledgerText(l, []ledgerBound{{budget, count}, {room, size}}, boundary)
	}
	return best
}

// ledgerText is the ledger as the model reads it, within every bound
// ("" = an empty ledger). Lines that do not fit are folded, least weight
// and oldest first, and counted; boundary is the uuid of the compaction's
// boundary record, which Recall opens as the whole ledger, each entry
// with its ref (storage.Ledger.Listing): one ref keeps every folded entry
// one call away.
func ledgerText(l *storage.Ledger, bounds []ledgerBound, boundary string) string {
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
	// Sizes are summed line by line, each with its newline; the headings
	// and the folded note are reckoned whole.
	rooms := make(ledgerRooms, len(bounds))
	for i, b := range bounds {
		rooms[i] = b.budget - b.size(ledgerHeading) - b.size("\n"+foldedNote(len(items), boundary))
		for _, h := range storage.LedgerSections {
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
	b.WriteString(ledgerHeading)
	section := -1
	for _, it := range items {
		if !kept[it.order] {
			continue
		}
		if it.Section != section {
			section = it.Section
			b.WriteString("\n" + storage.LedgerSections[section])
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
		foldedStart, n, storage.ShortRef(boundary))
}
