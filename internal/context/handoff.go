package contextmgr

import (
	"context"
	"errors"
	"strings"

	"github.com/google/uuid"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/storage"
)

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
	all := m.live.entries()
	if len(all) == 0 && m.live.summary() == nil {
		return nil, ErrNothingToCompact
	}
	pre := m.acct.requestTokens(exact)
	var text string
	var files []string
	var failure error
	if m.opt.LLM == nil {
		failure = errors.New("no summarizer configured")
	} else {
		text, files, _, failure = m.sum.summarize(ctx, m.live.summary(), all, instructions, m.acct.messages)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	preamble := handoffPreamble
	if failure != nil {
		preamble = handoffDigestPreamble
		text = m.sum.handoffDigest(m.live.summary(), all)
	}
	rcpt := receipt(m.acct, m.opt.Root, all, text)
	m.usage.charge(rcpt, m.sum.takeUsage(), m.opt.Prices, m.opt.Model)
	content := preamble + "\n\n" + text + recallNote(rcpt)
	carried := m.work.carryOver(compactionInput(m, len(all), content))
	content += carried.afterword
	post := m.acct.fixed() + m.acct.counter.Message(chat.Message{Role: chat.RoleUser, Content: content})
	usage := m.usage.total()
	boundary := &storage.Record{
		UUID:    carried.boundary,
		Type:    storage.TypeSystem,
		Subtype: storage.SubtypeCompactBoundary,
		Message: &storage.Message{Role: chat.RoleSystem, Content: "Conversation handed off from session " + fromSession},
		CompactMetadata: &storage.CompactMetadata{Trigger: storage.TriggerManual, PreTokens: pre, SessionUsage: &usage,
			SummaryUsage: m.usage.summaryRecord(), SubagentUsage: m.usage.subagentRecord(), BriefForms: m.forms.brief, EffectiveWindow: m.guard.learnt, Receipt: rcpt, Pins: m.pins.pins(),
			Todos: m.work.todos.list(), Ledger: carried.ledger, UserRules: carried.rules},
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

// handoffDigest is what a handoff carries when its summary failed: the
// summary in force (without its own user messages) and the user's words,
// or the plain digest when there are none.
func (s *summarizer) handoffDigest(summary *entry, all []*entry) string {
	prev := ""
	if summary != nil {
		prev = summaryBody(messageContent(summary.rec))
	}
	text := strings.TrimSpace(s.userMessages(prev, all))
	if p := strings.TrimSpace(prev); p != "" {
		if i := strings.Index(p, userMessagesHeading); i >= 0 {
			p = strings.TrimSpace(p[:i]) // its user messages are in the section
		}
		text = "Earlier summary:\n" + cutUTF8(p, 2*s.guard.summaryMax()) + "\n\n" + text
	}
	if text == "" {
		text = s.digest(summary, all)
	}
	return text
}
