package slash

import (
	"fmt"
	"strings"

	contextmgr "github.com/clawdcode/clawdcode/internal/context"
	"github.com/clawdcode/clawdcode/internal/mcphost"
	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/termtext"
)

const barCells = 30

// formatContext renders u for /context: the contract's first line, a bar
// with the trigger marked, the parts (which sum to the total), where the
// window comes from and the distance to auto-compaction. Figures the
// server measured and figures clawdcode estimated are labelled.
func formatContext(u contextmgr.Usage) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Context usage: ~%d / %d tokens (%d%%)\n", u.Tokens, u.Window, u.Used())
	filled := min(barCells, u.Tokens*barCells/max(u.Window, 1))
	mark := min(barCells-1, u.Trigger*barCells/max(u.Window, 1))
	b.WriteString("[")
	for i := range barCells {
		switch {
		case i < filled:
			b.WriteString("█")
		case i == mark:
			b.WriteString("|")
		default:
			b.WriteString("░")
		}
	}
	b.WriteString("]\n")
	if u.Measured > 0 {
		fmt.Fprintf(&b, "  measured by the server: %d tokens (the last request); estimated since: %d tokens\n", u.Measured, u.Tokens-u.Measured)
	} else {
		b.WriteString("  estimated by clawdcode (no request measured by the server yet)\n")
	}
	for _, row := range []struct {
		name string
		n    int
	}{{"system prompt", u.System}, {"pins", u.Pins}, {"tools", u.Tools}, {"MCP tools", u.MCPTools}, {"summary", u.Summary}, {"messages", u.Messages}, {"images", u.Images}} {
		if (row.name == "pins" || row.name == "MCP tools" || row.name == "images") && row.n == 0 {
			continue
		}
		fmt.Fprintf(&b, "  %-14s %7d tokens (%d%%)\n", row.name, row.n, percent(row.n, u.Window))
	}
	if u.Scaled {
		b.WriteString("  (the parts are clawdcode's measures scaled to the server's count)\n")
	}
	if u.Brief {
		b.WriteString("  (brief system prompt and tools: the session started with a small window)\n")
	}
	writeMCPOffer(&b, u.MCP)
	fmt.Fprintf(&b, "model %s (tokenizer %s); window %d tokens from %s", u.Model, u.Encoding, u.Configured, u.Source)
	switch {
	case u.Learnt > 0 && u.Explicit:
		fmt.Fprintf(&b, "; a server once rejected requests over %d tokens (ignored: the window was given explicitly)", u.Learnt)
	case u.Learnt > 0:
		fmt.Fprintf(&b, "; learnt from the server's rejection: %d tokens (/context --reset-window forgets it)", u.Learnt)
	}
	b.WriteString("\n")
	if away := u.Trigger - u.Tokens; away > 0 {
		fmt.Fprintf(&b, "auto-compaction at %d tokens (%d%% / %d tokens away)\n", u.Trigger, percent(u.Trigger, u.Window), away)
	} else {
		fmt.Fprintf(&b, "auto-compaction at %d tokens (%d%% / reached: the next request compacts first)\n", u.Trigger, percent(u.Trigger, u.Window))
	}
	if u.Cleared > 0 || len(u.Ladder) > 0 {
		fmt.Fprintf(&b, "cleared tool results: %d sent as a one-line stub or folded into one line (Recall with the ref shows one in full)\n", u.Cleared)
		if len(u.Ladder) > 0 {
			b.WriteString("Context ladder since the last compaction:\n")
			writeLadder(&b, u.Ladder)
		}
	}
	if u.Receipt != nil {
		b.WriteString("Last compaction:\n")
		writeReceipt(&b, u.Receipt)
	}
	writeLedger(&b, u.Ledger)
	return b.String()
}

// ladderStepNames say what each step of the context ladder did.
var ladderStepNames = map[string]string{
	storage.ClearStepOld:        "cleared old tool results",
	storage.ClearStepSuperseded: "dropped superseded reads",
	storage.ClearStepCollapse:   "folded old calls into one line each",
	storage.LadderStepSummary:   "summarised",
}

// writeLadder prints the context ladder's steps, with the tokens each freed.
func writeLadder(b *strings.Builder, steps []storage.LadderStep) {
	for _, s := range steps {
		name := ladderStepNames[s.Step]
		if name == "" {
			name = s.Step
		}
		if s.Results > 0 {
			fmt.Fprintf(b, "  %s (%d): -%s tokens\n", name, s.Results, thousands(s.Freed))
		} else {
			fmt.Fprintf(b, "  %s: -%s tokens\n", name, thousands(s.Freed))
		}
	}
}

// ledgerItems bounds the files and the commands /context and /compact
// list from the ledger (the most recent); the model is given more.
const ledgerItems = 12

