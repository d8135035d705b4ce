package contextmgr

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/storage"
)

// CompactResult reports a compaction.
type CompactResult struct {
	PreTokens, PostTokens int
	Files                 []string
	Fallback              bool
	Err                   string // why the summary failed, when Fallback
	// Receipt is what the compaction took out of the context (also on
	// its boundary record).
	Receipt *storage.Receipt
	// Ledger is the evidence ledger in force after it (also on its
	// boundary record).
	Ledger *storage.Ledger
}

// Compact compacts now (trigger storage.TriggerManual or TriggerAuto); the
// instructions, if any, steer the summary. A failed summary is not an
// error: the result says Fallback. Errors are ErrNothingToCompact, a
// cancelled ctx (nothing written then) and a log that cannot be appended to.
//
// It replaces all but the most recent part of the live context by a
// summary: it appends a compact_boundary and a summary record, then makes
// summary + retained records the live context.
func (m *Manager) Compact(ctx context.Context, trigger, instructions string) (*CompactResult, error) {
	pre := m.acct.requestTokens(exact)
	useLLM := m.opt.LLM != nil && m.back.askModel(trigger == storage.TriggerManual)
	frac := keepFraction
	if !useLLM {
		frac = fallbackKeepFraction
	}
	cut, ok := m.keep.cut(frac)
	if !ok {
		return nil, ErrNothingToCompact
	}
	if m.opt.Hooks != nil {
		if more := strings.TrimSpace(m.opt.Hooks.PreCompact(ctx, trigger, instructions)); more != "" {
			instructions = strings.TrimSpace(instructions + "\n" + more)
		}
	}
	started := time.Now()
	m.notify(NoticeCompacting, "compacting the conversation (~%d tokens, %d%% of the %d-token window)…",
		pre, percent(pre, m.guard.effective), m.guard.effective)

	var (
		text     string
		files    []string
		failure  error
		skipped  = !useLLM
		fallback bool
	)
	if useLLM {
		text, files, _, failure = m.sum.summarize(ctx, m.live.summary(), m.live.entries()[:cut], instructions, func() []chat.Message { return recordedMessages(m) })
		if err := ctx.Err(); err != nil {
			m.usage.summaries.Add(m.sum.takeUsage())
			return nil, err
		}
	} else if m.opt.LLM == nil {
		failure = errors.New("no summarizer configured")
	} else {
		m.back.skipped()
		failure = fmt.Errorf("summarizer skipped after %d failures in a row", m.back.streak)
	}
	if failure == nil {
		m.back.succeeded()
	} else {
		fallback = true
		if !skipped {
			m.back.failed()
		}
		if c, ok := m.keep.cut(fallbackKeepFraction); ok {
			cut = c
		}
		text, files = m.sum.digest(m.live.summary(), m.live.entries()[:cut]), nil
	}

	content := summaryPreamble + "\n\n" + text
	if fallback {
		content = fallbackPreamble + "\n\n" + text
	}
	rcpt := receipt(m.acct, m.opt.Root, m.live.entries()[:cut], text)
	m.usage.charge(rcpt, m.sum.takeUsage(), m.opt.Prices, m.opt.Model)
	content += recallNote(rcpt)
	carried := m.work.carryOver(compactionInput(m, cut, content))
	res, err := m.commit(trigger, pre, cut, content+carried.afterword, files, failure, rcpt, carried)
	if err != nil {
		return nil, err
	}
	m.diag.Info("compaction", "trigger", trigger, "pre_tokens", res.PreTokens, "post_tokens", res.PostTokens,
		"messages_removed", cut, "fallback", fallback, "files", len(files), "ms", time.Since(started).Milliseconds())
	if m.opt.Hooks != nil {
		m.opt.Hooks.PostCompact(ctx, trigger, rcpt)
	}
	if fallback {
		m.notify(NoticeFallback, "the summary failed (%v); kept the most recent part of the conversation and a short digest of the rest", failure)
	}
	m.notify(NoticeCompacted, "compacted: %d → %d tokens", res.PreTokens, res.PostTokens)
	return res, nil
}

