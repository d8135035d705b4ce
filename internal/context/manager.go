package contextmgr

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/llm"
	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/tokens"
)

// Manager owns one session's live context. It layers the design card's
// three stores: the live context is held in a MemoryStore (live), every
// record is persisted through the session's file in the PersistentStore
// (log), and what is recomputable is kept in the CacheStore (Options.Cache:
// token counts, file contents for a summary, the notes on a summary's
// parts, a window a server taught). Its policy is split along its seams:
// the request accounting (acct), the window guard (guard), what a
// compaction keeps (keep), the summariser (sum) and its failure back-off
// (back), the pins (pins) and the usage tally (usage). The agent loop talks
// only to the Manager; it is not safe for concurrent use.
type Manager struct {
	log PersistentStore
	opt Options
	// notify tells the front end (Options.Notify), formatted; diag is the
	// diagnostic log (Options.Logger, or one that discards).
	notify func(kind NoticeKind, format string, args ...any)
	diag   *slog.Logger

	live  *liveContext
	acct  *accountant
	guard windowGuard
	keep  retention
	sum   *summarizer
	back  backoff

	usage usageTally

	compactions int

	pins pinBoard
	// work is what a compaction carries forward beside the summary, read
	// from the records (carry.go): the task list.
	work carry
	// lastReceipt is the receipt of the boundary in force (nil = none).
	lastReceipt *storage.Receipt
	// ladder is what the context ladder did since the boundary (ladder.go).
	ladder ladderState
	// mcp is the last OfferMCP decision.
	mcp MCPOffer
	// forms says whether the session sends the brief system prompt and
	// tools (brief.go).
	forms formsState
}

