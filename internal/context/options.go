package contextmgr

import (
	"context"
	"log/slog"
	"time"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/fileanalyzer"
	"github.com/clawdcode/clawdcode/internal/llm"
	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/tokens"
)

// PersistentStore is where the manager persists records: the session's
// JSONL file in the storage.PersistentStore, which *storage.Session is.
// Append fills the common fields left empty, writes r as one line and
// returns the byte offset at which the line starts. The manager sets r.UUID
// itself before calling Append, so it always knows the uuid it wrote.
type PersistentStore interface {
	Append(r *storage.Record) (offset int64, err error)
}

var _ PersistentStore = (*storage.Session)(nil)

// tokenRecorder is a PersistentStore that keeps the last known context
// size for its index (*storage.Session does); the manager tells it the
// size of every request it hands out.
type tokenRecorder interface {
	SetTokens(n int)
}

var _ tokenRecorder = (*storage.Session)(nil)

// batchLog is a Log that can write several records with one write
// (*storage.Session can). A compaction's boundary and summary go together
// that way when the log offers it, so that a crash cannot come between
// them; with a Log that cannot, they are appended one after the other.
type batchLog interface {
	AppendBatch(recs ...*storage.Record) (offsets []int64, err error)
}

var _ batchLog = (*storage.Session)(nil)

// LLM is what the manager needs to write a summary: something that streams
// a chat completion. *llm.Client satisfies it.
type LLM interface {
	Stream(ctx context.Context, req llm.Request, onDelta func(llm.Delta)) (*llm.Response, error)
}

// TokenCounter counts tokens exactly for the current model; *tokens.Counter
// satisfies it. Calls may be expensive (the first loads an encoding), which
// is why the manager asks only when the cheap upper bound is not enough.
// It must be safe for concurrent use: file contents are counted in parallel.
type TokenCounter interface {
	Message(m chat.Message) int
	Tools(defs []chat.ToolDef) int
	Text(s string) int
}

var _ TokenCounter = (*tokens.Counter)(nil)

// Cache is the CacheStore: what is recomputable and worth keeping across
// the managers of one process — exact token counts (a resumed or switched
// session need not re-tokenize), the notes on the parts of a long
// summary, the file contents read for a summary, a window a server
// taught. *storage.CacheStore satisfies it.
type Cache interface {
	Get(key string) (any, bool)
	Add(key string, v any)
	Remove(key string) bool
}

var _ Cache = (*storage.CacheStore)(nil)

// Options configure a Manager. Policy defaults live here, nowhere else.
type Options struct {
	Model  string
	Window int // context window in tokens (0 = WindowFor(Model))
	// WindowExplicit says Window came from the user (a flag, the
	// environment or a config file) rather than from the model table: it
	// then wins over a window a server taught an earlier run, and /model
	// does not change it.
	WindowExplicit bool
	// WindowSource says where Window came from, for /context
	// ("--context-window", "CLAWDCODE_CONTEXT_WINDOW", a config file, the
	// models table…); "" = the models table.
	WindowSource string
	// WindowFor is the models table's window for a model; nil =
	// tokens.WindowFor.
	WindowFor func(model string) int
	// MaxLiveBytes bounds the MemoryStore that holds the live context, in
	// bytes of record content (0 = liveBytesPerToken × Window, at least
	// minLiveBytes).
	MaxLiveBytes int64
	// Now is the clock a learnt window expires by; nil = time.Now.
	Now func() time.Time

	Threshold    float64 // auto-compaction trigger as a fraction of Window (0 = DefaultThreshold)
	ReplyReserve int     // tokens kept free for the reply (0 = min(8192, Window/8))
	System       string  // system prompt
	Tools        []chat.ToolDef
	// Brief, when set, are the brief forms of System and Tools, which a
	// session whose window is small sends instead (brief.go).
	Brief *BriefForms
	Root  string // project root, for the file analyzer
	// Instructions is the project's instruction files (AGENTS.md,
	// CLAUDE.md) as the system prompt holds them: a compaction restates
	// them after the summary (carry.go).
	Instructions string
	LLM          LLM // the summarizer; nil = every compaction falls back

	// Counter counts exactly; nil = NewCounter(Model).
	Counter TokenCounter
	// NewCounter builds the counter for a model (also on SetModel); nil =
	// tokens.NewCounter.
	NewCounter func(model string) TokenCounter
	// UpperBound is a cheap upper bound of Counter.Message that needs no
	// encoder; nil = tokens.MessageUpperBound.
	UpperBound func(m chat.Message) int
	// Estimate is the fast token estimate of a text for display (Usage);
	// nil = tokens.Estimate.
	Estimate func(s string) int
	// Files picks the files whose current content goes into a summary
	// request; nil = fileanalyzer.Select with the top 5 files, 1000 lines
	// each, their contents kept in Cache.
	Files func(root string, msgs []chat.Message) ([]fileanalyzer.File, error)

	Cache Cache // may be nil

	// Prices is the price list in force (the built-in table under the
	// user's [prices]): a compaction's receipt says what its summary
	// calls cost, and /cost asks Manager.Price.
	Prices tokens.Prices

	// SummaryTimeout bounds one summarization call (0 = 2 minutes).
	SummaryTimeout time.Duration

	// Notify receives user-facing notices ("auto-compacting…", fallback...).
	Notify func(Notice)

	// Hooks are the user's commands around a compaction; nil = none.
	Hooks CompactHooks

	// Logger receives compactions and windows learnt (sizes and timings,
	// never content); nil = none.
	Logger *slog.Logger
}

