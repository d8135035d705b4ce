package contextmgr

import (
	"context"
	"errors"
	"fmt"

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
}

// Compact compacts now (trigger storage.TriggerManual or TriggerAuto); the
// instructions, if any, steer the summary. A failed summary is not an
// error: the result says Fallback. Errors are ErrNothingToCompact, a
// cancelled ctx (nothing written then) and a log that cannot be appended to.
func (m *Manager) Compact(ctx context.Context, trigger, instructions string) (*CompactResult, error) {
	return m.compact(ctx, trigger, instructions)
}

// compact replaces all but the most recent part of the live context by a
// summary: it appends a compact_boundary and a summary record, then makes
// summary + retained records the live context.
func (m *Manager) compact(ctx context.Context, trigger, instructions string) (*CompactResult, error) {
	pre := m.requestTokens(exact)
	useLLM := m.opt.LLM != nil && (trigger == storage.TriggerManual || m.skipLeft == 0)
	frac := keepFraction
	if !useLLM {
		frac = fallbackKeepFraction
	}
	cut, ok := m.selectRetained(frac)
	if !ok {
		return nil, ErrNothingToCompact
	}
	m.notify("compacting", "compacting the conversation (~%d tokens, %d%% of the %d-token window)…",
		pre, percent(pre, m.window), m.window)

	var (
		text     string
		files    []string
		failure  error
		skipped  = !useLLM
		fallback bool
		counted  = -1 // the summary record's count, when summarize made it
	)
	if useLLM {
		text, files, counted, failure = m.summarize(ctx, m.entries[:cut], instructions)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	} else if m.opt.LLM == nil {
		failure = errors.New("no summarizer configured")
	} else {
		m.skipLeft--
		failure = fmt.Errorf("summarizer skipped after %d failures in a row", m.failStreak)
	}
	if failure == nil {
		m.failStreak, m.skipLeft, m.backoff = 0, 0, backoffStart
	} else {
		fallback = true
		if !skipped {
			m.failStreak++
			if m.failStreak >= failStreakLimit {
				m.skipLeft = m.backoff
				m.backoff = min(2*m.backoff, backoffMax)
			}
		}
		if c, ok := m.selectRetained(fallbackKeepFraction); ok {
			cut = c
		}
		text, files, counted = m.digest(m.entries[:cut]), nil, -1
	}

	content := summaryPreamble + "\n\n" + text
	if fallback {
		content = fallbackPreamble + "\n\n" + text
	}
	res, err := m.commit(trigger, pre, cut, content, counted, files, failure)
	if err != nil {
		return nil, err
	}
	if fallback {
		m.notify("fallback", "the summary failed (%v); kept the most recent part of the conversation and a short digest of the rest", failure)
	}
	m.notify("compacted", "compacted: %d → %d tokens", res.PreTokens, res.PostTokens)
	return res, nil
}

// commit appends the boundary and summary records and installs summary +
// entries[cut:] as the live context. The retained records are cut down in
// memory when they alone would leave the request above the ceiling; they
// are tokenized only when their byte bound does not settle that. The
// summary's count is contentTokens when known (≥ 0), else it is counted.
// PostTokens counts what is not counted by the fast estimate, as Usage
// does: the server's next prompt_tokens replaces it anyway.
func (m *Manager) commit(trigger string, pre, cut int, content string, contentTokens int, files []string, failure error) (*CompactResult, error) {
	retained := m.entries[cut:]
	sumRec := &storage.Record{
		UUID:             uuid.NewString(),
		Type:             storage.TypeUser,
		IsCompactSummary: true,
		Message:          &storage.Message{Role: chat.RoleUser, Content: content},
	}
	sum := m.newEntry(sumRec, -1)
	if contentTokens >= 0 {
		sum.exact = contentTokens
	}
	sumTokens := m.countEntry(sum)
	if c := m.retainCeiling(sumTokens); m.boundOf(retained) > c && m.sizeOf(retained) > c {
		if n := m.truncateEntries(retained, c); n > 0 {
			m.notify("truncated", "cut %d long texts of the kept messages down in memory to fit the window", n)
		}
	}
	post := replyPriming + m.partSize(&m.system, exact) + m.partSize(&m.tools, exact) + sumTokens
	for _, e := range retained {
		post += m.size(e, estimate)
	}

	usage := m.SessionUsage()
	boundary := &storage.Record{
		UUID:    uuid.NewString(),
		Type:    storage.TypeSystem,
		Subtype: storage.SubtypeCompactBoundary,
		Message: &storage.Message{Role: chat.RoleSystem, Content: "Conversation compacted"},
		CompactMetadata: &storage.CompactMetadata{
			Trigger:         trigger,
			PreTokens:       pre,
			RetainedOffset:  retained[0].offset,
			RetainedUUID:    retained[0].rec.UUID,
			SessionUsage:    &usage,
			Truncated:       truncatedLimits(retained),
			EffectiveWindow: m.learnt,
		},
	}
	meta := &storage.CompactMetadata{Trigger: trigger, PreTokens: pre, PostTokens: post, FilesIncluded: files,
		Failures: m.failStreak, SkipsLeft: m.skipLeft}
	if failure != nil {
		meta.Fallback, meta.Error = true, failure.Error()
	}
	sumRec.CompactMetadata = meta
	sumRec.Tokens = sumTokens
	off, err := m.appendCompaction(boundary, sumRec)
	if err != nil {
		return nil, err
	}
	sum.offset = off

	m.summary = sum
	m.entries = append([]*entry(nil), retained...)
	m.usageBase, m.usageSince = usage, storage.Usage{}
	m.compactions++
	m.invalidate()
	return &CompactResult{PreTokens: pre, PostTokens: post, Files: files, Fallback: failure != nil, Err: meta.Error}, nil
}

