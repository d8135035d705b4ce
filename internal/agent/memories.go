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

// Memories is the project's and the user's memories (for /memory and the
// REPL's suggestions).
func (e *Engine) Memories() *memory.Book { return e.mem }

// Suggested is the memory suggestions this engine derived from its
// sessions' records (at compaction, and when a session it wrote to ended),
// which the user has not answered yet: the -p front end names them once
// the run is over.
func (e *Engine) Suggested() []memory.Suggestion { return e.suggested }

// systemPrompt builds the system prompt of a session that starts now: the
// base prompt and the memories checked against the project at this moment
// (the ones given are remembered for RecordUse). Its brief form, for a
// small window, is kept in e.briefSystem.
func (e *Engine) systemPrompt() string {
	info := e.prompt
	e.memGiven = nil
	g, err := e.mem.Prompt(tokens.NewCounter(e.model), memory.PromptBudget)
	if err != nil {
		e.warn(fmt.Sprintf("memories are left out of this session: %v", err))
	} else {
		info.Memories, e.memGiven = g.Text, g.IDs
	}
	brief := info
	brief.Brief = true
	e.briefSystem = SystemPrompt(brief)
	return SystemPrompt(info)
}

// memoriesChanged follows a change of the memories: before the first
// message of a new session the session has not started, so its prompt
// (and the manager built on it) is rebuilt with them; a session already
// under way keeps what it started with.
func (e *Engine) memoriesChanged() {
	if e.log.sess != nil {
		return
	}
	e.system = e.systemPrompt()
	mgr, err := e.newManager(context.Background(), e.log, nil)
	if err != nil {
		e.warn(fmt.Sprintf("memories: %v", err))
		return
	}
	e.mgr, e.mgrErr = mgr, nil
}

// recordMemoryUse notes that the session now starting was given the
// memories of its prompt.
func (e *Engine) recordMemoryUse(ctx context.Context) {
	if err := e.mem.RecordUse(ctx, e.memGiven); err != nil {
		e.warn(fmt.Sprintf("memories: %v", err))
	}
}

// suggestMemories derives suggestions from sess's records from offset
// from on (those this engine appended) and keeps the new ones as pending:
// never given to the model before the user accepts.
func (e *Engine) suggestMemories(ctx context.Context, sess *storage.Session, from int64) {
	cands, err := memory.Derive(ctx, sess.Path(), from, e.cfg.Project.Root)
	if err == nil {
		cands, err = e.mem.Suggest(ctx, cands)
	}
	if err != nil {
		e.warn(fmt.Sprintf("memory suggestions: %v", err))
		return
	}
	e.suggested = append(e.suggested, cands...)
}

// warn reports a problem that does not stop the session.
func (e *Engine) warn(msg string) {
	if e.cfg.Warn != nil {
		e.cfg.Warn(msg)
	}
	if e.cfg.Logger != nil {
		e.cfg.Logger.Warn(msg)
	}
}

// SuggestMemory asks the model (on /memory suggest, never on its own) for
// one fact of the current session worth remembering, and keeps it as a
// pending suggestion labelled as the model's: like every suggestion it is
// not given to the model before the user accepts it. It returns the
// suggestion kept (none: the model had nothing, or it is known already).
func (e *Engine) SuggestMemory(ctx context.Context) ([]memory.Suggestion, error) {
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
	return e.mem.Suggest(ctx, []memory.Suggestion{s})
}
