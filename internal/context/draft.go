package contextmgr

import (
	"context"
	"errors"
	"strings"

	"github.com/google/uuid"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/storage"
)

// Draft is a compaction's summary and receipt, written but not applied
// (/compact --preview). Nothing is written to the session until Apply.
type Draft struct {
	Summary   string // the summary as it would be stored, without the preamble and the recall note
	Receipt   *storage.Receipt
	Files     []string
	PreTokens int

	cut     int
	entries int // len(live.entries) when drafted: Apply refuses a context that moved on
	first   *entry
	counted int
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
	cut, ok := m.selectRetained(keepFraction)
	if !ok {
		return nil, ErrNothingToCompact
	}
	dropped := m.live.entries[:cut]
	text, files, counted, err := m.sum.summarize(ctx, m.live.summary, dropped, instructions, m.messages)
	if err != nil {
		m.summaryUsage.Add(m.sum.takeUsage())
		return nil, err
	}
	rcpt := m.receipt(dropped, text)
	m.chargeSummary(rcpt)
	return &Draft{Summary: text, Receipt: rcpt, Files: files, PreTokens: pre,
		cut: cut, entries: len(m.live.entries), first: m.live.entries[0], counted: counted}, nil
}

// Apply commits a draft as a manual compaction, with text as its summary
// (the draft's own, or the user's edit of it; the receipt's notInSummary
// is checked against the text stored).
func (m *Manager) Apply(d *Draft, text string) (*CompactResult, error) {
	if d == nil || len(m.live.entries) != d.entries || d.entries == 0 || m.live.entries[0] != d.first {
		return nil, ErrDraftStale
	}
	counted := d.counted
	rcpt := d.Receipt
	if text != d.Summary {
		counted = -1
		rcpt = m.receipt(m.live.entries[:d.cut], text)
		rcpt.SummaryUsage, rcpt.SummaryCost = d.Receipt.SummaryUsage, d.Receipt.SummaryCost
	}
	content := summaryPreamble + "\n\n" + text
	if note := recallNote(rcpt); note != "" {
		content += note
		counted = -1
	}
	m.back.succeeded()
	res, err := m.commit(storage.TriggerManual, d.PreTokens, d.cut, content, counted, d.Files, nil, rcpt)
	if err != nil {
		return nil, err
	}
	m.notify(NoticeCompacted, "compacted: %d → %d tokens", res.PreTokens, res.PostTokens)
	return res, nil
}

// HandoffRecords are what a handoff opens its new session with: a boundary
// that retains nothing and names the session handed off (Handoff), and a
// summary of the whole live context.
type HandoffRecords struct {
	Boundary, Summary *storage.Record
	Receipt           *storage.Receipt
	// Err is why the summary failed, when the summary is the digest-only
	// stand-in (the user's messages word for word and the receipt).
	Err error
}

// Handoff summarises the whole live context for a new session and returns
// its first two records; it writes nothing (the engine writes them into
// the new session and a handoff record into this one). When the summariser
// fails, the summary is a digest: the user's messages word for word, the
// receipt and the recall note.
func (m *Manager) Handoff(ctx context.Context, fromSession, instructions string) (*HandoffRecords, error) {
	all := m.live.entries
	if len(all) == 0 && m.live.summary == nil {
		return nil, ErrNothingToCompact
	}
	pre := m.acct.requestTokens(exact)
	var text string
	var files []string
	var failure error
	if m.opt.LLM == nil {
		failure = errors.New("no summarizer configured")
	} else {
		text, files, _, failure = m.sum.summarize(ctx, m.live.summary, all, instructions, m.messages)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	preamble := handoffPreamble
	if failure != nil {
		preamble = handoffDigestPreamble
		prev := ""
		if m.live.summary != nil {
			prev = summaryBody(messageContent(m.live.summary.rec))
		}
		// Digest-only: the summary in force and the user's own words.
		text = strings.TrimSpace(m.sum.userMessages(prev, all))
		if p := strings.TrimSpace(prev); p != "" {
			if i := strings.Index(p, userMessagesHeading); i >= 0 {
				p = strings.TrimSpace(p[:i]) // its user messages are in the section
			}
			text = "Earlier summary:\n" + cutUTF8(p, 2*m.guard.summaryMax()) + "\n\n" + text
		}
		if text == "" {
			text = m.sum.digest(m.live.summary, all)
		}
	}
	rcpt := m.receipt(all, text)
	m.chargeSummary(rcpt)
	content := preamble + "\n\n" + text + recallNote(rcpt)
	post := m.acct.fixed() + m.acct.counter.Message(chat.Message{Role: chat.RoleUser, Content: content})
	usage := m.SessionUsage()
	boundary := &storage.Record{
		UUID:    uuid.NewString(),
		Type:    storage.TypeSystem,
		Subtype: storage.SubtypeCompactBoundary,
		Message: &storage.Message{Role: chat.RoleSystem, Content: "Conversation handed off from session " + fromSession},
		CompactMetadata: &storage.CompactMetadata{Trigger: storage.TriggerManual, PreTokens: pre, SessionUsage: &usage,
			SummaryUsage: m.summaryUsageRecord(), EffectiveWindow: m.guard.learnt, Receipt: rcpt, Pins: m.pinList()},
		Handoff: &storage.HandoffInfo{SessionID: fromSession},
	}
	sum := &storage.Record{
		UUID:             uuid.NewString(),
		Type:             storage.TypeUser,
		IsCompactSummary: true,
		Message:          &storage.Message{Role: chat.RoleUser, Content: content},
		CompactMetadata:  &storage.CompactMetadata{Trigger: storage.TriggerManual, PreTokens: pre, PostTokens: post, FilesIncluded: files},
	}
	if failure != nil {
		sum.CompactMetadata.Fallback, sum.CompactMetadata.Error = true, failure.Error()
	}
	return &HandoffRecords{Boundary: boundary, Summary: sum, Receipt: rcpt, Err: failure}, nil
}

const (
	handoffPreamble = "This session continues the work of another session, handed off to start afresh. " +
		"The summary below is everything carried over; continue the work from where it stopped."
	handoffDigestPreamble = "This session continues the work of another session, handed off to start afresh, but no summary could be written. " +
		"Below are the user's requests and messages from it; continue the work from where it stopped, and ask the user if something essential is missing."
)
