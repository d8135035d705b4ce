package contextmgr

import (
	"fmt"
	"strings"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// The ladder's collapse step (after clear and superseded, before the
// summary): once old tool results are stubs, what is left of each old
// round — an empty reply, its calls and their stubs, some 95 tokens at 4k
// — still grows with every call, and at a small window it is what brings
// the summary on. The step takes whole old rounds whose results are all
// cleared out of the request (the reply, its tool_use and tool_result
// records send nothing: storage.ClearStepCollapse) and lists each of their
// results as one line — tool, file, the numbers its stub kept, its Recall
// ref — in the stub of the newest round taken (storage.ClearStepIndex),
// which stays. So the request keeps valid tool rounds, and what a cleared
// result held stays one Recall away.

// round is one old reply that sends only calls whose results are cleared:
// its entries, in order, and its last tool result.
type round struct {
	entries []*entry
	last    *entry
}

// collapsible lists the rounds of es before index upto that the step may
// take: a reply with no text, then only its calls and their results, each
// result cleared (or too small to be worth a stub), none taken yet.
func collapsible(a *accountant, es []*entry, upto int) []round {
	var out []round
	for i := 0; i < upto; i++ {
		if es[i].rec.Type != storage.TypeAssistant {
			continue
		}
		j := i + 1
		for j < upto && (es[j].rec.Type == storage.TypeToolUse || es[j].rec.Type == storage.TypeToolResult) {
			j++
		}
		if rd, ok := roundOf(a, es[i:j]); ok {
			out = append(out, rd)
		}
		i = j - 1
	}
	return out
}

// roundOf is the round of es (a reply and what follows it), when it can
// be collapsed.
func roundOf(a *accountant, es []*entry) (round, bool) {
	if messageContent(es[0].rec) != "" || es[0].rec.Incomplete != "" || es[0].cleared == storage.ClearStepCollapse {
		return round{}, false
	}
	calls, results := 0, 0
	rd := round{entries: es}
	for _, e := range es[1:] {
		if e.rec.Type == storage.TypeToolUse {
			calls++
			continue
		}
		if e.rec.UUID == "" || (e.cleared == "" && a.approx(e) >= ladder.minResult) {
			return round{}, false
		}
		results++
		rd.last = e
	}
	return rd, calls > 0 && calls == results
}

// planCollapse picks the rounds to take: every collapsible round before
// the protected tail but the newest, which carries their index.
func planCollapse(a *accountant, es []*entry, r int) (taken []round, carrier *entry) {
	rounds := collapsible(a, es, protectedFrom(a, es, r))
	if len(rounds) < 2 {
		return nil, nil
	}
	return rounds[:len(rounds)-1], rounds[len(rounds)-1].last
}

// collapseFreed is about what taking rounds would free, by approx: their
// weight less the index lines they leave.
func collapseFreed(a *accountant, es []*entry, rounds []round) int {
	n := 0
	for _, rd := range rounds {
		for _, e := range rd.entries {
			n += a.approx(e)
			if e.rec.Type == storage.TypeToolResult {
				n -= a.approxText(indexLine(a.opt.Root, es, e)) + 2
			}
		}
	}
	return n
}

// collapseStep takes the collapse step when it frees enough, and returns
// the request's size after it.
func collapseStep(m *Manager, n, fixed, r int) (int, error) {
	es := m.live.entries()
	rounds, carrier := planCollapse(m.acct, es, r)
	if len(rounds) == 0 || collapseFreed(m.acct, es, rounds) < int(ladder.minFreed*float64(n-fixed)) {
		return n, nil
	}
	var plan []*entry
	for _, rd := range rounds {
		for _, e := range rd.entries {
			collapseEntry(m.acct, e)
			plan = append(plan, e)
		}
	}
	indexEntry(m.acct, es, carrier)
	after := m.acct.requestTokens(exact)
	steps := stepsOf(plan, storage.ClearStepCollapse)
	steps[carrier.rec.UUID] = storage.ClearStepIndex
	if err := recordSteps(m.log, steps, n, after); err != nil {
		return n, err
	}
	folded := foldedResults(es, steps)
	m.ladder.note(storage.ClearStepCollapse, folded, n-after)
	m.notify(NoticeCleared, "folded %d old tool calls whose results were cleared into one line each (their content is one Recall away): %d → %d tokens", folded, n, after)
	m.diag.Info("context ladder", "step", storage.ClearStepCollapse, "rounds", len(rounds), "pre_tokens", n, "post_tokens", after)
	return after, nil
}

// collapseEntry makes e send nothing (a system record, which no message
// is made of).
func collapseEntry(a *accountant, e *entry) {
	e.trunc = &storage.Record{UUID: e.rec.UUID, Type: storage.TypeSystem, Subtype: storage.SubtypeContextClear}
	e.truncLimit, e.cleared = 0, storage.ClearStepCollapse
	e.ub, e.exact, e.est = 0, 0, 0
	a.invalidate()
}

// reindex makes every index among es list what is collapsed before it
// now: after a resume has applied every step, and after a compaction took
// out the oldest rounds, each index says what the live context holds.
func reindex(a *accountant, es []*entry) {
	for _, e := range es {
		if e.cleared == storage.ClearStepIndex {
			indexEntry(a, es, e)
		}
	}
}

// indexEntry makes e, a tool result among es, send the index of the
// results collapsed before it (back to the previous index), its own line
// last.
func indexEntry(a *accountant, es []*entry, e *entry) {
	var lines []string
	for _, o := range es {
		if o == e {
			break
		}
		switch {
		case o.cleared == storage.ClearStepIndex:
			lines = lines[:0]
		case o.cleared == storage.ClearStepCollapse && o.rec.Type == storage.TypeToolResult:
			lines = append(lines, indexLine(a.opt.Root, es, o))
		}
	}
	lines = append(lines, indexLine(a.opt.Root, es, e))
	t := *e.rec
	tr := *e.rec.ToolResult
	tr.Output, tr.Error = fmt.Sprintf("[cleared to save context, %d calls, one line each; Recall ref shows what it returned:\n%s]",
		len(lines), strings.Join(lines, "\n")), ""
	t.ToolResult = &tr
	e.trunc, e.truncLimit, e.cleared = &t, 0, storage.ClearStepIndex
	a.resized(e)
}

// indexLine is the one line an index gives a result: its call, outcome,
// the named numbers its stub kept, and its ref.
func indexLine(root string, es []*entry, e *entry) string {
	res := e.rec.ToolResult
	line := resultWhat(root, es, e)
	if res.Error != "" {
		line += " failed"
	}
	for _, n := range stubFacts(res) {
		line += "; " + n
	}
	return line + " ref=" + stubRef(e.rec.UUID)
}

// clearedResults counts the tool results of es the ladder sends as a stub,
// an index, or folded into one.
func clearedResults(es []*entry) int {
	n := 0
	for _, e := range es {
		if e.cleared != "" && e.rec.Type == storage.TypeToolResult {
			n++
		}
	}
	return n
}

// foldedResults counts the tool results of es that steps folds (the index
// among them included): what a collapse step reports.
func foldedResults(es []*entry, steps map[string]string) int {
	n := 0
	for _, e := range es {
		if _, ok := steps[e.rec.UUID]; ok && e.rec.Type == storage.TypeToolResult {
			n++
		}
	}
	return n
}