// writeLedger prints the evidence ledger in force: its counts, then the
// most recent files and commands.
func writeLedger(b *strings.Builder, l *storage.Ledger) {
	if l == nil || len(l.Files)+len(l.Commands)+len(l.Tests)+len(l.Numbers)+len(l.Errors) == 0 {
		return
	}
	failed := 0
	for _, c := range l.Commands {
		if c.Exit != 0 {
			failed++
		}
	}
	fmt.Fprintf(b, "Evidence ledger (read from the tool records, given to the model after the summary): %d files, %d commands (%d failed), %d test results, %d numbers, %d errors\n",
		len(l.Files), len(l.Commands), failed, len(l.Tests), len(l.Numbers), len(l.Errors))
	for _, f := range l.Files[max(0, len(l.Files)-ledgerItems):] {
		fmt.Fprintf(b, "  %s  %s %s\n", termtext.FirstLine(f.Path, 80, termtext.Ellipsis), f.Op, f.Lines)
	}
	for _, c := range l.Commands[max(0, len(l.Commands)-ledgerItems):] {
		status := fmt.Sprintf("exit status %d", c.Exit)
		if c.Exit < 0 {
			status = "did not exit"
		}
		fmt.Fprintf(b, "  $ %s  %s\n", termtext.FirstLine(c.Command, 80, termtext.Ellipsis), status)
	}
}

// receiptItems bounds each list a receipt prints; the record keeps more.
const receiptItems = 20

// writeReceipt prints a compaction's receipt: what it took out of the
// context, and what of that the summary does not mention (recallable).
func writeReceipt(b *strings.Builder, r *storage.Receipt) {
	if len(r.Ladder) > 1 {
		b.WriteString("  the context ladder, in order:\n")
		writeLadder(b, r.Ladder)
	}
	fmt.Fprintf(b, "  took out %d messages (~%d tokens)\n", r.Messages, r.Tokens)
	if u := r.SummaryUsage; u != nil {
		fmt.Fprintf(b, "  the summary calls used %s input and %s output tokens", thousands(u.InputTokens), thousands(u.OutputTokens))
		if r.SummaryCost != nil {
			fmt.Fprintf(b, ": %s", dollars(*r.SummaryCost))
		}
		b.WriteString("\n")
	}
	if r.CacheBroken > 0 {
		fmt.Fprintf(b, "  it sends %s tokens the prompt cache cannot have (the summary calls' uncached input, the next request after the system prompt and tools)", thousands(r.CacheBroken))
		if r.CacheBrokenCost != nil {
			fmt.Fprintf(b, ": %s above the cached price", dollars(*r.CacheBrokenCost))
		}
		b.WriteString("\n")
	}
	list := func(name string, all, missing []string) {
		if len(all) == 0 {
			return
		}
		fmt.Fprintf(b, "  %s (%d): %s\n", name, len(all), joinBounded(all))
		if len(missing) > 0 {
			fmt.Fprintf(b, "    not in the summary, recallable (%d): %s\n", len(missing), joinBounded(missing))
		}
	}
	list("paths", r.Paths, r.NotInSummary.Paths)
	list("commands", r.Commands, r.NotInSummary.Commands)
}

func joinBounded(items []string) string {
	shown := items[:min(len(items), receiptItems)]
	var parts []string
	for _, s := range shown {
		parts = append(parts, termtext.FirstLine(s, 80, termtext.Ellipsis))
	}
	out := strings.Join(parts, ", ")
	if n := len(items) - len(shown); n > 0 {
		out += fmt.Sprintf(", … (%d more)", n)
	}
	return out
}

// formatCompact renders a compaction's outcome for /compact.
func formatCompact(r *contextmgr.CompactResult) string {
	var b strings.Builder
	sign, change := "-", r.PreTokens-r.PostTokens
	if change < 0 {
		sign, change = "+", -change
	}
	fmt.Fprintf(&b, "Compacted: %d → %d tokens (%s%d%%)\n", r.PreTokens, r.PostTokens, sign, percent(change, r.PreTokens))
	if len(r.Files) > 0 {
		fmt.Fprintf(&b, "Files included: %s\n", strings.Join(r.Files, ", "))
	} else {
		b.WriteString("Files included: none\n")
	}
	if r.Fallback {
		fmt.Fprintf(&b, "(fallback: summary failed: %s)\n", r.Err)
	}
	if r.Receipt != nil {
		b.WriteString("Receipt:\n")
		writeReceipt(&b, r.Receipt)
	}
	writeLedger(&b, r.Ledger)
	return b.String()
}

func percent(n, of int) int {
	if of <= 0 {
		return 0
	}
	return int(float64(n)*100/float64(of) + 0.5)
}

// writeMCPOffer says how the MCP servers' tools go out, and why: the rule
// (contextmgr.MCPShare) with the figures it decided on.
func writeMCPOffer(b *strings.Builder, o contextmgr.MCPOffer) {
	if o.Tools == 0 {
		return
	}
	share := int(contextmgr.MCPShare * 100)
	if o.OnDemand {
		fmt.Fprintf(b, "  MCP: the servers' %d tools weigh %d tokens, over %d%% of the window (%d): sent on demand through %s and %s\n",
			o.Tools, o.Tokens, share, o.Budget, mcphost.SearchToolName, mcphost.CallToolName)
		return
	}
	about := ""
	if o.Estimated {
		about = "~" // their byte bound is within the share: not counted
	}
	fmt.Fprintf(b, "  MCP: all %d tools of the servers sent with every request (%s%d tokens, within %d%% of the window: %d)\n",
		o.Tools, about, o.Tokens, share, o.Budget)
}