// New restores the manager from a loaded session (nil live = new session),
// repairing what a crash left half-done: unanswered tool calls of the last
// reply get an "interrupted" tool_result appended to the log.
func New(ctx context.Context, log PersistentStore, live *storage.Live, opt Options) (*Manager, error) {
	opt = opt.withDefaults()
	forms := chooseForms(&opt, live)
	m := &Manager{log: log, opt: opt, guard: newWindowGuard(opt), back: newBackoff(),
		notify: notifier(opt.Notify), diag: opt.Logger, forms: forms}
	if m.diag == nil {
		m.diag = slog.New(slog.DiscardHandler)
	}
	m.live = newLiveContext(m.opt.MaxLiveBytes)
	m.acct = newAccountant(&m.opt, m.live)
	m.keep = retention{acct: m.acct, guard: &m.guard}
	m.sum = &summarizer{opt: &m.opt, acct: m.acct, guard: &m.guard, notify: m.notify,
		current: func() (llm.Request, int) { return requestInForce(m) }}
	if min, small := m.acct.windowTooSmall(&m.guard, m.opt.Window); small {
		return nil, &WindowTooSmallError{Window: m.opt.Window, Min: min, Fixed: m.acct.fixed()}
	}
	if live != nil {
		if err := m.restore(live); err != nil {
			return nil, err
		}
	} else if m.opt.Cache != nil {
		// A window a server taught this process holds for its next session.
		if v, ok := m.opt.Cache.Get(windowCacheKey(m.opt.Model)); ok {
			if l, ok := v.(learnt); ok {
				m.guard.restore(l.window, l.at, false)
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// The calls of the last reply that have no result are answered, so
	// the file itself (not only the next request) is whole again.
	for _, id := range unansweredCalls(m.live.entries()) {
		if err := m.AddToolResult(id, "", interruptedText); err != nil {
			return nil, fmt.Errorf("repair unanswered tool call %s: %w", id, err)
		}
	}
	m.acct.countStandIns()
	return m, nil
}

// restore takes over a session's live context, with the retained records
// the boundary names cut down as they were sent.
// Records after the summary (post) are what the session did since the last
// compaction: only their usage counts on top of the boundary's, and the
// last reply among them with a usage report calibrates the count (see
// calibration.floor for when it does not replace the local count).
func (m *Manager) restore(live *storage.Live) error {
	if live.Summary != nil {
		sum := m.acct.newEntry(live.Summary, -1)
		if _, err := m.live.install(sum, nil); err != nil {
			return err
		}
		if meta := live.Summary.CompactMetadata; meta != nil {
			// The back-off outlives the process: a -c -p run per turn
			// would otherwise ask a failing summariser every time.
			m.back = restoredBackoff(meta.Failures, meta.SkipsLeft)
		}
	}
	m.pins.restore(live)
	m.acct.setPins(pinsText(m.pins.list))
	var truncated map[string]int
	if b := live.Boundary; b != nil && b.CompactMetadata != nil {
		m.lastReceipt = b.CompactMetadata.Receipt
		m.work.ledger, m.work.rules = b.CompactMetadata.Ledger, b.CompactMetadata.UserRules
		if b.CompactMetadata.SessionUsage != nil {
			m.usage.rebase(*b.CompactMetadata.SessionUsage)
		}
		if b.CompactMetadata.SummaryUsage != nil {
			m.usage.summaries = *b.CompactMetadata.SummaryUsage
		}
		if b.CompactMetadata.SubagentUsage != nil {
			m.usage.subagents = *b.CompactMetadata.SubagentUsage
		}
		truncated = b.CompactMetadata.Truncated
	}
	for _, lr := range live.Records {
		r := lr.Record
		if r != nil && r.Subtype == storage.SubtypeContextClear && r.CompactMetadata != nil {
			// Cleared as the live process cleared them: the same bytes.
			restoreClear(m, r.CompactMetadata)
			continue
		}
		if r != nil && (r.Subtype == storage.SubtypeContextGiveUp || r.Subtype == storage.SubtypeContextWindow) {
			restoreGiveUp(m, r)
			continue
		}
		if r == nil || r.IsSummary() || !relevant(r) {
			continue
		}
		e := m.acct.newEntry(r, lr.Offset)
		if limit, ok := truncated[r.UUID]; ok && limit > 0 {
			// Cut as the compaction cut it: the context in force sent it so.
			m.acct.truncateEntry(e, limit)
		}
		if _, err := m.hold(e); err != nil {
			return err
		}
	}
	if b := live.Boundary; b != nil && b.CompactMetadata != nil {
		applyCleared(m.acct, m.live.entries(), b.CompactMetadata.Cleared)
	}
	m.work.resumed = true
	post, cutFrom, clearedAt := resumeMarks(live)
	after := m.live.entries()[post:]
	m.work.todos.restore(live)
	for _, e := range after {
		m.work.todos.observe(e.rec)
	}
	m.usage.addReplies(after)
	m.acct.calibrateResumed(after, post, cutFrom, clearedAt, &m.guard)
	// A window a server rejection taught an earlier run still holds (the
	// same request would be refused again), unless it expired or the
	// window was given explicitly.
	w, at := learntWindow(live, m.opt.Now())
	m.guard.restore(w, at, true)
	return nil
}

// unansweredCalls are the ids of the last reply's calls that have no
// result among es, in order.
func unansweredCalls(es []*entry) []string {
	last := -1
	for i, e := range es {
		switch e.rec.Type {
		case storage.TypeAssistant:
			last = i
		case storage.TypeUser:
			last = -1
		}
	}
	if last < 0 {
		return nil
	}
	var calls []string
	answered := map[string]bool{}
	for _, e := range es[last+1:] {
		switch r := e.rec; r.Type {
		case storage.TypeToolUse:
			if r.Tool.ID != "" && !answered[r.Tool.ID] {
				calls = append(calls, r.Tool.ID)
			}
		case storage.TypeToolResult:
			answered[r.ToolResult.ID] = true
		}
	}
	var open []string
	for _, id := range calls {
		if !answered[id] {
			answered[id] = true
			open = append(open, id)
		}
	}
	return open
}

// hold makes e part of the live context held in the MemoryStore; at its
// bound the longest texts held are cut down in memory, and the user told.
// It reports whether it cut any.
func (m *Manager) hold(e *entry) (bool, error) {
	clipped, err := m.live.hold(e)
	for _, c := range clipped {
		m.acct.resized(c)
	}
	if len(clipped) > 0 {
		m.notify(NoticeTruncated, "the live context reached its memory bound (%d bytes); cut %d long texts down in memory (the session file keeps them whole)", m.live.mem.Max(), len(clipped))
	}
	return len(clipped) > 0, err
}

// add persists r and makes it part of the live context.
func (m *Manager) add(r *storage.Record) error {
	if r.UUID == "" {
		r.UUID = uuid.NewString()
	}
	e := m.acct.newEntry(r, -1)
	// A record is counted only when the next request could reach the
	// trigger with it, since Request must count it then anyway: counted
	// now, the count is stored with it and no later run counts it again
	// (a user message included, which is appended before Request). Below
	// that, the server's next prompt_tokens covers it for free.
	if m.acct.requestTokens(bound)+e.ub >= m.guard.trigger() {
		m.acct.countEntry(e)
		r.Tokens = e.exact
	}
	off, err := m.log.Append(r)
	if err != nil {
		return fmt.Errorf("append %s record: %w", r.Type, err)
	}
	if err := recordForms(m.log, &m.forms); err != nil {
		return err
	}
	e.offset = off
	m.work.todos.observe(r)
	clipped, err := m.hold(e)
	if err != nil {
		return err
	}
	if clipped {
		return recordCuts(m.log, m.live.entries())
	}
	return nil
}

// AddUser appends a user message (persisted at once), with the images it
// carries (stored already, see storage.StoreImage) after its text; the first after
// a resume is followed by the re-orientation packet (packet.go), made from
// the context before it.
func (m *Manager) AddUser(text string, images ...storage.ImageRef) error {
	packet := m.work.resumePacket(m.live.entries(), m.opt.Root, m.acct.approxText, roomEstimate(m))
	err := m.add(&storage.Record{
		Type:    storage.TypeUser,
		Message: &storage.Message{Role: chat.RoleUser, Content: text, Images: images},
	})
	if err != nil || packet == nil {
		return err
	}
	return m.add(packet)
}

// AddAssistant appends the reply record and one tool_use record per call.
// A reply with a usage report calibrates the count: the server measured
// exactly the request the last Request returned.
func (m *Manager) AddAssistant(resp *llm.Response) error {
	if resp.Usage.PromptTokens > 0 {
		upto := len(m.live.entries())
		if m.acct.sent.ok {
			upto = m.acct.sent.upto
		}
		m.acct.calib = calibration{ok: true, tokens: resp.Usage.PromptTokens, upto: upto}
		if learnt := m.guard.learnt; m.guard.accept(resp.Usage.PromptTokens) {
			if err := m.ResetWindow(); err != nil {
				return err
			}
			m.notify(NoticeWarning, "the server answered a request of %d tokens, more than the %d-token window learnt from its rejection; forgetting that window (back to %d tokens)",
				resp.Usage.PromptTokens, learnt, m.guard.effective)
		}
	}
	m.acct.sent.ok = false
	model := resp.Model
	if model == "" {
		model = m.opt.Model
	}
	usage := storage.Usage{InputTokens: resp.Usage.PromptTokens, OutputTokens: resp.Usage.CompletionTokens,
		CacheReadInputTokens: resp.Usage.CachedTokens}
	err := m.add(&storage.Record{
		Type:    storage.TypeAssistant,
		Message: &storage.Message{Role: chat.RoleAssistant, Content: resp.Content, Model: model, Usage: &usage},
	})
	if err != nil {
		return err
	}
	m.usage.add(usage)
	for _, c := range resp.ToolCalls {
		err := m.add(&storage.Record{
			Type: storage.TypeToolUse,
			Tool: &storage.ToolUse{ID: c.ID, Name: c.Name, Input: toolInput(c.Arguments)},
		})
		if err != nil {
			return err
		}
	}
	recordTokens(m.log, m.acct.requestTokens(estimate))
	return nil
}

// AddIncomplete records an answer that did not complete, so that the
// conversation stays a conversation: without it the next user message
// would follow the unanswered one and the two would be sent as one, and
// the model would answer the abandoned request too. The record keeps what
// had streamed (what the user saw) and says why it stops: interrupted by
// the user, or cut by failure (cause, one line).
func (m *Manager) AddIncomplete(partial string, interrupted bool, cause string) error {
	kind := storage.IncompleteFailed
	if interrupted {
		kind = storage.IncompleteInterrupted
	}
	m.acct.sent.ok = false
	return m.add(&storage.Record{
		Type:       storage.TypeAssistant,
		Incomplete: kind,
		Message: &storage.Message{Role: chat.RoleAssistant, Content: incompleteContent(partial, interrupted, cause),
			Model: m.opt.Model, Usage: &storage.Usage{}},
	})
}

// incompleteKeepBytes bounds what is kept of an unfinished answer: the
// user may have let a runaway answer stream megabytes before stopping it,
// and all of it in the context would only force a compaction.
const incompleteKeepBytes = 32 << 10

// keepHead cuts s to its first n bytes (at a rune boundary) with the
// omission marker.
func keepHead(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	rest := s[cut:]
	return s[:cut] + "\n" + chat.OmissionMarker(len(rest), strings.Count(rest, "\n")+1)
}

// incompleteContent is what the model reads of an answer that did not
// complete: the text it had given and a marker it cannot mistake for its
// own words.
func incompleteContent(partial string, interrupted bool, cause string) string {
	partial = keepHead(partial, incompleteKeepBytes)
	marker := "[The user interrupted this answer; it is incomplete.]"
	if partial = strings.TrimRight(partial, " \t\n"); partial == "" {
		marker = "[The user interrupted before any answer was given.]"
	}
	if !interrupted {
		marker = "[This answer was cut off because the request failed: " + cause + "]"
		if partial == "" {
			marker = "[No answer was given: the request failed: " + cause + "]"
		}
	}
	if partial == "" {
		return marker
	}
	return partial + "\n\n" + marker
}

// recordTokens tells the session's index the context size, when the
// PersistentStore keeps one (the manager is its one source).
func recordTokens(log PersistentStore, n int) {
	if s, ok := log.(tokenRecorder); ok {
		s.SetTokens(n)
	}
}

// AddToolResult records the result of tool call id (errText non-empty =
// failed). A Task call's result also carries what its subagent's model
// calls spent (at most one usage): /cost counts it as the subagents'
// share. One larger than the context ladder's share of the window is sent
// cut down (capResult): it must leave room for the next.
func (m *Manager) AddToolResult(id, output, errText string, spent ...storage.Usage) error {
	r := &storage.ToolResult{ID: id, Output: output, Error: errText}
	if len(spent) > 0 {
		r.Usage = &spent[0]
	}
	if err := m.add(&storage.Record{Type: storage.TypeToolResult, ToolResult: r}); err != nil {
		return err
	}
	if r.Usage != nil {
		m.usage.subagents.Add(*r.Usage)
	}
	return capResult(m)
}

// Request returns the next request to send, climbing the context ladder
// first (ladder.go: clear old tool results, drop superseded reads,
// summarise, give up) when the counted request reaches the threshold or
// the reply budget would not fit.
// The check costs O(new content): the cheap upper bound decides first, and
// only records never counted before are tokenized.
func (m *Manager) Request(ctx context.Context) (llm.Request, error) {
	msgs := m.acct.messages()
	n := m.acct.requestTokens(bound)
	if n >= m.guard.trigger() {
		n = m.acct.requestTokens(exact)
	}
	if n >= m.guard.trigger() {
		if err := climb(ctx, m, n); err != nil {
			return llm.Request{}, err
		}
		msgs = m.acct.messages()
		n = m.acct.requestTokens(exact)
	}
	m.acct.sent = calibration{ok: true, upto: len(m.live.entries())}
	recordTokens(m.log, n)
	return llm.Request{Model: m.opt.Model, Messages: msgs, Tools: m.opt.Tools}, nil
}

// requestInForce is the request in force, as Request would send it without
// climbing the ladder, and its exact size: the prefix a summary shares.
func requestInForce(m *Manager) (llm.Request, int) {
	msgs := m.acct.messages()
	return llm.Request{Model: m.opt.Model, Messages: msgs, Tools: m.opt.Tools}, m.acct.requestTokens(exact)
}

// SetModel switches the model: the token counter, and the window when it
// came from the model table (an explicit window stays). Counts made for
// the old model's encoding, and the server's calibration, no longer hold.
func (m *Manager) SetModel(model string) {
	if model == m.opt.Model {
		return
	}
	m.opt.Model = model
	m.acct.setModel()
	if !m.opt.WindowExplicit {
		m.opt.Window, m.opt.WindowSource = m.opt.WindowFor(model), "the models table"
		m.guard = newWindowGuard(m.opt)
	}
}

// SetTools changes the tool definitions that requests carry, from the
// next Request on: MCP servers' tools join when their servers are ready.
// The definitions lead every request, so a change also starts the
// server's prompt cache over; the caller makes it only between turns.
func (m *Manager) SetTools(defs []chat.ToolDef) {
	if m.forms.brief {
		defs = briefTools(defs, m.opt.Brief.Tools)
	}
	m.opt.Tools = defs
	m.acct.setTools()
}

// Compactions is the number of compactions done by this manager.
func (m *Manager) Compactions() int { return m.compactions }

// Spend is what the session's model calls used and what they cost, for
// /cost.
type Spend struct {
	// Session is the replies' usage: the last boundary's sessionUsage
	// plus every reply after it.
	Session storage.Usage
	// Summaries is what the summary calls used, apart: the compactions'
	// on record, and any this process made since (a preview's).
	Summaries storage.Usage
	// Subagents is what the session's Task calls' subagents used, apart:
	// the last boundary's subagentUsage plus the Task results since.
	Subagents storage.Usage
	// Price is the current model's price by the price list in force;
	// Priced says whether one is known.
	Price  tokens.Price
	Priced bool
	// Prices is the price list in force.
	Prices tokens.Prices
}

// Spend is the session's usage, its summary calls' and the model's price.
func (m *Manager) Spend() Spend {
	p, ok := m.opt.Prices.Of(m.opt.Model)
	return Spend{Session: m.usage.total(), Summaries: m.usage.summaries, Subagents: m.usage.subagents, Price: p, Priced: ok, Prices: m.opt.Prices}
}

// usageTally is a session's model usage: the last boundary's sessionUsage
// (base) plus every reply after it (since), and apart from them every
// summary call's (summaries: the last boundary's summaryUsage plus the
// calls made since) and every subagent's (subagents: the last boundary's
// subagentUsage plus the Task results since).
type usageTally struct{ base, since, summaries, subagents storage.Usage }

// addReplies adds the usage the replies and Task results among es reported.
func (t *usageTally) addReplies(es []*entry) {
	for _, e := range es {
		if u := replyUsage(e.rec); u != nil {
			t.add(*u)
		}
		if r := e.rec.ToolResult; r != nil && r.Usage != nil {
			t.subagents.Add(*r.Usage)
		}
	}
}

func (t *usageTally) add(u storage.Usage) { t.since.Add(u) }

// rebase starts from a boundary's sessionUsage.
func (t *usageTally) rebase(base storage.Usage) { t.base, t.since = base, storage.Usage{} }

func (t *usageTally) total() storage.Usage {
	u := t.base
	u.Add(t.since)
	return u
}

// notifier formats notices for send.
func notifier(send func(Notice)) func(kind NoticeKind, format string, args ...any) {
	return func(kind NoticeKind, format string, args ...any) {
		send(Notice{Kind: kind, Text: strings.TrimSpace(fmt.Sprintf(format, args...))})
	}
}
