package contextmgr

import (
	"context"
	"errors"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// Draft is a compaction's summary and receipt, written but not applied
// (/compact --preview). Nothing is written to the session until Apply.
type Draft struct {
	Summary   string // the summary as it would be stored, without the preamble and the recall note
	Receipt   *storage.Receipt
	Files     []string
	PreTokens int

	m       *Manager
	cut     int
	entries int // len(live.entries) when drafted: Apply refuses a context that moved on
	first   *entry
}

// ErrDraftStale: the context changed between the draft and its Apply.
var ErrDraftStale = errors.New("the conversation changed since the draft was written; preview again")

// Preview writes the summary a manual compaction would store, and its
// receipt, without applying or writing anything. A summary that fails is
// an error here: there is nothing to show.
func (m *Manager) Preview(ctx context.Context, instructions string) (*Draft, error) {
	if m.opt.LLM == nil {
		return nil, errors.New("no summarizer configured")
	}
	pre := m.acct.requestTokens(exact)
	cut, ok := m.keep.cut(keepFraction)
	if !ok {
		return nil, ErrNothingToCompact
	}
	dropped := m.live.entries()[:cut]
	text, files, _, err := m.sum.summarize(ctx, m.live.summary(), dropped, instructions, m.acct.messages)
	if err != nil {
		m.usage.summaries.Add(m.sum.takeUsage())
		return nil, err
	}
	rcpt := receipt(m.acct, m.opt.Root, dropped, text)
	m.usage.charge(rcpt, m.sum.takeUsage(), m.opt.Prices, m.opt.Model)
	return &Draft{m: m, Summary: text, Receipt: rcpt, Files: files, PreTokens: pre,
		cut: cut, entries: len(m.live.entries()), first: m.live.entries()[0]}, nil
}

// Apply commits the draft as a manual compaction of the manager it was
// drafted from, with text as its summary (the draft's own, or the user's
// edit of it; the receipt's notInSummary is checked against the text
// stored). ErrDraftStale when that context moved on since.
func (d *Draft) Apply(text string) (*CompactResult, error) {
	if d == nil {
		return nil, ErrDraftStale
	}
	m := d.m
	if len(m.live.entries()) != d.entries || d.entries == 0 || m.live.entries()[0] != d.first {
		return nil, ErrDraftStale
	}
	rcpt := d.Receipt
	if text != d.Summary {
		rcpt = receipt(m.acct, m.opt.Root, m.live.entries()[:d.cut], text)
		rcpt.SummaryUsage, rcpt.SummaryCost = d.Receipt.SummaryUsage, d.Receipt.SummaryCost
	}
	content := summaryPreamble + "\n\n" + text + recallNote(rcpt)
	carried := m.work.carryOver(compactionInput(m, d.cut, content))
	m.back.succeeded()
	res, err := m.commit(storage.TriggerManual, d.PreTokens, d.cut, content+carried.afterword, d.Files, nil, rcpt, carried)
	if err != nil {
		return nil, err
	}
	m.notify(NoticeCompacted, "compacted: %d → %d tokens", res.PreTokens, res.PostTokens)
	return res, nil
}
