package contextmgr

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/llm"
	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/tokens"
)

// Manager owns one session's live context: the records in force, their
// token counts, compaction and overflow recovery. The agent loop talks only
// to it; it is not safe for concurrent use.
type Manager struct {
	log     Log
	opt     Options
	counter TokenCounter

	summary *entry   // the summary in force, nil before the first compaction
	entries []*entry // the other records in force, in file order

	system, tools part
	// interrupted is the size of one stand-in answer for a missing tool
	// result; synthesized is how many the last built request had.
	interrupted part
	synthesized int
	window      int // effective window: opt.Window until the server proves it smaller
	// learnt is the smallest window a server rejection has taught the
	// session, in this run or an earlier one (0 = none). Boundaries carry
	// it even when this run's configured window is smaller still, so a
	// later run configured larger keeps it.
	learnt int

	// calib is the server's prompt_tokens for a request made of the
	// summary and entries[:calib.upto]; only what came after is counted.
	calib calibration
	// sent says which entries the last request handed out by Request
	// covered. Its size is not kept: Request decides with the cheap byte
	// bound, which is no measure of what the server counted.
	sent calibration

	// tokenized is set once the exact counter has been used.
	tokenized bool

	usageBase  storage.Usage // the last boundary's sessionUsage
	usageSince storage.Usage // assistant usage after the last boundary

	compactions int
	failStreak  int // summary failures in a row
	skipLeft    int // auto-compactions left that go straight to the fallback
	backoff     int // the next back-off length
}

type calibration struct {
	ok     bool
	tokens int
	upto   int
	// floor marks a count read back on resume that need not measure this
	// run's request: the reply names another model than this run's, whose
	// tokenizer may count fewer tokens, or the request it measured had
	// texts cut down in memory that the resume sends whole. It is then
	// only a floor under the local count, not a replacement (see restore).
	floor bool
}

