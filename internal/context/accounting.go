package contextmgr

import (
	"strconv"
	"strings"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/tokens"
)

// replyPriming is what every request adds to prime the reply (chat accounting).
const replyPriming = 3

// accountant is the request accounting: what each part of the next
// request weighs (exact counts, cheap bounds, fast estimates), the
// server's prompt_tokens that calibrate it, and the CacheStore that keeps
// exact counts across the managers of one process.
type accountant struct {
	opt     *Options // the manager's (Model changes with SetModel)
	live    *liveContext
	counter TokenCounter

	system, tools part
	// mcpTokens is what the MCP servers' tools among the definitions
	// (mcp__…, or MCPSearch and MCPCall standing for them) weigh, counted
	// as OfferMCP counts them: /context shows them as a category of their
	// own, the same figure the rule decided on — an exact count when the
	// rule needed one (mcpCounted), else the fast estimate.
	mcpTokens  int
	mcpCounted bool
	// pins is the pinned texts' block at the end of the system prompt.
	pins     part
	pinsText string
	// interrupted is the size of one stand-in answer for a missing tool
	// result; synthesized is how many the last built request had.
	interrupted part
	synthesized int
	// ack is summaryAck, counted with the summary.
	ack part

	// calib is the server's prompt_tokens for a request made of the
	// summary and entries[:calib.upto]; only what came after is counted.
	calib calibration
	// sent says which entries the last request handed out by Request
	// covered. Its size is not kept: Request decides with the cheap byte
	// bound, which is no measure of what the server counted.
	sent calibration

	// tokenized is set once the exact counter has been used.
	tokenized bool
	// joins are the last request's user messages joined from several
	// records, for the next build (see joins).
	joins joins
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

func newAccountant(opt *Options, live *liveContext) *accountant {
	a := &accountant{opt: opt, live: live, counter: opt.Counter}
	if opt.System != "" {
		a.system = part{ub: opt.UpperBound(chat.Message{Role: chat.RoleSystem, Content: opt.System}), exact: -1}
	}
	a.interrupted = part{ub: opt.UpperBound(interruptedAnswer), exact: -1}
	a.ack = part{ub: opt.UpperBound(summaryAck), exact: -1}
	a.setTools()
	return a
}

// setTools measures the tool definitions of opt anew (they changed, or
// are first seen); a request the server measured with others no longer
// calibrates the count.
func (a *accountant) setTools() {
	a.tools, a.mcpTokens = part{}, 0
	a.calib.ok, a.sent.ok = false, false
	if len(a.opt.Tools) == 0 {
		return
	}
	a.tools = part{ub: toolsUpperBound(a.opt.Tools), exact: -1}
	a.countMCP()
}

// countMCP measures the MCP servers' part of the tool definitions, when
// there is one, as OfferMCP last did: exactly (and so the whole, which it
// is part of) when its rule needed a count, else by the fast estimate.
func (a *accountant) countMCP() {
	var mcp []chat.ToolDef
	for _, d := range a.opt.Tools {
		if isMCPTool(d.Name) {
			mcp = append(mcp, d)
		}
	}
	switch {
	case len(mcp) == 0:
	case !a.mcpCounted:
		a.mcpTokens = a.estimateTools(mcp)
	default:
		a.tokenized = true
		a.mcpTokens = a.counter.Tools(mcp)
		a.tools.exact = a.counter.Tools(a.opt.Tools)
	}
}

// estimateTools is the fast estimate of tool definitions, framed as
// they are counted.
func (a *accountant) estimateTools(defs []chat.ToolDef) int {
	return tokens.EstimateTools(tokens.EncodingFor(a.opt.Model), defs, a.opt.Estimate)
}

// isMCPTool tells an MCP server's tool, or one standing for them, by the
// names internal/mcphost gives them.
func isMCPTool(name string) bool {
	return strings.HasPrefix(name, "mcp__") || name == "MCPSearch" || name == "MCPCall"
}

// sameModel reports whether a reply of model (as the server named it) was
// counted the way this run's model counts: servers name the model in their
// own way — a dated snapshot for an alias ("gpt-4o-2024-08-06"), a provider
// prefix ("openai/gpt-4o"), a local server's file name — so names are not
// compared; what matters is whether clawdcode's table maps both to the same
// tokenizer encoding. Only a switch between tokenizers (gpt-4 → gpt-4o)
// makes the recorded count a mere floor.
func (a *accountant) sameModel(model string) bool {
	return model == "" || tokens.EncodingFor(model) == tokens.EncodingFor(a.opt.Model)
}

// setModel starts counting for another model: counts made for the old
// model's encoding, and the server's calibration, no longer hold.
func (a *accountant) setModel() {
	a.counter = a.opt.NewCounter(a.opt.Model)
	a.tokenized = false
	a.calib.ok, a.sent.ok = false, false
	a.system.exact, a.tools.exact, a.interrupted.exact, a.ack.exact = -1, -1, -1, -1
	a.countMCP()
	if a.live.summary() != nil {
		a.live.summary().exact = -1
	}
	for _, e := range a.live.entries() {
		e.exact = -1
	}
}

// newEntry wraps a record of the live context with its cheap bound.
func (a *accountant) newEntry(r *storage.Record, offset int64) *entry {
	e := &entry{rec: r, offset: offset, exact: -1, est: -1}
	e.ub = a.opt.UpperBound(recordMessage(r)) + imageTokens(r)
	if r.Tokens > 0 {
		e.exact = r.Tokens
	}
	return e
}

// resized notes that what e sends changed (cut down): its sizes no
// longer hold, nor does any request-level measurement.
func (a *accountant) resized(e *entry) {
	e.ub = a.opt.UpperBound(recordMessage(e.sent())) + imageTokens(e.sent())
	e.exact, e.est = -1, -1
	a.invalidate()
}

// countMode says how a size is measured.
type countMode int

const (
	// bound uses exact counts already made and cheap upper bounds
	// elsewhere: never tokenizes, never under-counts. Decisions use it.
	bound countMode = iota
	// exact tokenizes whatever was not counted before.
	exact
	// estimate uses exact counts already made and the fast estimate
	// elsewhere: never tokenizes; for display.
	estimate
)

// requestTokens is the size of the next request, measured per mode. Since
// the server's last prompt_tokens covers everything up to calib.upto, only
// what came after is looked at; a count that another model's tokenizer
// made is only a floor under the local count (see calibration.floor).
func (a *accountant) requestTokens(mode countMode) int {
	return a.breakdown(mode, false).total()
}

// request is the next request's size by part. When the server's count
// calibrates it, calibrated is that count plus what came after; the parts
// are the local measures of the same request.
type request struct {
	priming, synth, system, pins, tools, summary, messages int
	calibrated                                             int // -1 = none
	floor                                                  bool
}

// local is the sum of the parts as counted here.
func (r request) local() int {
	return r.priming + r.synth + r.system + r.pins + r.tools + r.summary + r.messages
}

// total is the request's size: the server's count when it is one, else
// the local count (never below a count that is only a floor).
func (r request) total() int {
	if r.calibrated >= 0 && !r.floor {
		return r.calibrated
	}
	return max(r.local(), r.calibrated)
}

// breakdown measures the next request; parts = false when only its total
// is wanted.
func (a *accountant) breakdown(mode countMode, parts bool) request {
	// Stand-in answers are in no record: counted for every one, even those
	// the server's count already covers (a slight, safe over-count).
	r := request{priming: replyPriming, calibrated: -1}
	if a.synthesized > 0 {
		r.synth = a.synthesized * a.partSize(&a.interrupted, mode)
	}
	entries := a.live.entries()
	if a.calib.ok && a.calib.upto <= len(entries) {
		n := a.calib.tokens + r.synth
		for _, e := range entries[a.calib.upto:] {
			n += a.size(e, mode)
		}
		r.calibrated, r.floor = n, a.calib.floor
		if !r.floor && !parts {
			// Only the total is wanted: the parts would cost a pass over
			// every entry for nothing.
			return r
		}
	}
	r.system = a.partSize(&a.system, mode)
	r.pins = a.partSize(&a.pins, mode)
	r.tools = a.partSize(&a.tools, mode)
	if a.live.summary() != nil {
		r.summary = a.size(a.live.summary(), mode) + a.partSize(&a.ack, mode)
	}
	for _, e := range entries {
		r.messages += a.size(e, mode)
	}
	return r
}

func (a *accountant) size(e *entry, mode countMode) int {
	switch {
	case mode == exact:
		return a.countEntry(e)
	case mode == estimate && e.exact < 0:
		if e.est < 0 {
			e.est = estimateMessage(a.opt.Estimate, recordMessage(e.sent())) + imageTokens(e.sent())
		}
		return e.est
	}
	return e.best()
}

func (a *accountant) partSize(p *part, mode countMode) int {
	if p.ub == 0 {
		return 0
	}
	if p.exact >= 0 || mode == bound {
		return p.best()
	}
	var msg chat.Message
	switch p {
	case &a.system:
		msg = chat.Message{Role: chat.RoleSystem, Content: a.opt.System}
	case &a.pins:
		msg = chat.Message{Role: chat.RoleSystem, Content: a.pinsText}
	case &a.interrupted:
		msg = interruptedAnswer
	case &a.ack:
		msg = summaryAck
	default:
		if mode == estimate {
			return a.estimateTools(a.opt.Tools)
		}
		a.tokenized = true
		p.exact = a.counter.Tools(a.opt.Tools)
		return p.exact
	}
	if mode == estimate {
		return estimateMessage(a.opt.Estimate, msg)
	}
	a.tokenized = true
	p.exact = a.counter.Message(msg)
	return p.exact
}

// fixed is the exact size of what every request carries whatever the
// conversation: the system prompt, the tool definitions, the priming.
func (a *accountant) fixed() int {
	return replyPriming + a.partSize(&a.system, exact) + a.partSize(&a.pins, exact) + a.partSize(&a.tools, exact)
}

// estimateMessage applies the chat accounting to the fast text estimate.
func estimateMessage(est func(string) int, msg chat.Message) int {
	n := 3 + est(msg.Content)
	for _, c := range msg.ToolCalls {
		n += 3 + est(c.Name) + est(c.Arguments)
	}
	return n
}

// countEntry returns the exact count of e, counting it (or finding it in
// the CacheStore) the first time.
func (a *accountant) countEntry(e *entry) int {
	if e.exact >= 0 {
		return e.exact
	}
	key := ""
	if a.opt.Cache != nil && e.rec.UUID != "" {
		key = "ctxtokens:" + a.opt.Model + ":" + e.rec.UUID
		if e.trunc != nil || e.clip > 0 {
			key += ":" + strconv.Itoa(e.ub)
		}
		if v, ok := a.opt.Cache.Get(key); ok {
			if n, ok := v.(int); ok {
				e.exact = n
				return n
			}
		}
	}
	a.tokenized = true
	e.exact = a.counter.Message(recordMessage(e.sent())) + imageTokens(e.sent())
	if key != "" {
		a.opt.Cache.Add(key, e.exact)
	}
	return e.exact
}

// invalidate forgets every request-level measurement after the live
// context was changed in place (compaction, truncation).
func (a *accountant) invalidate() {
	a.calib.ok = false
	a.sent.ok = false
}

// approxMargin is how far above the fast estimate approx sizes what was not
// counted: the estimate is typically within a factor of two, and code, the
// bulk of a coding session, runs about a fifth above it.
const approxMargin = 1.5

// approx is e's size for choices that need no guarantee (how much to keep
// verbatim, how to split the material of a summary): the exact count when
// made, else the fast estimate with approxMargin, never above the bound.
// It never tokenizes.
func (a *accountant) approx(e *entry) int {
	if e.exact >= 0 {
		return e.exact
	}
	return min(e.ub, int(approxMargin*float64(a.size(e, estimate))))
}

// approxText is approx for a text that is no record.
func (a *accountant) approxText(s string) int {
	return min(len(s), int(approxMargin*float64(a.opt.Estimate(s))))
}

// boundOf is the size of es from exact counts made and byte bounds:
// never below their exact count, never tokenizes.
func boundOf(es []*entry) int {
	n := 0
	for _, e := range es {
		n += e.best()
	}
	return n
}

func (a *accountant) sizeOf(es []*entry) int {
	n := 0
	for _, e := range es {
		n += a.countEntry(e)
	}
	return n
}

// messages is the full messages[] of the next request, system prompt first.
// It also notes how many calls it answered as interrupted, for the count.
// countStandIns notes how many calls the next request answers with a
// stand-in, without building it.
func (a *accountant) countStandIns() {
	a.synthesized = standIns(a.sentRecords())
}

// sentRecords are the live records as the next request sends them.
func (a *accountant) sentRecords() []*storage.Record {
	held := a.live.mem.Records()
	recs := make([]*storage.Record, 0, len(held))
	for _, e := range held {
		recs = append(recs, e.sent())
	}
	return recs
}

func (a *accountant) messages() []chat.Message {
	msgs, synthesized := buildMessagesWith(a.sentRecords(), &a.joins)
	a.synthesized = synthesized
	system := a.systemPrompt()
	if system == "" {
		return msgs
	}
	return append([]chat.Message{{Role: chat.RoleSystem, Content: system}}, msgs...)
}
