package agent

import (
	"context"
	"fmt"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/llm"
	"github.com/clawdcode/clawdcode/internal/memory"
	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/tokens"
)

// Memory is the engine's part over the memories across sessions
// (internal/memory): the project's and the user's book (/memory), and the
// suggestions this engine made. A session's system prompt carries the
// memories checked when it starts — rebuilt if they change before its
// first message — and never a suggestion; a change made while it is under
// way (/memory add, an accepted suggestion, the REPL's # line) reaches its
// model from the next request on as a note after the conversation
// (memory.Book.Update), which leaves the prompt the server caches as it
// was. Suggestions are derived when a session this engine wrote to ends,
// and after each compaction.
type Memory struct {
	e    *Engine
	book *memory.Book
	// given are the memories in the current system prompt; note is how
	// they changed since ("" = not at all); suggested what was derived
	// from this engine's sessions.
	given     memory.Given
	note      string
	suggested []memory.Suggestion
}

// Book is the project's and the user's memories (for /memory and the
// REPL's suggestions).
func (m *Memory) Book() *memory.Book { return m.book }

// Suggested is the memory suggestions this engine derived from its
// sessions' records (at compaction, and when a session it wrote to ended),
// which the user has not answered yet: the -p front end names them once
// the run is over.
func (m *Memory) Suggested() []memory.Suggestion { return m.suggested }

// Suggest asks the model (on /memory suggest, never on its own) for one
// fact of the current session worth remembering, and keeps it as a
// pending suggestion labelled as the model's: like every suggestion it is
// not given to the model before the user accepts it. It returns the
// suggestion kept (none: the model had nothing, or it is known already).
func (m *Memory) Suggest(ctx context.Context) ([]memory.Suggestion, error) {
	e := m.e
	if e.log.sess == nil {
		return nil, fmt.Errorf("memory suggest: %w", ErrNoSession)
	}
	transcript, err := memory.Transcript(ctx, e.log.sess.Path())
	if err != nil {
		return nil, fmt.Errorf("memory suggest: %w", err)
	}
	resp, err := e.cfg.LLM.Stream(ctx, llm.Request{
		Model: e.model,
		Messages: []chat.Message{
			{Role: chat.RoleSystem, Content: memory.AskPrompt},
			{Role: chat.RoleUser, Content: transcript},
		},
		MaxCompletionTokens: 200,
	}, func(llm.Delta) {})
	if err != nil {
		return nil, fmt.Errorf("memory suggest: %w", err)
	}
	s, ok := memory.ModelAnswer(resp.Content, e.log.sess.ID())
	if !ok {
		return nil, nil
	}
	return m.book.Suggest(ctx, []memory.Suggestion{s})
}

// forPrompt is the memories' section of a system prompt for model,
// checked against the project now ("" = none); the ones given are
// remembered for recordUse.
func (m *Memory) forPrompt(model string) string {
	m.given, m.note = memory.Given{}, ""
	// The instruction files the same prompt gives: a memory exported into
	// AGENTS.md reaches the model there, and is not given twice.
	g, err := m.book.Prompt(tokens.NewCounter(model), memory.PromptBudget, ProjectInstructions(m.e.cfg.Project.Root))
	if err != nil {
		m.e.warn(fmt.Sprintf("memories are left out of this session: %v", err))
		return ""
	}
	m.given = g
	return g.Text
}

// changed follows a change of the memories: before the first message of
// a new session the session has not started, so its prompt (and the
// manager built on it) is rebuilt with them; a session already under way
// keeps its prompt, and its model is told of the change by the note sent
// after the conversation (Note).
func (m *Memory) changed() {
	e := m.e
	if e.log.sess != nil {
		note, err := m.book.Update(m.given)
		if err != nil {
			e.warn(fmt.Sprintf("memories: %v", err))
			return
		}
		m.note = note
		return
	}
	e.system = e.systemPrompt()
	mgr, err := e.newManager(context.Background(), e.log, nil)
	if err != nil {
		e.warn(fmt.Sprintf("memories: %v", err))
		return
	}
	e.mgr = mgr
}

// recordUse notes that the session now starting was given the memories
// of its prompt.
func (m *Memory) recordUse(ctx context.Context) {
	if err := m.book.RecordUse(ctx, m.given.IDs); err != nil {
		m.e.warn(fmt.Sprintf("memories: %v", err))
	}
}

// derive derives suggestions from sess's records from offset from on
// (those this engine appended) and keeps the new ones as pending: never
// given to the model before the user accepts.
func (m *Memory) derive(ctx context.Context, sess *storage.Session, from int64) {
	cands, err := memory.Derive(ctx, sess.Path(), from, m.book.Root())
	if err == nil {
		cands, err = m.book.Suggest(ctx, cands)
	}
	if err != nil {
		m.e.warn(fmt.Sprintf("memory suggestions: %v", err))
		return
	}
	m.suggested = append(m.suggested, cands...)
}
