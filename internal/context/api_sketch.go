package contextmgr

// THIS FILE IS THE AGREED API SKETCH. The context helper replaces the bodies
// (and may split the file); the signatures are what other packages compile against.

import (
	"context"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/llm"
	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/tokens"
)

// LLM is what the manager needs to write a summary: something that streams
// a chat completion. *llm.Client satisfies it.
type LLM interface {
	Stream(ctx context.Context, req llm.Request, onDelta func(llm.Delta)) (*llm.Response, error)
}

// Options configure a Manager. Policy defaults live here, nowhere else.
type Options struct {
	Model        string
	Window       int     // context window in tokens
	Threshold    float64 // auto-compaction trigger as a fraction of Window (0.8)
	ReplyReserve int     // tokens kept free for the reply (0 = default policy)
	System       string  // system prompt
	Tools        []chat.ToolDef
	Root         string // project root, for the file analyzer
	LLM          LLM
	Counter      *tokens.Counter
	Cache        *storage.CacheStore // may be nil
	// Notify receives user-facing notices ("auto-compacting…", fallback...).
	Notify func(Notice)
}

// Notice is a user-facing message from the manager.
type Notice struct {
	Kind string // "compacting", "compacted", "fallback", "truncated", "warning"
	Text string
}

// Manager owns one session's live context: the records in force, their
// token counts, compaction and overflow recovery. The agent loop talks only
// to it; it is not safe for concurrent use.
type Manager struct{}

// New restores the manager from a loaded session (nil live = new session),
// repairing what a crash left half-done: unanswered tool calls get an
// "interrupted" tool_result appended to the file.
func New(ctx context.Context, sess *storage.Session, live *storage.Live, opt Options) (*Manager, error) {
	panic("unimplemented")
}

// AddUser appends a user message (persisted at once).
func (m *Manager) AddUser(text string) error { panic("unimplemented") }

// AddAssistant appends the reply record and one tool_use record per call.
func (m *Manager) AddAssistant(resp *llm.Response) error { panic("unimplemented") }

// AddToolResult appends the result of call id (errText non-empty = failed).
func (m *Manager) AddToolResult(id, output, errText string) error { panic("unimplemented") }

// Request returns the next request to send, compacting first when the
// counted request reaches the threshold or the reply budget would not fit.
func (m *Manager) Request(ctx context.Context) (llm.Request, error) { panic("unimplemented") }

// RecoverOverflow is the ContextGuard: called after the server rejected the
// request as too long, attempt 1 truncates oversized tool results, attempt
// 2 compacts; it returns false when there is nothing left to try.
func (m *Manager) RecoverOverflow(ctx context.Context, attempt int) (bool, error) {
	panic("unimplemented")
}

// CompactResult reports a compaction.
type CompactResult struct {
	PreTokens, PostTokens int
	Files                 []string
	Fallback              bool
	Err                   string
}

// Compact compacts now (trigger storage.TriggerManual or TriggerAuto).
func (m *Manager) Compact(ctx context.Context, trigger, instructions string) (*CompactResult, error) {
	panic("unimplemented")
}

// Usage is the context usage shown by /context and the JSON result.
type Usage struct {
	Tokens, Window int
	Threshold      float64
	System, Tools  int
	Summary        int
	Messages       int
}

func (m *Manager) Usage() Usage { panic("unimplemented") }

// SessionUsage is the cumulative model usage of the session (for /cost).
func (m *Manager) SessionUsage() storage.Usage { panic("unimplemented") }

// Compactions is the number of compactions done by this manager.
func (m *Manager) Compactions() int { panic("unimplemented") }

// SetModel switches the model (and the token counter with it).
func (m *Manager) SetModel(model string) { panic("unimplemented") }

// Messages rebuilds the chat-completions messages[] (without the system
// prompt) from records: tool calls on the assistant message, each result a
// tool message right after, orphans repaired, consecutive user turns merged.
func Messages(records []*storage.Record) []chat.Message { panic("unimplemented") }