// commit appends the boundary and summary records and installs summary +
// entries[cut:] as the live context. The retained records are cut down in
// memory when they alone would leave the request above the ceiling; they
// are tokenized only when their byte bound does not settle that. The
// summary message (content, with the afterword) is counted here.
// PostTokens counts what is not counted by the fast estimate, as Usage
// does: the server's next prompt_tokens replaces it anyway.
func (m *Manager) commit(trigger string, pre, cut int, content string, files []string, failure error, rcpt *storage.Receipt, carried compaction) (*CompactResult, error) {
	retained := m.live.entries()[cut:]
	sumRec := &storage.Record{
		UUID:             uuid.NewString(),
		Type:             storage.TypeUser,
		IsCompactSummary: true,
		Message:          &storage.Message{Role: chat.RoleUser, Content: content},
	}
	sum := m.acct.newEntry(sumRec, -1)
	sumTokens := m.acct.countEntry(sum)
	if c := m.keep.ceiling(sumTokens); boundOf(retained) > c && m.acct.sizeOf(retained) > c {
		if n := m.acct.truncateEntries(retained, c); n > 0 {
			m.notify(NoticeTruncated, "cut %d long texts of the kept messages down in memory to fit the window", n)
		}
	}
	fixed := m.acct.fixed()
	post := fixed + sumTokens
	for _, e := range retained {
		post += m.acct.size(e, estimate)
	}

	rcpt.Ladder = append(m.ladder.take(), storage.LadderStep{Step: storage.LadderStepSummary, Freed: max(pre-post, 0)})
	brokenCache(rcpt, post-fixed+uncached(rcpt.SummaryUsage), m.opt.Prices, m.opt.Model)
	usage := m.usage.total()
	boundary := &storage.Record{
		UUID:    carried.boundary,
		Type:    storage.TypeSystem,
		Subtype: storage.SubtypeCompactBoundary,
		Message: &storage.Message{Role: chat.RoleSystem, Content: "Conversation compacted"},
		CompactMetadata: &storage.CompactMetadata{
			Trigger:         trigger,
			PreTokens:       pre,
			RetainedOffset:  retained[0].offset,
			RetainedUUID:    retained[0].rec.UUID,
			SessionUsage:    &usage,
			SummaryUsage:    m.usage.summaryRecord(),
			SubagentUsage:   m.usage.subagentRecord(),
			Truncated:       truncatedLimits(retained),
			Cleared:         clearedSteps(retained),
			BriefForms:      m.forms.brief,
			EffectiveWindow: m.guard.learnt,
			Receipt:         rcpt,
			Pins:            m.pins.pins(),
			Todos:           m.work.todos.list(),
			Ledger:          carried.ledger,
			UserRules:       carried.rules,
		},
	}
	if m.guard.learnt > 0 && !m.guard.learntAt.IsZero() {
		at := m.guard.learntAt
		boundary.CompactMetadata.EffectiveWindowAt = &at
	}
	meta := &storage.CompactMetadata{Trigger: trigger, PreTokens: pre, PostTokens: post, FilesIncluded: files,
		Failures: m.back.streak, SkipsLeft: m.back.skipLeft}
	if failure != nil {
		meta.Fallback, meta.Error = true, failure.Error()
	}
	sumRec.CompactMetadata = meta
	sumRec.Tokens = sumTokens
	off, err := appendCompaction(m.log, boundary, sumRec)
	if err != nil {
		return nil, err
	}
	sum.offset = off

	clipped, err := m.live.install(sum, retained)
	for _, e := range clipped {
		m.acct.resized(e)
	}
	if err != nil {
		return nil, err
	}
	reindex(m.acct, m.live.entries())
	m.usage.rebase(usage)
	m.compactions++
	m.acct.invalidate()
	m.lastReceipt = rcpt
	m.work.ledger, m.work.rules = carried.ledger, carried.rules
	return &CompactResult{PreTokens: pre, PostTokens: post, Files: files, Fallback: failure != nil, Err: meta.Error, Receipt: rcpt, Ledger: carried.ledger}, nil
}

// recordedMessages are the live context's messages as recorded, cleared
// and folded results whole: which files the conversation touched, for the
// summary's file contents, does not change when the ladder clears what
// their calls returned.
func recordedMessages(m *Manager) []chat.Message {
	held := m.live.entries()
	recs := make([]*storage.Record, 0, len(held))
	for _, e := range held {
		recs = append(recs, e.rec)
	}
	msgs, _ := buildMessages(recs)
	return msgs
}

