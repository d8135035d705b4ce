package contextmgr

import (
	"time"

	"github.com/clawdcode/clawdcode/internal/llm"
	"github.com/clawdcode/clawdcode/internal/storage"
)

// windowGuard owns the context window the manager works to: the window
// configured, the smaller one a server rejection taught (learnt), the
// trigger and the reply reserve derived from them. It is pure policy: the
// manager persists what it learns.
type windowGuard struct {
	configured int  // Options.Window
	explicit   bool // configured came from a flag, the environment or a config file
	threshold  float64
	reserve    int // Options.ReplyReserve (0 = min(8192, window/8))

	effective int // what requests are sized to: configured until a server proves it smaller
	// learnt is the smallest window a server rejection has taught the
	// session, in this run or an earlier one (0 = none), and learntAt when.
	// Boundaries carry it even when this run's configured window is
	// smaller still (or explicit), so a later run keeps it.
	learnt   int
	learntAt time.Time
	// recorded says the session's file holds learnt (a context_window
	// record or a boundary), not only the process's CacheStore.
	recorded bool
	// accepted is the largest prompt_tokens a server answered in this
	// session: its window is at least that, whatever it says later.
	accepted int
}

func newWindowGuard(opt Options) windowGuard {
	return windowGuard{configured: opt.Window, explicit: opt.WindowExplicit, threshold: opt.Threshold,
		reserve: opt.ReplyReserve, effective: opt.Window}
}

// replyReserve is the reply budget for a window w.
func (g *windowGuard) replyReserve(w int) int {
	if g.reserve > 0 {
		return g.reserve
	}
	return min(maxReplyReserve, w/8)
}

// triggerFor is the request size at which auto-compaction fires in a
// window w: the threshold share of it, or less when the reply reserve
// would not fit otherwise. It is the one rule every figure of the trigger
// comes from (Usage.Trigger, the REPL's warning, /context).
func (g *windowGuard) triggerFor(w int) int {
	t := int(g.threshold * float64(w))
	return max(1, min(t, w-g.replyReserve(w)))
}

func (g *windowGuard) trigger() int { return g.triggerFor(g.effective) }

// summaryMax is the completion budget of a summary call, and the size
// bound of a fallback digest.
func (g *windowGuard) summaryMax() int {
	return min(max(g.effective/8, minSummaryTokens), maxSummaryTokens)
}

// floor is the least window a rejection may teach: below minLearntWindow
// nothing useful fits, and a server that answered a request of accepted
// prompt tokens has at least that window, whatever its error says.
func (g *windowGuard) floor() int { return max(minLearntWindow, g.accepted) }

// accept notes a request the server answered. It reports whether the
// request was larger than the learnt window: the server has a larger
// window than its rejection taught, so that window is wrong.
func (g *windowGuard) accept(promptTokens int) (disproved bool) {
	g.accepted = max(g.accepted, promptTokens)
	return g.learnt > 0 && promptTokens > g.learnt
}

// learn lowers the effective window after the server rejected a request
// of rejected tokens (exact count; rejected() is called only when needed).
// What the server states (llm.StatedWindow) is taken as it is, within the
// floor, when it is smaller than the window believed and not below the
// floor. Otherwise (no window stated, or one not believed) the first
// rejection lowers it to 90% of the rejected request, and each further one
// at least halves it: a server that keeps refusing without saying why is
// far smaller than believed, and each retry must send a request that could
// fit. It reports whether the window went down.
func (g *windowGuard) learn(rejection error, attempt int, rejected func() int) bool {
	w, stated := llm.StatedWindow(rejection)
	if !stated || w >= g.effective || w < g.floor() {
		// A window stated no smaller than the one believed explains
		// nothing: the server counts this request larger than clawdcode
		// does, so the count is what must go down. One stated below the
		// floor is not believed (the server accepted more, or nothing
		// useful fits in it): the rejection says only that this request
		// was too long, as a rejection without a stated window does.
		w = int(0.9 * float64(rejected()))
		if attempt > 1 {
			w = min(w, g.effective/2)
		}
	}
	w = max(w, g.floor())
	if w >= g.effective {
		return false
	}
	g.effective = w
	return true
}

// remember records w as learnt now.
func (g *windowGuard) remember(now time.Time) {
	g.learnt, g.learntAt, g.recorded = g.effective, now.UTC(), true
}

// restore applies the window a session learnt before (see learntWindow):
// unless the configured window is explicit — a flag, the environment or a
// config file wins over what a server once said — or the learnt one is
// below the floor. One below a request the server answered is forgotten.
func (g *windowGuard) restore(w int, at time.Time, recorded bool) {
	if w <= 0 {
		return
	}
	if w < g.accepted {
		// The server answered a larger request since: the window is
		// wrong (AddAssistant records the forgetting when it sees it).
		return
	}
	g.learnt, g.learntAt, g.recorded = w, at, recorded
	if g.explicit || w < g.floor() {
		return
	}
	g.effective = min(g.effective, w)
}

// reset forgets what was learnt.
func (g *windowGuard) reset() {
	g.learnt, g.learntAt, g.recorded = 0, time.Time{}, false
	g.effective = g.configured
}

// learntWindow is the smallest window a server rejection taught this
// session, as recorded in the live context (0 = none), and when it was
// learnt: the boundary's effectiveWindow and every context_window record
// after it, in order. A context_window record without a window clears
// what came before it (/context --reset-window), and a window learnt more
// than learntWindowTTL before now has expired: servers are reconfigured,
// and a window learnt from one bogus error must not cripple a session for
// good.
func learntWindow(live *storage.Live, now time.Time) (int, time.Time) {
	w, at := 0, time.Time{}
	lower := func(n int, when time.Time) {
		if n > 0 && (w == 0 || n < w) {
			w, at = n, when
		}
	}
	if b := live.Boundary; b != nil && b.CompactMetadata != nil {
		when := b.Timestamp
		if t := b.CompactMetadata.EffectiveWindowAt; t != nil {
			when = *t
		}
		lower(b.CompactMetadata.EffectiveWindow, when)
	}
	for _, lr := range live.Records {
		r := lr.Record
		if r == nil || r.Type != storage.TypeSystem || r.Subtype != storage.SubtypeContextWindow {
			continue
		}
		if r.ContextWindow <= 0 {
			w, at = 0, time.Time{}
			continue
		}
		lower(r.ContextWindow, r.Timestamp)
	}
	if w > 0 && !at.IsZero() && now.Sub(at) > learntWindowTTL {
		return 0, time.Time{}
	}
	return w, at
}