// CompactHooks run the user's PreCompact and PostCompact hooks (the agent
// runs them through internal/hooks). PreCompact may return more
// instructions for the summary; a hook's failure is its own to report.
type CompactHooks interface {
	PreCompact(ctx context.Context, trigger, instructions string) (more string)
	PostCompact(ctx context.Context, trigger string, receipt *storage.Receipt)
}

// Notice is a user-facing message from the manager.
type Notice struct {
	Kind NoticeKind
	Text string
}

// NoticeKind says what a Notice is about; front ends style and route
// notices by it (the stream-json "compact" events, the REPL's spinner).
type NoticeKind string

// The kinds of notice; the values are what -p's stream-json shows.
const (
	NoticeCompacting NoticeKind = "compacting" // a compaction starts
	NoticeCompacted  NoticeKind = "compacted"  // a compaction is done
	NoticeFallback   NoticeKind = "fallback"   // the summary failed: a digest stands in
	NoticeTruncated  NoticeKind = "truncated"  // texts were cut down in memory
	NoticeCleared    NoticeKind = "cleared"    // the ladder replaced old tool results by stubs
	NoticeRetry      NoticeKind = "retry"      // a model call is tried again
	NoticeWarning    NoticeKind = "warning"    // anything else the user should know
	NoticeAttached   NoticeKind = "attached"   // an image goes with the message
)

// IsWarning reports whether the user must hear of k even when nobody
// watches progress (-p in a script): warning, fallback, truncated, retry.
func (k NoticeKind) IsWarning() bool {
	return k == NoticeWarning || k == NoticeFallback || k == NoticeTruncated || k == NoticeRetry
}

// IsCompaction reports whether k is part of a compaction's story
// (compacting, compacted, fallback).
func (k NoticeKind) IsCompaction() bool {
	return k == NoticeCompacting || k == NoticeCompacted || k == NoticeFallback
}

