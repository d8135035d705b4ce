package agent

// THIS FILE IS THE AGREED API SKETCH. The agent helper replaces the bodies
// (and may split the file); the signatures are what the REPL, the slash
// commands and the CLI compile against.

import (
	"context"
	"encoding/json"

	contextmgr "github.com/clawdcode/clawdcode/internal/context"
	"github.com/clawdcode/clawdcode/internal/llm"
	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/tools"
)

// LLM is what the loop needs: something that streams a chat completion.
type LLM interface {
	Stream(ctx context.Context, req llm.Request, onDelta func(llm.Delta)) (*llm.Response, error)
}

// Sink receives a turn's events as they happen; the REPL renders them live,
// -p collects them (text / json / stream-json). Calls come from the goroutine
// that called Submit.
type Sink interface {
	Text(delta string)                                  // assistant text as it streams
	ToolStart(id, name string, input json.RawMessage)    // before a tool runs (after permission)
	ToolEnd(id, name string, res tools.Result)           // after it ran (or was denied)
	Notice(n contextmgr.Notice)                          // compaction and retry notices
}

// Config is everything an Engine is built from (flags + env resolved by the CLI).
type Config struct {
	Model        string
	Window       int
	Threshold    float64
	MaxTurns     int // 0 = unbounded
	Project      *storage.Project
	LLM          LLM
	Permissions  *tools.Permissions
	Cache        *storage.CacheStore
}

// Engine is the session engine both front ends (REPL and -p) drive: one
// current session, its context manager, the tools and the loop.
type Engine struct{}

// New builds an engine with no session open yet.
func New(cfg Config) *Engine { panic("unimplemented") }

// StartNew creates a new session and makes it current (the old one stays resumable).
func (e *Engine) StartNew(ctx context.Context, title string) error { panic("unimplemented") }

// Resume opens an existing session (full id) and restores its live context.
func (e *Engine) Resume(ctx context.Context, id string) error { panic("unimplemented") }

// SessionID is the current session's id ("" before the first message of a
// new session is stored).
func (e *Engine) SessionID() string { panic("unimplemented") }

// TurnResult summarises one Submit.
type TurnResult struct {
	Text     string // the final answer
	NumTurns int    // model calls made
	Usage    storage.Usage
}

// Submit runs one user message through the loop: model → tools → model …
// until a final answer, MaxTurns, or ctx is cancelled. Every record is
// persisted as it happens.
func (e *Engine) Submit(ctx context.Context, text string, sink Sink) (*TurnResult, error) {
	panic("unimplemented")
}

// Context exposes the current session's context manager (for /context,
// /compact, /cost and the JSON result).
func (e *Engine) Context() *contextmgr.Manager { panic("unimplemented") }

// Model / SetModel show and switch the model.
func (e *Engine) Model() string        { panic("unimplemented") }
func (e *Engine) SetModel(name string) { panic("unimplemented") }

// Project is the current project (for /sessions, /switch).
func (e *Engine) Project() *storage.Project { panic("unimplemented") }

// Close closes the current session (index written, lock released).
func (e *Engine) Close() error { panic("unimplemented") }
