package contextmgr

import (
	"context"
	"time"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/fileanalyzer"
	"github.com/clawdcode/clawdcode/internal/llm"
	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/tokens"
)

// Log is where the manager persists records: *storage.Session satisfies it.
// Append fills the common fields left empty, writes r as one line and
// returns the byte offset at which the line starts. The manager sets r.UUID
// itself before calling Append, so it always knows the uuid it wrote.
type Log interface {
	Append(r *storage.Record) (offset int64, err error)
}

var _ Log = (*storage.Session)(nil)

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

// Cache keeps exact token counts across managers of one process (a resumed
// or switched session need not re-tokenize); *storage.CacheStore satisfies it.
type Cache interface {
	Get(key string) (any, bool)
	Add(key string, v any)
}

var _ Cache = (*storage.CacheStore)(nil)

// Options configure a Manager. Policy defaults live here, nowhere else.
type Options struct {
	Model        string
	Window       int     // context window in tokens (0 = DefaultWindow)
	Threshold    float64 // auto-compaction trigger as a fraction of Window (0 = DefaultThreshold)
	ReplyReserve int     // tokens kept free for the reply (0 = min(8192, Window/8))
	System       string  // system prompt
	Tools        []chat.ToolDef
	Root         string // project root, for the file analyzer
	LLM          LLM    // the summarizer; nil = every compaction falls back

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
	// request; nil = fileanalyzer.Select with the top 5 files, 1000 lines each.
	Files func(root string, msgs []chat.Message) ([]fileanalyzer.File, error)

	Cache Cache // may be nil

	// SummaryTimeout bounds one summarization call (0 = 2 minutes).
	SummaryTimeout time.Duration

	// Notify receives user-facing notices ("auto-compacting…", fallback...).
	Notify func(Notice)
}

// Notice is a user-facing message from the manager.
type Notice struct {
	Kind string // "compacting", "compacted", "fallback", "truncated", "warning"
	Text string
}

// Policy. These are the only places the numbers live.
const (
	DefaultWindow    = 128000
	DefaultThreshold = 0.8

	// maxReplyReserve caps the default reply reserve: min(8192, Window/8).
	// A reply longer than that is rare, and an 8k reserve on a 128k
	// window already leaves the trigger (80%) as the binding rule.
	maxReplyReserve = 8192

	// keepFraction is the share of the messages kept verbatim by a
	// compaction; fallbackKeepFraction when there is no real summary, so
	// more of the recent work survives word for word.
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

	// minEffectiveWindow is the floor when the overflow guard lowers its
	// belief about the window: below it nothing useful fits anyway.
	minEffectiveWindow = 1024

	// interruptedText answers a tool call that never got a result.
	interruptedText = "interrupted: no result was recorded (the previous run ended before the tool finished)"
)

// withDefaults returns opt with every zero field set to the policy default.
func (opt Options) withDefaults() Options {
	if opt.Window <= 0 {
		opt.Window = DefaultWindow
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
	if opt.Files == nil {
		opt.Files = func(root string, msgs []chat.Message) ([]fileanalyzer.File, error) {
			return fileanalyzer.Select(root, msgs, fileanalyzer.Options{MaxFiles: 5, MaxLines: 1000})
		}
	}
	if c, ok := opt.Cache.(*storage.CacheStore); ok && c == nil {
		opt.Cache = nil
	}
	if opt.SummaryTimeout <= 0 {
		opt.SummaryTimeout = defaultSummaryTimeout
	}
	if opt.Notify == nil {
		opt.Notify = func(Notice) {}
	}
	return opt
}

// replyReserve is the reply budget for a window w.
func (opt Options) replyReserve(w int) int {
	if opt.ReplyReserve > 0 {
		return opt.ReplyReserve
	}
	return min(maxReplyReserve, w/8)
}
