package contextmgr

import (
	"fmt"
	"strings"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/fileanalyzer"
	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/termtext"
	"github.com/clawdcode/clawdcode/internal/tokens"
)

// Bounds of a receipt: the record keeps at most receiptMaxItems paths and
// commands (each command cut to receiptCommandBytes), and the summary
// message lists at most noteMaxItems of each that the summary left out.
const (
	receiptMaxItems     = 200
	receiptCommandBytes = 300
	noteMaxItems        = 12
)

// receipt says what a compaction takes out of the context: the dropped
// entries (the summary in force is replaced too, but its own receipt
// covered its range), their messages and tokens (as a sizes them), the
// paths and commands their tool calls name (relative to root), and which
// of those summary does not mention.
func receipt(a *accountant, root string, dropped []*entry, summary string) *storage.Receipt {
	r := &storage.Receipt{Paths: []string{}, Commands: []string{},
		NotInSummary: storage.NotInSummary{Paths: []string{}, Commands: []string{}}}
	if len(dropped) == 0 {
		return r
	}
	msgs := make([]chat.Message, 0, len(dropped))
	for _, e := range dropped {
		rec := e.rec
		switch rec.Type {
		case storage.TypeUser, storage.TypeAssistant:
			r.Messages++
		case storage.TypeToolUse:
			// The paths and commands come from the tools' arguments only.
			msgs = append(msgs, chat.Message{Role: chat.RoleAssistant,
				ToolCalls: []chat.ToolCall{{ID: rec.Tool.ID, Name: rec.Tool.Name, Arguments: string(rec.Tool.Input)}}})
		case storage.TypeToolResult:
			r.Messages++
		}
		r.Tokens += a.size(e, estimate)
	}
	r.First, r.Last = dropped[0].rec.UUID, dropped[len(dropped)-1].rec.UUID
	paths, commands := fileanalyzer.Touched(root, msgs)
	for _, c := range commands {
		r.Commands = append(r.Commands, cutUTF8(c, receiptCommandBytes))
	}
	r.Paths = append(r.Paths, paths...)
	for _, p := range r.Paths {
		if !strings.Contains(summary, p) {
			r.NotInSummary.Paths = append(r.NotInSummary.Paths, p)
		}
	}
	for _, c := range r.Commands {
		if !strings.Contains(summary, c) {
			r.NotInSummary.Commands = append(r.NotInSummary.Commands, c)
		}
	}
	r.Paths, r.Commands = capList(r.Paths), capList(r.Commands)
	r.NotInSummary.Paths, r.NotInSummary.Commands = capList(r.NotInSummary.Paths), capList(r.NotInSummary.Commands)
	return r
}

// charge adds u, what the summary calls since the last charge used, to
// the session's summary usage and to r, with their cost at model's price
// in prices when it is known.
func (t *usageTally) charge(r *storage.Receipt, u storage.Usage, prices tokens.Prices, model string) {
	if u == (storage.Usage{}) {
		return
	}
	t.summaries.Add(u)
	r.SummaryUsage = &u
	if p, ok := prices.Of(model); ok {
		c := p.Cost(u.InputTokens, u.CacheReadInputTokens, u.OutputTokens)
		r.SummaryCost = &c
	}
}

// brokenCache notes on r the tokens a compaction sends that the server's
// prompt cache cannot have — n: its summary calls' input the server did
// not serve from its cache (uncached), and the next request's after the
// system prompt and tools, which stay a cached prefix — and what sending
// them uncached costs above the cached price, at the prices in force.
func brokenCache(r *storage.Receipt, n int, prices tokens.Prices, model string) {
	r.CacheBroken = max(n, 0)
	if p, ok := prices.Of(model); ok && r.CacheBroken > 0 {
		c := p.Cost(r.CacheBroken, 0, 0) - p.Cost(r.CacheBroken, r.CacheBroken, 0)
		r.CacheBrokenCost = &c
	}
}

// uncached is the input of the calls u sums up that the server did not
// serve from its prompt cache, as it reported (nil: no call).
func uncached(u *storage.Usage) int {
	if u == nil {
		return 0
	}
	return max(u.InputTokens-u.CacheReadInputTokens, 0)
}

// summaryRecord is the session's summary usage for a boundary (nil when
// no summary call was ever made).
func (t *usageTally) summaryRecord() *storage.Usage {
	if t.summaries == (storage.Usage{}) {
		return nil
	}
	u := t.summaries
	return &u
}

// subagentRecord is the session's subagent usage for a boundary (nil
// when no Task ran).
func (t *usageTally) subagentRecord() *storage.Usage {
	if t.subagents == (storage.Usage{}) {
		return nil
	}
	u := t.subagents
	return &u
}

func capList(l []string) []string {
	if len(l) > receiptMaxItems {
		return l[:receiptMaxItems]
	}
	return l
}

// recallNoteStart opens the note; summaryBody cuts it off, so that a
// summary folded into the next one does not carry its refs along.
const recallNoteStart = "\n\nRecall:"

// recallNote ends a summary message: the exact details of what it replaced
// are still stored and can be recalled, with the refs of that range and
// what the summary left out (bounded).
func recallNote(r *storage.Receipt) string {
	if r == nil || r.Messages == 0 {
		return ""
	}
	// (The note begins with recallNoteStart, blank line included.)
	var b strings.Builder
	b.WriteString(recallNoteStart)
	fmt.Fprintf(&b, " the %d messages this summary replaced (refs %s … %s) are stored word for word. "+
		"When an exact detail matters — a path, a command and its output, an error message, a number, what the user said — "+
		"find it with the Recall tool (query words, or ref a uuid) instead of guessing.", r.Messages, r.First, r.Last)
	list := func(name string, items []string, quote bool) {
		if len(items) == 0 {
			return
		}
		shown := items[:min(len(items), noteMaxItems)]
		fmt.Fprintf(&b, "\nNot in this summary, recallable — %s: ", name)
		for i, it := range shown {
			if i > 0 {
				b.WriteString(", ")
			}
			if quote {
				it = "`" + termtext.Flatten(it, 120) + "`"
			}
			b.WriteString(it)
		}
		if n := len(items) - len(shown); n > 0 {
			fmt.Fprintf(&b, " (and %d more)", n)
		}
	}
	list("paths", r.NotInSummary.Paths, false)
	list("commands", r.NotInSummary.Commands, true)
	return b.String()
}
