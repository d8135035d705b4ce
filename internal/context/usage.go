package contextmgr

import (
	"fmt"

	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/tokens"
)

// Usage is the context usage shown by /context, the REPL's hint and the
// JSON result: the next request's size and its parts, which always sum
// to it (Tokens == System + Pins + Tools + MCPTools + Summary + Messages
// + Images).
type Usage struct {
	// Tokens is the size of the next request. Measured says how much of
	// it the server counted (its last prompt_tokens, 0 = none): the rest
	// is clawdcode's estimate of what came after.
	Tokens   int
	Measured int
	// The parts. Without a server count each is clawdcode's measure
	// (exact where counted, else the fast estimate); with one, clawdcode's
	// measures are scaled to the server's count (Scaled), so that they
	// sum to it.
	System, Tools, Summary, Messages int
	// Images is what the images the messages carry cost, at the
	// provider's published rate (ImageTokens): apart from Messages.
	Images int
	// MCPTools is the MCP servers' tool definitions (part of the tools
	// sent, shown apart from the built-in ones): all of theirs, or the
	// two that stand for them when MCP says they go on demand.
	MCPTools int
	// MCP is the rule's last decision (see MCPShare).
	MCP MCPOffer
	// Pins is the pinned texts sent with the system prompt (part of
	// neither System nor Messages).
	Pins   int
	Scaled bool
	// Receipt is the last compaction's receipt (nil before the first).
	Receipt *storage.Receipt
	// Ledger is the evidence ledger in force (nil before the first
	// compaction).
	Ledger *storage.Ledger
	// Cleared is how many tool results in force the context ladder sends
	// as one-line stubs (their content one Recall away), and Ladder the
	// ladder's steps since the last compaction (the next one's receipt
	// carries them).
	Cleared int
	Ladder  []storage.LadderStep
	// Brief says the session sends the brief system prompt and tools (it
	// started with a small window; see BriefForms).
	Brief bool

	Window     int    // the effective window
	Configured int    // the window configured (flag, env, config or models table)
	Source     string // where Configured came from
	Explicit   bool
	// Learnt is the window a server's rejection taught the session (0 =
	// none); it is the effective window unless Explicit.
	Learnt    int
	Threshold float64
	Trigger   int // the request size at which auto-compaction fires

	Model    string
	Encoding string // the tokenizer encoding counts are made with
}

// Usage is the size of the next request, broken down by part. It never
// loads the tokenizer (front ends call it after every turn): parts counted
// exactly are exact, the rest is the fast estimate. When the server has
// reported the size of a recent request, Tokens is that figure plus what
// came after.
func (m *Manager) Usage() Usage {
	r := m.acct.breakdown(estimate, true)
	u := Usage{
		Tokens:     r.total(),
		System:     r.system,
		Pins:       r.pins,
		Tools:      r.tools,
		Summary:    r.summary,
		Window:     m.guard.effective,
		Configured: m.guard.configured,
		Source:     m.opt.WindowSource,
		Explicit:   m.guard.explicit,
		Learnt:     m.guard.learnt,
		Threshold:  m.guard.threshold,
		Trigger:    m.guard.trigger(),
		Model:      m.opt.Model,
		Encoding:   tokens.EncodingFor(m.opt.Model),
		Receipt:    m.lastReceipt,
		Ledger:     m.work.ledger,
		Cleared:    clearedResults(m.live.entries()),
		Ladder:     m.ladder.steps,
		Brief:      m.forms.brief,
	}
	if r.calibrated >= 0 {
		u.Measured = m.acct.calib.tokens
	}
	// The priming and the stand-in answers belong with the messages. When
	// the total is the server's count, the local parts measure the same
	// request with another tokenizer: they are scaled to it, so that they
	// still sum to the total and none is squeezed to nothing.
	local := r.local()
	if u.Tokens != local && local > 0 {
		u.Scaled = true
		scale := func(n int) int { return int(float64(n) * float64(u.Tokens) / float64(local)) }
		u.System, u.Pins, u.Tools, u.Summary = scale(u.System), scale(u.Pins), scale(u.Tools), scale(u.Summary)
	}
	u.MCP, u.MCPTools = m.mcp, min(u.Tools, m.acct.mcpTokens)
	if u.Scaled {
		u.MCPTools = min(u.Tools, int(float64(m.acct.mcpTokens)*float64(u.Tokens)/float64(local)))
	}
	u.Tools -= u.MCPTools
	u.Images = imagesIn(m.live.entries())
	if u.Scaled {
		u.Images = int(float64(u.Images) * float64(u.Tokens) / float64(local))
	}
	u.Messages = u.Tokens - u.System - u.Pins - u.Tools - u.MCPTools - u.Summary
	u.Images = min(u.Images, max(u.Messages, 0))
	u.Messages -= u.Images
	return u
}