// New restores the manager from a loaded session (nil live = new session),
// repairing what a crash left half-done: unanswered tool calls of the last
// reply get an "interrupted" tool_result appended to the log.
func New(ctx context.Context, log Log, live *storage.Live, opt Options) (*Manager, error) {
	opt = opt.withDefaults()
	m := &Manager{log: log, opt: opt, counter: opt.Counter, window: opt.Window, backoff: backoffStart}
	m.system = part{ub: m.opt.UpperBound(chat.Message{Role: chat.RoleSystem, Content: opt.System}), exact: -1}
	if opt.System == "" {
		m.system = part{}
	}
	m.interrupted = part{ub: m.opt.UpperBound(interruptedAnswer), exact: -1}
	m.tools = part{ub: toolsUpperBound(opt.Tools), exact: -1}
	if len(opt.Tools) == 0 {
		m.tools = part{}
	}
	if live != nil {
		m.restore(live)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := m.repair(); err != nil {
		return nil, err
	}
	m.messages() // notes the calls still answered by a stand-in
	return m, nil
}

// restore takes over a session's live context, with the retained records
// the boundary names cut down as they were sent.
// Records after the summary (post) are what the session did since the last
// compaction: only their usage counts on top of the boundary's, and the
// last reply among them with a usage report calibrates the count (see
// trustedCalibration for when it replaces the local count).
func (m *Manager) restore(live *storage.Live) {
	var summaryUUID string
	if live.Summary != nil {
		summaryUUID = live.Summary.UUID
		m.summary = m.newEntry(live.Summary, -1)
		if meta := live.Summary.CompactMetadata; meta != nil {
			// The back-off outlives the process: a -c -p run per turn
			// would otherwise ask a failing summariser every time.
			m.failStreak, m.skipLeft = meta.Failures, meta.SkipsLeft
			m.backoff = backoffAfter(meta.Failures)
		}
	}
	// A window a server rejection taught an earlier run still holds: the
	// same request would be refused again.
	m.learnt = learntWindow(live)
	if m.learnt > 0 && m.learnt < m.window {
		m.window = m.learnt
	}
	var truncated map[string]int
	if b := live.Boundary; b != nil && b.CompactMetadata != nil {
		if b.CompactMetadata.SessionUsage != nil {
			m.usageBase = *b.CompactMetadata.SessionUsage
		}
		truncated = b.CompactMetadata.Truncated
	}
	post := -1
	if live.Summary == nil {
		post = 0
	}
	// cutFrom is the number of entries when the first record after the
	// summary says the live context was cut down in memory outside a
	// compaction (context_cut), or that the server rejected it
	// (context_window, which came with cuts before context_cut existed):
	// the requests measured after it were smaller than what a resume
	// sends, since it sends those records whole.
	cutFrom := -1
	for _, lr := range live.Records {
		r := lr.Record
		if r == nil {
			continue
		}
		if r.IsSummary() {
			if r.UUID == summaryUUID && post < 0 {
				post = len(m.entries)
			}
			continue
		}
		if post < 0 && r.ParentUUID != nil && *r.ParentUUID == summaryUUID {
			post = len(m.entries)
		}
		if post >= 0 && cutFrom < 0 && r.Type == storage.TypeSystem &&
			(r.Subtype == storage.SubtypeContextCut || r.Subtype == storage.SubtypeContextWindow) {
			cutFrom = len(m.entries)
		}
		if !relevant(r) {
			continue
		}
		e := m.newEntry(r, lr.Offset)
		if limit, ok := truncated[r.UUID]; ok && limit > 0 {
			// Cut as the compaction cut it: the context in force sent it so.
			m.truncateEntry(e, limit)
		}
		m.entries = append(m.entries, e)
	}
	if post < 0 {
		post = len(m.entries)
	}
	for i := post; i < len(m.entries); i++ {
		r := m.entries[i].rec
		if r.Type != storage.TypeAssistant || r.Message == nil || r.Message.Usage == nil {
			continue
		}
		u := r.Message.Usage
		m.usageSince.InputTokens += u.InputTokens
		m.usageSince.OutputTokens += u.OutputTokens
		if u.InputTokens > 0 {
			cut := cutFrom >= 0 && i >= cutFrom
			m.calib = calibration{ok: true, tokens: u.InputTokens, upto: i, floor: cut || !m.sameModel(r.Message.Model)}
		}
	}
}

// sameModel reports whether a reply of model (as the server named it) was
// counted the way this run's model counts: servers name the model in their
// own way — a dated snapshot for an alias ("gpt-4o-2024-08-06"), a provider
// prefix ("openai/gpt-4o"), a local server's file name — so names are not
// compared; what matters is whether clawdcode's table maps both to the same
// tokenizer encoding. Only a switch between tokenizers (gpt-4 → gpt-4o)
// makes the recorded count a mere floor.
func (m *Manager) sameModel(model string) bool {
	return model == "" || tokens.EncodingFor(model) == tokens.EncodingFor(m.opt.Model)
}

// backoffAfter is the next back-off length once failures summaries in a
// row have failed: it starts when the streak reaches failStreakLimit and
// doubles with every failure after that, as compact does.
func backoffAfter(failures int) int {
	b := backoffStart
	for i := failStreakLimit; i <= failures && b < backoffMax; i++ {
		b = min(2*b, backoffMax)
	}
	return b
}

// repair answers the calls of the last reply that have no result, so the
// file itself (not only the next request) is whole again.
func (m *Manager) repair() error {
	last := -1
	for i, e := range m.entries {
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
	for _, e := range m.entries[last+1:] {
		switch r := e.rec; r.Type {
		case storage.TypeToolUse:
			if r.Tool.ID != "" && !answered[r.Tool.ID] {
				calls = append(calls, r.Tool.ID)
			}
		case storage.TypeToolResult:
			answered[r.ToolResult.ID] = true
		}
	}
	for _, id := range calls {
		if answered[id] {
			continue
		}
		answered[id] = true
		if err := m.AddToolResult(id, "", interruptedText); err != nil {
			return fmt.Errorf("repair unanswered tool call %s: %w", id, err)
		}
	}
	return nil
}

func (m *Manager) newEntry(r *storage.Record, offset int64) *entry {
	e := &entry{rec: r, offset: offset, exact: -1, est: -1}
	e.ub = m.opt.UpperBound(recordMessage(r))
	if r.Tokens > 0 {
		e.exact = r.Tokens
	}
	return e
}

// add persists r and makes it part of the live context.
func (m *Manager) add(r *storage.Record) error {
	if r.UUID == "" {
		r.UUID = uuid.NewString()
	}
	e := m.newEntry(r, -1)
	// A record is counted only when the next request could reach the
	// trigger with it, since Request must count it then anyway: counted
	// now, the count is stored with it and no later run counts it again
	// (a user message included, which is appended before Request). Below
	// that, the server's next prompt_tokens covers it for free.
	if m.requestTokens(bound)+e.ub >= m.trigger() {
		m.countEntry(e)
		r.Tokens = e.exact
	}
	off, err := m.log.Append(r)
	if err != nil {
		return fmt.Errorf("append %s record: %w", r.Type, err)
	}
	e.offset = off
	m.entries = append(m.entries, e)
	return nil
}

// AddUser appends a user message (persisted at once).
func (m *Manager) AddUser(text string) error {
	return m.add(&storage.Record{
		Type:    storage.TypeUser,
		Message: &storage.Message{Role: chat.RoleUser, Content: text},
	})
}

// AddAssistant appends the reply record and one tool_use record per call.
// A reply with a usage report calibrates the count: the server measured
// exactly the request the last Request returned.
func (m *Manager) AddAssistant(resp *llm.Response) error {
	if resp.Usage.PromptTokens > 0 {
		upto := len(m.entries)
		if m.sent.ok {
			upto = m.sent.upto
		}
		m.calib = calibration{ok: true, tokens: resp.Usage.PromptTokens, upto: upto}
	}
	m.sent.ok = false
	model := resp.Model
	if model == "" {
		model = m.opt.Model
	}
	usage := storage.Usage{InputTokens: resp.Usage.PromptTokens, OutputTokens: resp.Usage.CompletionTokens}
	err := m.add(&storage.Record{
		Type:    storage.TypeAssistant,
		Message: &storage.Message{Role: chat.RoleAssistant, Content: resp.Content, Model: model, Usage: &usage},
	})
	if err != nil {
		return err
	}
	m.usageSince.InputTokens += usage.InputTokens
	m.usageSince.OutputTokens += usage.OutputTokens
	for _, c := range resp.ToolCalls {
		err := m.add(&storage.Record{
			Type: storage.TypeToolUse,
			Tool: &storage.ToolUse{ID: c.ID, Name: c.Name, Input: toolInput(c.Arguments)},
		})
		if err != nil {
			return err
		}
	}
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
	m.sent.ok = false
	return m.add(&storage.Record{
		Type:       storage.TypeAssistant,
		Incomplete: kind,
		Message: &storage.Message{Role: chat.RoleAssistant, Content: incompleteContent(partial, interrupted, cause),
			Model: m.opt.Model, Usage: &storage.Usage{}},
	})
}

// incompleteContent is what the model reads of an answer that did not
// complete: the text it had given and a marker it cannot mistake for its
// own words.
func incompleteContent(partial string, interrupted bool, cause string) string {
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

// AddToolResult appends the result of call id (errText non-empty = failed).
func (m *Manager) AddToolResult(id, output, errText string) error {
	return m.add(&storage.Record{
		Type:       storage.TypeToolResult,
		ToolResult: &storage.ToolResult{ID: id, Output: output, Error: errText},
	})
}

// Request returns the next request to send, compacting first when the
// counted request reaches the threshold or the reply budget would not fit.
// The check costs O(new content): the cheap upper bound decides first, and
// only records never counted before are tokenized.
func (m *Manager) Request(ctx context.Context) (llm.Request, error) {
	msgs := m.messages()
	n := m.requestTokens(bound)
	if n >= m.trigger() {
		n = m.requestTokens(exact)
	}
	if n >= m.trigger() {
		_, err := m.compact(ctx, storage.TriggerAuto, "")
		switch {
		case err == nil:
		case errors.Is(err, ErrNothingToCompact):
			if err := m.shrinkToFit(m.trigger() - 1); err != nil {
				return llm.Request{}, err
			}
		default:
			return llm.Request{}, err
		}
		msgs = m.messages()
		n = m.requestTokens(exact)
	}
	m.sent = calibration{ok: true, upto: len(m.entries)}
	if s, ok := m.log.(interface{ SetTokens(int) }); ok {
		s.SetTokens(n)
	}
	return llm.Request{Model: m.opt.Model, Messages: msgs, Tools: m.opt.Tools}, nil
}

// messages is the full messages[] of the next request, system prompt first.
// It also notes how many calls it answered as interrupted, for the count.
func (m *Manager) messages() []chat.Message {
	recs := make([]*storage.Record, 0, len(m.entries)+1)
	if m.summary != nil {
		recs = append(recs, m.summary.rec)
	}
	for _, e := range m.entries {
		recs = append(recs, e.sent())
	}
	msgs, synthesized := buildMessages(recs)
	m.synthesized = synthesized
	if m.opt.System == "" {
		return msgs
	}
	return append([]chat.Message{{Role: chat.RoleSystem, Content: m.opt.System}}, msgs...)
}

// SetModel switches the model (and the token counter with it). Counts made
// for the old model's encoding, and the server's calibration, no longer hold.
func (m *Manager) SetModel(model string) {
	if model == m.opt.Model {
		return
	}
	m.opt.Model = model
	m.counter = m.opt.NewCounter(model)
	m.tokenized = false
	m.calib.ok, m.sent.ok = false, false
	m.system.exact, m.tools.exact, m.interrupted.exact = -1, -1, -1
	if m.summary != nil {
		m.summary.exact = -1
	}
	for _, e := range m.entries {
		e.exact = -1
	}
}

// Model is the model requests are made for.
func (m *Manager) Model() string { return m.opt.Model }

// Compactions is the number of compactions done by this manager.
func (m *Manager) Compactions() int { return m.compactions }

// SessionUsage is the cumulative model usage of the session (for /cost):
// the last boundary's sessionUsage plus every reply after it.
func (m *Manager) SessionUsage() storage.Usage {
	return storage.Usage{
		InputTokens:  m.usageBase.InputTokens + m.usageSince.InputTokens,
		OutputTokens: m.usageBase.OutputTokens + m.usageSince.OutputTokens,
	}
}

// notify sends a notice, formatted.
func (m *Manager) notify(kind, format string, args ...any) {
	m.opt.Notify(Notice{Kind: kind, Text: strings.TrimSpace(fmt.Sprintf(format, args...))})
}