// Policy. These are the only places the numbers live.
const (
	// DefaultThreshold is --compact-threshold's default.
	DefaultThreshold = 0.8

	// WarnShare is where the front ends start showing how much is left
	// before auto-compaction: at this share of the trigger (see
	// Usage.Warning).
	WarnShare = 0.8

	// maxReplyReserve caps the default reply reserve: min(8192, Window/8).
	// A reply longer than that is rare, and an 8k reserve on a 128k
	// window already leaves the trigger (80%) as the binding rule.
	maxReplyReserve = 8192

	// keepFraction is the share of the live messages' tokens (and at most
	// that share of the window) that a compaction keeps verbatim, as the
	// most recent records; fallbackKeepFraction when there is no real
	// summary, so more of the recent work survives word for word.
	keepFraction         = 0.20
	fallbackKeepFraction = 0.30

	// postCompactionCeiling bounds what one compaction may leave behind
	// (system + tools + summary + retained) as a share of the trigger, so
	// the next request is comfortably below it and compactions never chain.
	postCompactionCeiling = 0.6

	// Summaries: the completion budget is Window/8 clamped to
	// [minSummaryTokens, maxSummaryTokens].
	minSummaryTokens = 256
	maxSummaryTokens = 8192

	// Back-off: after failStreakLimit summary failures in a row, the next
	// backoffStart auto-compactions skip the model and use the fallback
	// directly; each further failure doubles that, up to backoffMax. A
	// success resets everything. A manual /compact always asks the model.
	failStreakLimit = 2
	backoffStart    = 3
	backoffMax      = 24

	defaultSummaryTimeout = 2 * time.Minute

	// minLearntWindow is the floor when the overflow guard lowers its
	// belief about the window: below it nothing useful fits anyway (see
	// windowGuard.floor for the other floors). It is the smallest window
	// a server's metadata is believed about, too.
	minLearntWindow = llm.MinWindow

	// learntWindowTTL is how long a window learnt from a server's
	// rejection holds on resume: servers are reconfigured, and one bogus
	// error must not cripple a session for good.
	learntWindowTTL = 24 * time.Hour

	// minMessageRoom is what a window must leave below the trigger beside
	// the system prompt and the tool definitions for it to be usable: a
	// short user message and its turn (see MinWindow).
	minMessageRoom = 256

	// The MemoryStore's default bound: liveBytesPerToken bytes per token
	// of the window, at least minLiveBytes. Ordinary text runs 3 to 5
	// bytes per token, so a live context at the bound is several times
	// the window: it could never be sent uncut anyway.
	liveBytesPerToken = 16
	minLiveBytes      = 4 << 20

	// interruptedText answers a tool call that never got a result.
	interruptedText = "interrupted: no result was recorded (the previous run ended before the tool finished)"
)

// withDefaults returns opt with every zero field set to the policy default.
func (opt Options) withDefaults() Options {
	if opt.WindowFor == nil {
		opt.WindowFor = tokens.WindowFor
	}
	if opt.Window <= 0 {
		opt.Window = opt.WindowFor(opt.Model)
		opt.WindowExplicit, opt.WindowSource = false, ""
	}
	if opt.WindowSource == "" {
		opt.WindowSource = "the models table"
	}
	if opt.MaxLiveBytes <= 0 {
		opt.MaxLiveBytes = max(minLiveBytes, liveBytesPerToken*int64(opt.Window))
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Threshold <= 0 || opt.Threshold > 1 {
		opt.Threshold = DefaultThreshold
	}
	if opt.NewCounter == nil {
		opt.NewCounter = func(model string) TokenCounter { return tokens.NewCounter(model) }
	}
	// A typed nil stored in an interface is not nil; treat it as absent.
	if c, ok := opt.Counter.(*tokens.Counter); ok && c == nil {
		opt.Counter = nil
	}
	if opt.Counter == nil {
		opt.Counter = opt.NewCounter(opt.Model)
	}
	if opt.UpperBound == nil {
		opt.UpperBound = tokens.MessageUpperBound
	}
	if opt.Estimate == nil {
		opt.Estimate = tokens.Estimate
	}
	if c, ok := opt.Cache.(*storage.CacheStore); ok && c == nil {
		opt.Cache = nil
	}
	if opt.Files == nil {
		var cache fileanalyzer.Cache
		if opt.Cache != nil {
			cache = opt.Cache
		}
		opt.Files = func(root string, msgs []chat.Message) ([]fileanalyzer.File, error) {
			return fileanalyzer.Select(root, msgs, fileanalyzer.Options{MaxFiles: 5, MaxLines: 1000, Cache: cache})
		}
	}
	if opt.SummaryTimeout <= 0 {
		opt.SummaryTimeout = defaultSummaryTimeout
	}
	if opt.Notify == nil {
		opt.Notify = func(Notice) {}
	}
	return opt
}