// appendCompaction writes the boundary and the summary, with one write
// when the log can: two appends leave a window in which a crash keeps the
// boundary without its summary. It returns the summary's offset.
func appendCompaction(log PersistentStore, boundary, summary *storage.Record) (int64, error) {
	if b, ok := log.(batchLog); ok {
		offs, err := b.AppendBatch(boundary, summary)
		if err != nil {
			return 0, fmt.Errorf("append compact boundary and summary: %w", err)
		}
		if len(offs) != 2 {
			return 0, fmt.Errorf("append compact boundary and summary: the log returned %d offsets for 2 records", len(offs))
		}
		return offs[1], nil
	}
	if _, err := log.Append(boundary); err != nil {
		return 0, fmt.Errorf("append compact boundary: %w", err)
	}
	off, err := log.Append(summary)
	if err != nil {
		return 0, fmt.Errorf("append compact summary: %w", err)
	}
	return off, nil
}

// retention decides what a compaction keeps verbatim, by the accounting's
// sizes and the window guard's budgets.
type retention struct {
	acct  *accountant
	guard *windowGuard
}

// cut picks the first retained record: entries[cut:] is kept
// verbatim, entries[:cut] summarised. ok is false when nothing would be
// dropped.
//
// The kept part is the most recent records worth at most frac of the live
// messages' tokens (by approx), and at most frac of the window, starting
// at a user record. When the last user turn alone is larger, it
// is kept whole if it stays under the post-compaction ceiling; otherwise
// the cut falls inside it, at an assistant reply (the summary, a user
// message, then precedes it). Cuts are only ever made before a user or an
// assistant record, so a tool call always stays with its results.
func (k retention) cut(frac float64) (cut int, ok bool) {
	entries := k.acct.live.entries()
	n := len(entries)
	if n == 0 {
		return 0, false
	}
	// Sized by approx, not counted: how much is kept verbatim is a share,
	// not a bound; commit makes sure the kept part fits the ceiling.
	tail := make([]int, n+1)
	for i := n - 1; i >= 0; i-- {
		tail[i] = tail[i+1] + k.acct.approx(entries[i])
	}
	ceiling := k.ceiling(k.guard.summaryMax())
	budget := min(int(frac*float64(min(tail[0], k.guard.effective))), ceiling)
	isType := func(i int, t string) bool { return entries[i].rec.Type == t }

	cut = -1
	for i := n - 1; i >= 0 && tail[i] <= budget; i-- {
		if isType(i, storage.TypeUser) {
			cut = i
		}
	}
	if cut >= 0 {
		return cut, cut > 0
	}
	lastUser := -1
	for i := n - 1; i >= 0; i-- {
		if isType(i, storage.TypeUser) {
			lastUser = i
			break
		}
	}
	if lastUser > 0 && tail[lastUser] <= ceiling {
		return lastUser, true
	}
	latest, earliestFit := -1, -1
	for i := n - 1; i > max(lastUser, 0); i-- {
		if !isType(i, storage.TypeAssistant) {
			continue
		}
		if latest < 0 {
			latest = i
		}
		if tail[i] <= budget {
			earliestFit = i
		}
	}
	switch {
	case earliestFit > 0:
		return earliestFit, true
	case latest > 0:
		return latest, true
	case lastUser > 0:
		return lastUser, true
	}
	return 0, false
}

// postSize is the request after a compaction whose summary message is
// content and which keeps retained: the share the ledger may take is
// reckoned from it. What is counted is counted (the fixed part, the
// summary, the retained records already counted), the rest is approx.
func (k retention) postSize(content string, retained []*entry) int {
	n := k.acct.fixed() + k.acct.counter.Text(content)
	for _, e := range retained {
		n += k.acct.approx(e)
	}
	return n
}

// ceiling is the most the retained records may weigh so that system
// prompt, tools, a summary of summaryTokens and they stay well under the
// trigger.
func (k retention) ceiling(summaryTokens int) int {
	// Counted, not bounded: the byte bounds of a long system prompt and the
	// tool definitions would eat most of a small window's ceiling.
	c := int(postCompactionCeiling*float64(k.guard.trigger())) - k.acct.fixed() - summaryTokens
	return max(c, k.guard.effective/20)
}