// Used is how full the window is, in percent (rounded): the one figure
// the front ends show for it (/context, the REPL's status line).
func (u Usage) Used() int {
	return percent(u.Tokens, u.Window)
}

// Left is the share of the way to the auto-compaction trigger that is
// still free, in percent: the one figure the front ends show for it.
func (u Usage) Left() int {
	return max(0, percent(u.Trigger-u.Tokens, u.Trigger))
}

// Warning is the front ends' hint that auto-compaction is near: once the
// next request has used WarnShare of the budget before the trigger (the
// trigger with the reply reserve's clamp, as the manager applies it), it
// says how much of that budget is left; ok is false below that.
func (u Usage) Warning() (string, bool) {
	if u.Trigger <= 0 || float64(u.Tokens) < WarnShare*float64(u.Trigger) {
		return "", false
	}
	return fmt.Sprintf("context left until auto-compact: %d%%", u.Left()), true
}

// minWindow is the smallest usable context window for the system prompt
// and tool definitions under g's policy: the smallest in which they
// (counted exactly), the reply priming and minMessageRoom stay below the
// auto-compaction trigger. Below it every request would compact and still
// not fit.
func (a *accountant) minWindow(g *windowGuard) int {
	return g.minWindowFor(a.fixed() + minMessageRoom)
}

// windowTooSmall is minWindow decided without tokenizing when the window
// is comfortably larger (loading the tokenizer costs a short run more
// than the rest of its start): the byte bound of the fixed part is above
// its exact count, and the fast estimate is rarely a fifth below it, so a
// window above either's minimum (the estimate's with estimateMargin) is
// above the exact one. Only a window near or below the minimum is counted.
func (a *accountant) windowTooSmall(g *windowGuard, w int) (min int, small bool) {
	b := a.breakdown(bound, true)
	if w >= g.minWindowFor(b.priming+b.system+b.tools+minMessageRoom) {
		return 0, false
	}
	e := replyPriming + a.partSize(&a.system, estimate) + a.partSize(&a.tools, estimate)
	if w >= g.minWindowFor(int(estimateMargin*float64(e))+minMessageRoom) {
		return 0, false
	}
	min = a.minWindow(g)
	return min, w < min
}

// estimateMargin is how far above the fast estimate of the fixed part a
// window must be to skip counting it exactly.
const estimateMargin = 1.25

// minWindowFor is the smallest window whose trigger is above need.
func (g *windowGuard) minWindowFor(need int) int {
	hi := max(2*need, 64)
	for g.triggerFor(hi) <= need {
		hi *= 2
	}
	lo := 1
	for lo < hi {
		mid := (lo + hi) / 2
		if g.triggerFor(mid) > need {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// WindowTooSmallError is a context window too small for the system prompt
// and the tool definitions (see MinWindow).
type WindowTooSmallError struct {
	Window, Min int
	Fixed       int // what the system prompt, tool definitions and priming take
}

func (e *WindowTooSmallError) Error() string {
	return fmt.Sprintf("a context window of %d tokens is too small: the system prompt and tool definitions alone take %d tokens; the smallest usable window is %d tokens", e.Window, e.Fixed, e.Min)
}

func percent(n, of int) int {
	if of <= 0 {
		return 0
	}
	return int(float64(n)*100/float64(of) + 0.5)
}