// appendCompaction writes the boundary and the summary, with one write
// when the log can: two appends leave a window in which a crash keeps the
// boundary without its summary. It returns the summary's offset.
func (m *Manager) appendCompaction(boundary, summary *storage.Record) (int64, error) {
	if b, ok := m.log.(batchLog); ok {
		offs, err := b.AppendBatch(boundary, summary)
		if err != nil {
			return 0, fmt.Errorf("append compact boundary and summary: %w", err)
		}
		if len(offs) != 2 {
			return 0, fmt.Errorf("append compact boundary and summary: the log returned %d offsets for 2 records", len(offs))
		}
		return offs[1], nil
	}
	if _, err := m.log.Append(boundary); err != nil {
		return 0, fmt.Errorf("append compact boundary: %w", err)
	}
	off, err := m.log.Append(summary)
	if err != nil {
		return 0, fmt.Errorf("append compact summary: %w", err)
	}
	return off, nil
}

// truncatedLimits records which of es are sent cut down, and to what
// limit, so that a resume restores the same context (restore re-applies
// them): whoever cut them, this compaction or the overflow guard before it.
func truncatedLimits(es []*entry) map[string]int {
	var cut map[string]int
	for _, e := range es {
		if e.trunc == nil || e.rec.UUID == "" {
			continue
		}
		if cut == nil {
			cut = make(map[string]int)
		}
		cut[e.rec.UUID] = e.truncLimit
	}
	return cut
}

// selectRetained picks the first retained record: entries[cut:] is kept
// verbatim, entries[:cut] summarised. ok is false when nothing would be
// dropped.
//
// The kept part is the most recent frac of the messages (by approx),
// starting at a user record. When the last user turn alone is larger, it
// is kept whole if it stays under the post-compaction ceiling; otherwise
// the cut falls inside it, at an assistant reply (the summary, a user
// message, then precedes it). Cuts are only ever made before a user or an
// assistant record, so a tool call always stays with its results.
func (m *Manager) selectRetained(frac float64) (cut int, ok bool) {
	n := len(m.entries)
	if n == 0 {
		return 0, false
	}
	// Sized by approx, not counted: how much is kept verbatim is a share,
	// not a bound; commit makes sure the kept part fits the ceiling.
	tail := make([]int, n+1)
	for i := n - 1; i >= 0; i-- {
		tail[i] = tail[i+1] + m.approx(m.entries[i])
	}
	ceiling := m.retainCeiling(m.summaryMax())
	budget := min(int(frac*float64(min(tail[0], m.window))), ceiling)
	isType := func(i int, t string) bool { return m.entries[i].rec.Type == t }

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

// retainCeiling is the most the retained records may weigh so that system
// prompt, tools, a summary of summaryTokens and they stay well under the
// trigger.
func (m *Manager) retainCeiling(summaryTokens int) int {
	// Counted, not bounded: the byte bounds of a long system prompt and the
	// tool definitions would eat most of a small window's ceiling.
	c := int(postCompactionCeiling*float64(m.trigger())) - m.partSize(&m.system, exact) - m.partSize(&m.tools, exact) - summaryTokens - replyPriming
	return max(c, m.window/20)
}

// boundOf is the size of es from exact counts made and byte bounds:
// never below their exact count, never tokenizes.
func (m *Manager) boundOf(es []*entry) int {
	n := 0
	for _, e := range es {
		n += e.best()
	}
	return n
}

func (m *Manager) sizeOf(es []*entry) int {
	n := 0
	for _, e := range es {
		n += m.countEntry(e)
	}
	return n
}

// summaryMax is the completion budget of a summary call, and the size
// bound of a fallback digest.
func (m *Manager) summaryMax() int {
	return min(max(m.window/8, minSummaryTokens), maxSummaryTokens)
}

func percent(n, of int) int {
	if of <= 0 {
		return 0
	}
	return int(float64(n)*100/float64(of) + 0.5)
}
